"""Activations: ReLU, GELU, SiLU and SwiGLU side by side, and on the same weights."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.activations import ACTIVATIONS
from ffn_core.analysis import bend_statistics, swiglu_statistics
from ffn_core.lessons.costs import ffn_params, swiglu_d_ff
from ffn_core.swiglu import swiglu_unit
from ffn_ui import figures
from ffn_ui.controls.buttons import model_preset_button
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.sections import curves_section, gelu_dip
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained
from ffn_ui.toy import ACTIVATION_LABELS
from ffn_ui.words import count, number

LEDE = (
    "The activation is the FFN's only bend: see what ReLU, GELU and SiLU make of a "
    "neuron's score z, and what their slopes pass back."
)
NAMES = ACTIVATION_LABELS  # what the page shows -> the core's names
# The numbers in braces are GELU's dip and its slope's, read off the core's GELU (gelu_dip).
INTRO = (
    "The activation is the only bend in the FFN. ReLU, from the original Transformer "
    "(2017), cuts every negative score to exactly 0. GELU, used by BERT and GPT-2, weighs "
    "each score by how likely a standard normal value is to lie below it, so it bends "
    "smoothly and outputs small negative values for negative scores (never below about "
    "{lowest}, at z ≈ {lowest_at}). SiLU (Swish), z · σ(z) with σ the sigmoid, is "
    "similar, and Llama's SwiGLU uses it as a gate. A smooth bend has a nonzero slope "
    "almost everywhere: a neuron just below zero still gets a gradient and can recover, "
    "where a ReLU neuron gets none. GELU's slope is {slope_at_0} at z = 0; it falls to 0 "
    "at z ≈ {lowest_at}, where GELU is lowest, then turns negative, lowest about "
    "{steepest} near z ≈ {steepest_at}, and fades back to 0 further down."
)

toy = setup("Activations", "Activations: why the bend matters", LEDE)
curves_section(toy.presenter)  # the curves, their controls beside them
dip = {name: number(value) for name, value in vars(gelu_dip()).items()}
explained(INTRO.format(**dip), toy.presenter)
facts = st.expander("Each activation's formula, slope and use")  # closed: drawn cheaply
facts.dataframe(  # every activation's facts, as the core keeps them
    pd.DataFrame(
        {"act(z)": a.formula, "slope act′(z)": a.slope, "what it is": a.about}
        for a in ACTIVATIONS.values()
    ).set_axis([a.label for a in ACTIVATIONS.values()]),
    column_config={"what it is": st.column_config.TextColumn(width="large")},
)

st.subheader("SwiGLU: a gate with two inputs")
st.markdown(
    "SwiGLU computes two scores per neuron, a gate g = x·W_gate and an up value "
    "u = x·W_up, and passes silu(g)·u. The second input is what is new: where the gate is "
    "open (g > 0) the output takes its sign from u, and where it is shut (g well below 0) "
    "the output is near 0 whatever u is. Along the diagonal g = u = z it is silu(z)·z, and "
    "with u held at 1 it is SiLU itself: the two dashed and dotted lines, which the curves "
    "above can add too. Three matrices instead of two make models shrink d_ff to about "
    "8/3·d_model, to keep the parameter count of a 4× FFN."
)
grid = np.linspace(-3, 3, 81)
gate, up = np.meshgrid(grid, grid)
st.caption("Notice: above the line up = 0 the output has the gate's shape; below it, flipped.")
show(figures.swiglu_surface(grid, swiglu_unit(gate, up)), toy.presenter)
d = toy.d_model
matched = swiglu_d_ff(d)
table = pd.DataFrame(
    {
        "d_ff": [4 * d, matched],
        "matrices": [2, 3],
        "weights": [ffn_params(d, 4 * d, bias=False), ffn_params(d, matched, "swiglu", False)],
    },
    index=["ReLU/GELU FFN, 4 × d_model", "SwiGLU, 8/3 × d_model"],
)
st.caption(f"At your d_model = {d}:")
st.dataframe(table)

st.subheader("Every activation on the same weights")
silent = " and ".join(a.label for a in ACTIVATIONS.values() if a.zero_below)
leaky = " and ".join(a.label for a in ACTIVATIONS.values() if a.bends and not a.zero_below)
st.markdown(
    "The current model's scores (x·W1 + b1, or SwiGLU's gate scores x·W_gate), passed "
    "through each activation in turn. A neuron is *dead* on this batch when its "
    "activation's slope is zero at every token: no gradient reaches its key, so training "
    f"cannot move it. The slope of {silent} is zero at every score of 0 or below; that of "
    f"{leaky} only at one single score each."
    + (
        " SwiGLU's row passes silu(gate) · up: its slope is zero in both inputs only where "
        "gate and up are both exactly 0."
        if toy.gated
        else " SwiGLU has no row: it needs a second score per neuron, x·W_up, which this "
        "model does not have. Choose SwiGLU in the sidebar and it joins the table."
    )
)
h_pre = toy.scores  # (T, d_ff)
stats = pd.DataFrame({label: bend_statistics(h_pre, name) for label, name in NAMES.items()}).T
if toy.gated:
    stats.loc["SwiGLU"] = swiglu_statistics(h_pre, toy.x @ toy.W_up)
relu_dead, gelu_dead = stats.loc["ReLU", "dead neurons"], stats.loc["GELU", "dead neurons"]
question = Question(
    f"Predict: on {'this 1 token' if toy.T == 1 else f'these {toy.T} tokens'}, does GELU "
    "leave fewer dead neurons than ReLU?",
    "guess_dead",
    ("yes, fewer", "no, the same", "no, more"),
    answer="yes, fewer" if gelu_dead < relu_dead else "no, the same",
    why=(
        f"ReLU has {relu_dead:.0f} of {toy.d_ff} neurons that scored ≤ 0 on every token, "
        f"so no gradient reaches them; GELU has {gelu_dead:.0f}, since its slope is not zero "
        "below 0."
        if relu_dead
        else f"each neuron scores above 0 on at least one of the {count(toy.T, 'token')}, so "
        "even ReLU has none dead here. With one token (the button “One token, d_ff = 64” "
        "sets one) ReLU has many and GELU about none."
    ),
)
model_preset_button(st, "One token, d_ff = 64", tokens="random", T=1, d_ff=64)
if predicted(question, setting=(toy.d_model, toy.d_ff, toy.T, float(h_pre.sum()))):
    shares = stats.drop(columns="dead neurons")
    show(
        figures.grouped_bars(
            {col: shares[col].to_numpy() for col in shares.columns},
            list(shares.index),
            f"shares of the {toy.T} × {toy.d_ff} hidden values",
        ),
        toy.presenter,
    )
    percent = st.column_config.NumberColumn(format="percent")
    st.dataframe(stats, column_config=dict.fromkeys(shares.columns, percent))

offer_notebook("Activations", toy)
next_step("app_pages/Activations.py")

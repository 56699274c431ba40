"""Collapse: without a nonlinearity the FFN is one matrix, and cannot fit a bent function."""

from functools import partial

import numpy as np
import streamlit as st

from ffn_core import collapse
from ffn_core.lessons.training import TASKS
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_select, bound_toggle
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.page.training_cache import trained
from ffn_ui.parts.collapse import (
    MAX_SHOWN,
    NAMES,
    first_coordinates,
    fit_figure,
    fit_question,
    gated_first,
    gated_stack,
    one_matrix_readout,
    product_figure,
    score_text,
    stack_section,
    task_figure,
    task_words,
)

QUICK, BIGGER = (16, 400), (64, 800)  # (d_ff, steps) of the training demo
LEDE = (
    "Take the activation out and the FFN's two matrices multiply into one, W_eff = W1 · W2: "
    "widening to d_ff and back buys nothing."
)
INTRO = (
    "Remove the activation and the FFN is (x·W1 + b1)·W2 + b2. Matrix products group "
    "freely, so that is x·(W1·W2) + (b1·W2 + b2) = x·W_eff + b_eff: one d_model × d_model "
    "matrix and one bias, whatever d_ff is. The figure above and sections 1 and 2 take the "
    "activation away, whatever the sidebar says; the “same gap with …” number beside the "
    "figure and the training of the last section put the sidebar's bend back, to compare. "
    "With SwiGLU chosen in the sidebar (the gated FFN silu(x·W_gate) ⊙ (x·W_up) · W_down, "
    "where SiLU, silu(z) = z·sigmoid(z), is a smooth ReLU: see Activations) they take its SiLU "
    "out instead, and ask what is left."
)


toy = setup("Collapse", "Collapse: take the nonlinearity away", LEDE)
if toy.gated:  # SwiGLU without its SiLU is not one matrix: ffn_ui/parts/collapse.py
    answered = gated_first(toy)
    explained(INTRO, toy.presenter)
    gated_stack(answered)
else:  # two matrices, and a stack of them, are one
    x, W1, b1, W2, b2 = first_coordinates(toy)  # x (T, C), W1 (C, d_ff), W2 (d_ff, C)
    W_eff, b_eff = collapse(W1, b1, W2, b2)  # (C, C), (C,)
    picture, readout = stage(toy.presenter)
    with picture:
        show(product_figure(W1, W2, W_eff, toy.presenter), toy.presenter)
    with readout:
        out_ffn = one_matrix_readout(toy, x, (W1, b1, W2, b2), W_eff, b_eff)  # (T, C)
    explained(INTRO, toy.presenter)

    st.subheader("1. The same output, token by token")
    d = min(x.shape[1], MAX_SHOWN)
    st.caption(
        "Each token through the FFN with no activation, and through the one matrix: the two "
        "grids agree up to float64 rounding, the gap beside the figure."
    )
    outputs = {"FFN(x), activation none": out_ffn, "x · W_eff + b_eff": x @ W_eff + b_eff}
    show_in_pairs(
        [
            figures.matrix_heatmap(out[:, :d], toy.token_labels, labels("out", d), title, "output")
            for title, out in outputs.items()
        ],
        toy.presenter,
    )
    stack_section(toy, x)

st.subheader(f"{2 if toy.gated else 3}. Fitting a bent function")
preset_columns = st.columns(4)
for column, name in zip(preset_columns, ("XOR", "spiral", "|x|", "line"), strict=True):
    preset_button(column, name, key=f"task_{name}", task=name)
task = bound_select("task", "task", list(TASKS), "XOR")
bigger = bound_toggle(
    f"Bigger toy, longer training (d_ff {BIGGER[0]}, {BIGGER[1]} steps)", "bigger", False
)
d_ff, steps = BIGGER if bigger else QUICK
straight = "bilinear" if toy.gated else "identity"  # the FFN with its bend taken out
bent = toy.activation if toy.bend.bends else "relu"  # with no bend, ReLU's
measure = "accuracy" if TASKS[task] == "classify" else "R²"
data, words = st.columns([3, 2])  # the points, and what they are beside them
with data:
    show(task_figure(task), toy.presenter)
words.caption(task_words(task, d_ff, steps))
linear_result = partial(trained, task, straight, d_ff, steps, seed=0)

question = fit_question(task, linear_result, toy.gated)
if not predicted(question, setting=(task, bigger)):
    st.stop()
results = {act: trained(task, act, d_ff, steps, seed=0) for act in (straight, bent)}
names = {
    straight: NAMES[straight],
    bent: toy.activation_label if bent == toy.activation else "ReLU",
}
for column, (act, result) in zip(st.columns(2), results.items(), strict=True):
    name = names[act]
    score = score_text(task, result.scores[-1])
    with column:
        show(fit_figure(task, act, result, f"{name}: {measure} {score}"), toy.presenter)
show(
    figures.log_lines(
        np.arange(1, steps + 1),
        {names[a]: r.losses for a, r in results.items()},
        "training loss",
        "step",
        "loss",
    ),
    toy.presenter,
)

offer_notebook("Collapse", toy)
next_step("app_pages/Collapse.py")

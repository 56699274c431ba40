"""Collapse: without a nonlinearity the FFN is one matrix, and cannot fit a bent function."""

from functools import partial

import numpy as np
import streamlit as st

from ffn_core import collapse, ffn_forward
from ffn_core.analysis import collapse_stack, run_stack
from ffn_core.init import init_weights
from ffn_core.training import TASKS
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import labels
from ffn_ui.controls.predict import predicted
from ffn_ui.controls.url import bound_select, bound_slider, bound_toggle
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.training_cache import trained
from ffn_ui.parts.collapse import (
    NAMES,
    first_coordinates,
    fit_figure,
    fit_question,
    gated_collapse,
    score_text,
)

MAX_SHOWN = 64  # matrix rows and columns drawn
STACK_D_MODEL, STACK_D_FF = 64, 256  # the stack demo stays this small at most
QUICK, BIGGER = (16, 400), (64, 800)  # (d_ff, steps) of the training demo
INTRO = (
    "Remove the activation and the FFN is x·W1·W2 plus a bias. Matrix products group "
    "freely, so W1·W2 is one d_model × d_model matrix: the expansion to d_ff and back buys "
    "nothing. Sections 1 and 2 take the activation away, whatever the sidebar says; the "
    "“same gap with …” number of section 1 and the training of section 3 put the "
    "sidebar's bend back, to compare. With SwiGLU chosen they take its SiLU out instead, "
    "and ask what is left."
)


toy = setup("Collapse", "Collapse: take the nonlinearity away", INTRO)
if toy.gated:
    gated_collapse(toy)  # sections 1 and 2: SwiGLU without its SiLU is not one matrix
else:  # sections 1 and 2: two matrices, and a stack of them, are one
    x, W1, b1, W2, b2 = first_coordinates(toy)  # x (T, C), W1 (C, d_ff), W2 (d_ff, C)
    C = x.shape[1]
    d, k = min(C, MAX_SHOWN), toy.d_ff

    st.subheader("1. Two matrices become one")
    W_eff, b_eff = collapse(W1, b1, W2, b2)  # (C, C), (C,)
    out_ffn, _ = ffn_forward(x, W1, b1, W2, b2, "identity")  # (T, C)
    out_one = x @ W_eff + b_eff
    diff = float(np.max(np.abs(out_ffn - out_one)))
    rank = int(np.linalg.matrix_rank(W_eff))
    left, mid, right = st.columns(3)
    rounding = "float64 rounding: 0 means exactly equal, to the last bit"
    left.metric("max |FFN(x) − (x·W_eff + b_eff)|", f"{diff:.1e}", help=rounding)
    mid.metric("rank of W_eff", f"{rank} of {C}", help="at most min(d_model, d_ff)")
    if toy.activation != "identity":
        bent, _ = ffn_forward(x, W1, b1, W2, b2, toy.activation)
        right.metric(
            f"the same gap with {toy.activation_label}",
            f"{np.max(np.abs(bent - out_one)):.2g}",
            help="The bend breaks the collapse: the output is no longer x·W_eff + b_eff, and no "
            "single matrix matches the bent FFN on every input.",
        )
    st.caption(
        f"W1 is {C} × {k} and W2 is {k} × {C}; their product W_eff is "
        f"{C} × {C}"
        + (f" (showing its first {MAX_SHOWN} rows and columns)." if C > MAX_SHOWN else ".")
    )
    show(
        figures.matrix_heatmap(W_eff[:d, :d], labels("x", d), labels("out", d), "W_eff = W1 · W2"),
        toy.presenter,
    )
    outputs = {"FFN(x), activation none": out_ffn, "x · W_eff + b_eff": out_one}
    show_in_pairs(
        [
            figures.matrix_heatmap(out[:, :d], toy.token_labels, labels("out", d), title, "output")
            for title, out in outputs.items()
        ],
        toy.presenter,
    )

    st.subheader("2. A stack of linear blocks is still one matrix")
    st.markdown(
        "Fresh random blocks, not the sidebar's weights: L of them, each the sidebar's d_model → "
        "d_ff → d_model (capped at 64 → 256 → 64), with no activation, one after another."
    )
    L = bound_slider("blocks L", "L", 1, 12, 3, 1)
    sd, sk = min(toy.d_model, STACK_D_MODEL), min(toy.d_ff, STACK_D_FF)
    blocks = [tuple(init_weights(sd, sk, "normal", seed=100 + i).values()) for i in range(L)]
    W_stack, b_stack = collapse_stack(blocks)
    y = run_stack(x[:, :sd], blocks, "identity")  # (T, sd)
    stack_gap = float(np.max(np.abs(y - (x[:, :sd] @ W_stack + b_stack))))
    singular = np.linalg.svd(W_stack, compute_uv=False)
    st.metric(
        f"{L} blocks of {sd} → {sk} → {sd} in a row against one {sd} × {sd} matrix: "
        "largest difference",
        f"{stack_gap:.1e}",
    )
    st.caption(
        "Notice: depth without a bend adds no power: the stack is still one matrix. What depth "
        "does change is that matrix. Its singular values (how much it stretches space along "
        "each of its main directions) tend to spread apart as random blocks are added, some "
        "directions growing and others fading."
    )
    show(
        figures.bars(labels("σ", sd), singular, "singular values of the product", "σ"),
        toy.presenter,
    )

st.subheader("3. Fitting a bent function")
preset_columns = st.columns(4)
for column, name in zip(preset_columns, ("XOR", "spiral", "|x|", "line"), strict=True):
    preset_button(column, name, key=f"task_{name}", task=name)
task = bound_select("task", "task", list(TASKS), "XOR")
bigger = bound_toggle(
    f"Bigger toy, longer training (d_ff {BIGGER[0]}, {BIGGER[1]} steps)", "bigger", False
)
d_ff, steps = BIGGER if bigger else QUICK
straight = "bilinear" if toy.gated else "identity"  # the FFN with its bend taken out
bent = toy.activation if toy.activation != "identity" else "relu"
kind = TASKS[task]
measure = "accuracy" if kind == "classify" else "R²"
linear_result = partial(trained, task, straight, d_ff, steps, seed=0)

question = fit_question(task, linear_result, toy.gated)
if not predicted(question, setting=(task, bigger)):
    st.stop()
results = {act: trained(task, act, d_ff, steps, seed=0) for act in (straight, bent)}
for column, (act, result) in zip(st.columns(2), results.items(), strict=True):
    name = NAMES.get(act, act)
    score = score_text(task, result.scores[-1])
    with column:
        show(fit_figure(task, act, result, f"{name}: {measure} {score}"), toy.presenter)
show(
    figures.log_lines(
        np.arange(1, steps + 1),
        {NAMES.get(a, a): r.losses for a, r in results.items()},
        "training loss",
        "step",
        "loss",
    ),
    toy.presenter,
)

next_step("app_pages/Collapse.py")

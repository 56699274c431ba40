"""Traps: the classic mistakes of the by-hand FFN, made visible, and an exercise by hand."""

import inspect

import numpy as np
import streamlit as st

import ffn_core.reference
from ffn_core import ffn_forward_flat, ffn_forward_flat_one_stride
from ffn_ui import figures
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_number, bound_text
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.traps import (
    DIFFERENT,
    EXERCISE,
    SAME,
    grade_exercise,
    outcome,
    shape_presets,
    small_case,
    stride_question,
    with_w1_transposed,
)

LEDE = (
    "Three slips of an FFN written by hand: W2 read with W1's stride, W1 passed "
    "transposed, a ReLU after W2. Would a test notice each?"
)
INTRO = (
    "By hand, in the W @ x convention, W1 is H × D and W2 is D × H, where D is d_model and H "
    "is d_ff, both stored as flat row-major lists, one row after another. Each row of cells "
    "above is one output y[i] and the entries of W2's list it reads, with the number it reads."
)
STRIDES = (  # where the rows start: said once guessed, as it settles the question
    " Row i of W1 starts at i·D, row i of W2 at i·H. The one-stride version reads W2 with "
    "W1's stride D, so y[i] takes the H entries from i·D instead of i·H; hover over a cell "
    "for the entry it really is."
)


toy = setup("Traps", "Traps: three mistakes of an FFN written by hand", LEDE)
asked = st.container()  # the question goes above the figure; it names D and H, read beside it
picture, controls = stage(toy.presenter)
with controls:
    D = bound_number("D (d_model)", "D", 1, 8, 3)
    H = bound_number("H (d_ff)", "H", 1, 8, 5)
    shape_presets()
case = small_case(D, H)
right_out = ffn_forward_flat(**case)
wrong_out, crash = outcome(ffn_forward_flat_one_stride, *case.values())
stride = stride_question(D, H, same=wrong_out == right_out)
answered = predicted(stride, setting=(D, H), container=asked)
with picture:
    show(figures.stride_reads(D, H, case["W2"], shown=answered), toy.presenter)
if answered:
    with controls:
        st.markdown("**correct strides**")
        st.code(repr(right_out), language=None, wrap_lines=True)
        st.markdown("**one stride (D) for both**")
        st.code(crash or repr(wrong_out), language=None, wrap_lines=True)
strides = STRIDES if answered else ""
explained(INTRO + strides, toy.presenter, label="1. Orientation: one stride for two matrices")
if toy.gated:
    st.info(
        "Sections 1, 2 and 4 are the lesson's plain FFN by hand, W1 and W2, whatever the "
        "sidebar says; section 3 runs the sidebar's SwiGLU, whose last matrix is W_down."
    )

st.subheader("2. Orientation: a transposed matrix in the x @ W convention")
good, transposed, refusal = with_w1_transposed(case, D, H)
same_t = transposed is not None and np.allclose(transposed, good)
transpose = Question(
    f"Passing W1 transposed ({H} × {D} instead of {D} × {H}): the same answer?",
    "guess_t",
    (SAME, DIFFERENT),
    answer=SAME if same_t else DIFFERENT,
    why="a transposed square matrix has the right shape and the wrong numbers, so it runs "
    "silently (and gives the same answer only when it is symmetric); any other shape is "
    "refused by the FFN's shape check.",
)
if predicted(transpose, setting=(D, H)):
    if refusal:
        st.markdown("The FFN checks shapes and refuses, naming what it got and expected:")
        st.code(refusal, language=None, wrap_lines=True)
    else:
        st.markdown(
            f"Square, so it runs silently: {np.round(transposed, 4).tolist()} instead "
            f"of {np.round(good, 4).tolist()}."
        )

st.subheader("3. An activation after W2")
st.markdown(
    "The block adds the FFN's output to the token: x + FFN(x)"
    + (", where FFN(x) ends with W_down." if toy.gated else ".")
)
out = toy.forward(toy.x)  # (T, d_model)
clamped = np.maximum(out, 0)
clamp = Question(
    "With a ReLU after W2, can x + FFN(x) still lower any coordinate of a token?",
    "guess_clamp",
    ("yes", "no"),
    answer="no",
    why="clamped at zero, the update can only raise a coordinate or leave it.",
)
if predicted(clamp):
    st.markdown("A ReLU on the output stops every push down at zero, on every coordinate.")
    st.metric(
        "residual updates that would have pushed a coordinate down, blocked by the clamp",
        f"{int(np.sum(out < 0))} of {out.size}",
    )
    shown = min(toy.d_model, 64)
    coords = labels("c", shown)
    for column, values, title in zip(
        st.columns(2),
        (out, clamped),
        ("update x + FFN(x) − x, correct", "the same with ReLU after W2"),
        strict=True,
    ):
        with column:
            show(
                figures.matrix_heatmap(values[:, :shown], toy.token_labels, coords, title),
                toy.presenter,
            )

st.subheader("4. Your turn: a forward pass by hand")
st.markdown(
    "Compute y = W2 @ relu(W1 @ x + b1) + b2 for this non-square case, D = 2 and H = 3, "
    "with W1 (H × D) and W2 (D × H) given as flat row-major lists, as a grader that checks "
    "by-hand code would give them. Type the two numbers of y."
)
exercise = "\n".join(f"{name} = {values}" for name, values in EXERCISE.items())
# Code is shown plain and wrapped: highlighted numbers fall below WCAG AA contrast, and a
# box that scrolls sideways cannot be reached by keyboard.
st.code(exercise, language=None, wrap_lines=True)
if grade_exercise(bound_text("your y (2 numbers)", "ex_y", "", 100)):  # answered first
    with st.expander("The reference: the by-hand forward pass the app runs"):
        st.markdown("Its source, shown as it is: plain Python lists, the W @ x convention.")
        st.code(inspect.getsource(ffn_core.reference), language=None, wrap_lines=True)

offer_notebook("Traps", toy, D=D, H=H, case=case)
next_step("app_pages/Traps.py")

"""Build it: the learner writes the FFN's forward and backward pass, line by line, and a
grader checks each line; then their own backward pass meets a gradient check."""

import streamlit as st

from ffn_core.exercise import by_hand
from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN
from ffn_core.exercise.safe_eval import FUNCTIONS, METHODS
from ffn_ui.classroom.progress import class_progress
from ffn_ui.controls.url import bound_select
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.parts.build_it import (
    by_hand_line,
    line,
    load_shared_lines,
    names_table,
    own_check,
    progress_text,
    share_lines,
    sizes_text,
    toy_case,
)

INTRO = (
    "Write the FFN's forward pass yourself, keeping what the backward pass needs, then "
    "the backward pass, and check every gradient against a numerical one. Each line is a "
    "NumPy expression: type it and press Enter. A grader checks it on a small batch and on "
    "shapes where no two sizes agree, and says what is wrong in words. Then your own "
    "backward pass meets the gradient check of the Backprop page."
)

toy = setup(
    "Build it",
    "Build it: write the forward and backward pass",
    INTRO,
    sidebar_note="This page's exercise is the plain ReLU FFN, whatever the FFN chosen below; "
    "the sidebar's toy is one of its three sets of shapes.",
)
load_shared_lines()
CASES = {"the small batch": None, "no two sizes alike": UNEVEN, "the sidebar's toy": toy_case(toy)}
chosen = bound_select("shapes shown and checked", "build_case", list(CASES), "the small batch")
extra = CASES[chosen]
case = extra or LESSON
st.caption(
    f"Every line is checked on the small batch, {sizes_text(LESSON)}, and on {sizes_text(UNEVEN)}"
    + (f", and on {case.name}, {sizes_text(case)}" if chosen == "the sidebar's toy" else "")
    + ". Each line may use the names below and every line above it, at its right value, so "
    "one mistake does not spill into the next. float64, seeded."
)
st.dataframe(names_table(case))
st.caption(
    "Allowed: + - * / @ ** and comparisons; indexing and slicing; .T, .shape, "
    + ", ".join(f".{m}()" for m in sorted(METHODS))
    + "; np."
    + ", np.".join(sorted(FUNCTIONS))
    + ". Anything else is refused, with its name."
)

st.subheader("1. Forward: keep what the backward pass needs")
st.markdown("x has shape (B, T, C), and the layers multiply on the right, x @ W, as on every page.")
right = {step.name: line(step, extra) for step in STEPS if not step.backward}

st.subheader("2. Backward: from dout to every gradient")
st.markdown(
    "dout is the loss's gradient at out, shape (B, T, C). Walk back: through W2, through "
    "the ReLU, through W1. Each gradient has the shape of its quantity."
)
right |= {step.name: line(step, extra) for step in STEPS if step.backward}
st.markdown(f"**{progress_text(right)}**")
class_progress(right)

st.subheader("3. Your backward pass against the gradient check")
if all(right.values()):
    own_check(case, toy.presenter)
else:
    st.caption(
        "Once every line above is right, your own lines run in order here, and each of "
        "dW1, db1, dW2, db2 and dx meets centred differences in float64, entry by entry."
    )

st.subheader("4. By hand, over flat lists")
st.markdown(
    "Without NumPy, in the W @ x convention: W1 is H × D and W2 is D × H, each stored as "
    "one flat list read row by row. The loops are written; you say where each entry sits, "
    "and what y[i] is, given s = (row i of W2) · h + b2[i]. Names: i, k, j, D, H, and s "
    "with relu."
)
st.code(
    "for i in range(H):  h[i] = relu(sum(W1[<W1 index>] * x[k] for k in range(D)) + b1[i])\n"
    "for i in range(D):  s = sum(W2[<W2 index>] * h[j] for j in range(H)) + b2[i]\n"
    "                    y[i] = <your y[i]>",
    language="python",
)
done = [by_hand_line(field) for field in by_hand.FIELDS]
st.caption(
    f"Checked on a square case (D = H = {by_hand.SQUARE[0]}) and an uneven one "
    f"(D = {by_hand.UNEVEN[0]}, H = {by_hand.UNEVEN[1]}): {sum(done)} of {len(done)} right."
)

with st.expander("Share your lines"):
    share_lines()
next_step("app_pages/Build_it.py")

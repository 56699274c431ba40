"""Build it: the learner writes the FFN's forward and backward pass, line by line, and a
grader checks each line; then their own backward pass meets a gradient check."""

import streamlit as st

from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN
from ffn_ui.classroom.progress import class_progress
from ffn_ui.controls.url import bound_select
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.build_check import (
    check_section,
    collapse_section,
    notebook_lines,
    rebuild_section,
)
from ffn_ui.parts.build_it import (
    by_hand_section,
    diagram,
    graded,
    line,
    load_shared_lines,
    names_note,
    own_check,
    progress_text,
    section_lines,
    share_lines,
    toy_case,
)

LEDE = "Write the FFN's forward and backward pass yourself, one NumPy line at a time."
INTRO = (
    "Write the forward pass, keeping what the backward pass needs, then the backward pass, "
    "and check every gradient against a numerical one. Each line is a NumPy expression: "
    "type it and press Enter. A grader checks it on a small batch and on shapes where no "
    "two sizes agree, and says what is wrong in words. The diagram above turns each line's "
    "box green when it is right and red when it is wrong, with the shape it must have. "
    "Then your own backward pass meets the gradient check of the Backprop page."
)

toy = setup(
    "Build it",
    "Build it: write the forward and backward pass",
    LEDE,
    sidebar_note="This page's exercise is the plain ReLU FFN, whatever the FFN chosen below. "
    "Choose “the sidebar's toy” beside the diagram to check your lines on this model too.",
)
load_shared_lines()
CASES = {"the small batch": None, "no two sizes alike": UNEVEN, "the sidebar's toy": toy_case(toy)}
picture, controls = stage(toy.presenter)
with controls:
    chosen = bound_select(
        "shapes in the diagram, the table and your gradient check",
        "build_case",
        list(CASES),
        "the small batch",
    )
extra = CASES[chosen]
case = extra or LESSON
verdicts = graded(extra)  # every line, once, before any is drawn
first = next((s for s in STEPS if not (verdicts[s.name] and verdicts[s.name].right)), None)
with picture:
    show(diagram(verdicts, case, first.name if first else None), toy.presenter)
right = {s.name: bool(verdicts[s.name] and verdicts[s.name].right) for s in STEPS}
with controls:
    if first:
        st.markdown(f"**{progress_text(right)}**")
        st.caption(f"The first line to write: {first.of}.")
        line(first, verdicts[first.name], stacked=True)
    else:
        st.success("Every line is right: section 3 runs them against the gradient check.")
explained(INTRO, toy.presenter)
names_note(case, chosen == "the sidebar's toy", toy.presenter)

st.subheader("1. Forward: keep what the backward pass needs")
st.markdown(
    "Type each line's right-hand side, then Enter. x is (B, T, C), and the layers multiply "
    "on the right: x @ W. The backward pass reuses h_pre and h: the forward pass's cache."
)
section_lines(verdicts, first, backward=False)

st.subheader("2. Backward: from dout to every gradient")
st.markdown(
    "dout is the loss's gradient at out, shape (B, T, C). Walk back: through W2, through "
    "the ReLU, through W1. Each gradient has the shape of its quantity."
)
section_lines(verdicts, first, backward=True)
st.markdown(f"**{progress_text(right)}**")

st.subheader("3. Your backward pass against the gradient check")
if all(right.values()):
    own_check(case, toy.presenter)
else:
    st.caption(
        "Once every line above is right, your own lines run in order here, and each of "
        "dW1, db1, dW2, db2 and dx meets centred differences in float64, entry by entry."
    )

st.subheader("4. Write the check yourself")
st.markdown(
    "Backprop's gradient check, a line at a time: a loss whose gradient at out is dout, one "
    "entry of W1 nudged up, down and back (nudge(P, i, by) moves P[i] in place and gives "
    "the loss there), the centred difference, the relative error, then every entry at once "
    "(sweep(P))."
)
mine = check_section(all(right.values()))

st.subheader("5. Take the ReLU out: the collapse")
st.markdown("Without its activation the FFN is one matrix: write it, and check it.")
mine |= collapse_section()
class_progress(right | mine)  # a class counts each line right, the new ones too

st.subheader("6. Exercise: rebuild at hidden = 2C")
rebuild_section(all(right.values()))

by_hand_section()
with st.expander("Share your lines"):
    share_lines()
lines = notebook_lines(right | mine)
offer_notebook("Build it", toy, arrays=dict(case.inputs()), sizes=case.sizes, lines=lines)
next_step("app_pages/Build_it.py")

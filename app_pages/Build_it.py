"""Build it: the learner writes the FFN's forward and backward pass, line by line, and a
grader checks each line; then their own backward pass meets a gradient check."""

import streamlit as st

from ffn_core.exercise import by_hand
from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN
from ffn_core.exercise.safe_eval import FUNCTIONS, METHODS
from ffn_ui.classroom.progress import class_progress
from ffn_ui.controls.url import bound_select
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.build_it import (
    by_hand_line,
    checked_on,
    diagram,
    graded,
    line,
    load_shared_lines,
    names_table,
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
with st.expander("The names a line may use") if toy.presenter else st.container():
    st.caption(checked_on(case, chosen == "the sidebar's toy"))
    st.caption(
        "The grader's verdict appears beside each line; typing “h_pre = …” in full works "
        "too. Section 4 writes W @ x instead, as code by hand often does."
    )
    st.dataframe(names_table(case))
    st.caption(
        "Allowed: + - * / @ ** and comparisons; indexing and slicing; .T, .shape, "
        + ", ".join(f".{m}()" for m in sorted(METHODS))
        + "; np."
        + ", np.".join(sorted(FUNCTIONS))
        + "; relu(). Anything else is refused, with its name: np.dot, np.tensordot and np.outer "
        "are not on the list, and np.einsum or reshape-then-@ sum over the positions."
    )


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
    "Plain Python, one token, in the W @ x convention: D is the token's width (C above) "
    "and H the hidden width. W1 is stored H × D, the transpose of the W1 above, and W2 is "
    "D × H, each as one flat list read row by row. The loops are written. Type where "
    "W1's row i, column k sits in its list (names i, k, D, H), the same for W2's row i, "
    "column j (names i, j, D, H), and y[i] from s, the row's sum with b2[i] (names s and "
    "relu)."
)
st.code(
    "for i in range(H):  # hidden neuron i\n"
    "    h[i] = relu(sum(W1[<W1 index>] * x[k] for k in range(D)) + b1[i])\n"
    "for i in range(D):  # output coordinate i\n"
    "    s = sum(W2[<W2 index>] * h[j] for j in range(H)) + b2[i]\n"
    "    y[i] = <your y[i]>",
    language=None,  # plain text: the highlighter's colours miss AA contrast
    wrap_lines=True,  # no sideways scrolling on a phone
)
done = [by_hand_line(field) for field in by_hand.FIELDS]
st.caption(
    f"Checked on a square case (D = H = {by_hand.SQUARE[0]}) and an uneven one "
    f"(D = {by_hand.UNEVEN[0]}, H = {by_hand.UNEVEN[1]}): {sum(done)} of {len(done)} right."
)

with st.expander("Share your lines"):
    share_lines()
next_step("app_pages/Build_it.py")

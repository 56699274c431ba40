"""Build it's last lessons as lines to write: the gradient check, the collapse, and the
exercise that rebuilds the FFN at hidden = 2C (ffn_core/exercise/check_lines.py and
collapse_lines.py grade them, as build_ffn grades the forward and backward lines)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.exercise import build_ffn, check_lines, collapse_lines
from ffn_core.exercise.build_ffn import LESSON, STEPS, Case, Verdict
from ffn_ui.controls.url import bound_select
from ffn_ui.page.predict import Question, predicted
from ffn_ui.parts.build_it import key, line

CHECK, COLLAPSE = check_lines.CHECK_STEPS, collapse_lines.COLLAPSE_STEPS
PASSES = build_ffn.CHECK_PASSES  # a right check of a right pass: about 1e-7 or smaller
WIDTHS = {"4C = 32, as above": LESSON, "2C = 16": Case("H = 2C", 2, 4, 8, 16, seed=42)}


@st.cache_data(max_entries=512, ttl=3600, show_spinner=False)
def graded_line(step: str, text: str) -> Verdict:
    """One check or collapse line's verdict, once per text (a sweep costs a few ms)."""
    if step in {s.name for s in CHECK}:
        return check_lines.check_check_line(step, text)
    return collapse_lines.check_collapse_line(step, text)


def lines_of(steps) -> dict[str, bool]:
    """Each line of `steps`, drawn with its verdict; which are right."""
    right = {}
    for step in steps:
        text = st.session_state.get(key(step.name), "")
        verdict = graded_line(step.name, text) if text.strip() else None
        right[step.name] = line(step, verdict)
    return right


def typed(steps) -> dict[str, str]:
    return {s.name: st.session_state.get(key(s.name), "") for s in steps}


def notebook_lines(right: dict[str, bool]) -> dict[str, tuple[str, bool, str]]:
    """Each forward, backward and collapse line for the notebook, in order: (as typed,
    graded right, what it computes). The check's lines call the page's helpers, so they
    stay on the page."""
    texts = typed((*STEPS, *COLLAPSE))
    return {s.name: (texts[s.name], right.get(s.name, False), s.of) for s in (*STEPS, *COLLAPSE)}


def check_section(forward_backward_right: bool) -> dict[str, bool]:
    """Write the check; once it and the forward and backward lines are right, it runs on
    the learner's own backward pass, and on a planted one with dW1 transposed."""
    right = lines_of(CHECK)
    if not (all(right.values()) and forward_backward_right):
        st.caption(
            "Once these and your forward and backward lines are right, your check runs on "
            "your own backward pass, then on one with a bug planted in it."
        )
        return right
    check, mine = typed(CHECK), typed(STEPS)
    inputs = LESSON.inputs()
    grads = build_ffn.run_lines(mine, inputs, LESSON.sizes)
    worst = check_lines.own_check(check, grads, LESSON)
    table = pd.DataFrame({"worst relative error, by your check": worst})
    st.dataframe(table.style.format("{:.2e}"))
    biggest = max(worst, key=worst.get)
    said = (
        f"Your check passes your backward pass: the worst is {worst[biggest]:.1e} ({biggest}), "
        "as a correct pass gives (about 1e-7 or smaller)."
        if worst[biggest] < PASSES
        else f"Your check flags {biggest} ({worst[biggest]:.1e}) in your own backward pass."
    )
    planted = check_lines.planted_check(check)
    caught = planted >= PASSES
    st.markdown(
        f"{said} On a backward pass with a bug planted in it, dW1 transposed (W1 is "
        f"{check_lines.PLANTED.C} × {check_lines.PLANTED.H} there, so the shape still fits), "
        f"your check finds {planted:.2g}: "
        + ("**flagged**, as a check must." if caught else "**missed**: a check must flag it.")
    )
    return right


def collapse_section() -> dict[str, bool]:
    """Write the collapse; once right, its two gaps on the learner's own numbers."""
    right = lines_of(COLLAPSE)
    if all(right.values()):
        _, values = collapse_lines.collapse_setting(LESSON, "gap_relu")
        st.markdown(
            f"Without the ReLU, the two layers and W_eff differ by at most "
            f"{values['gap']:.1e}: rounding, one matrix. With the ReLU put back, by "
            f"{values['gap_relu']:.3g}: the bend is what the one matrix cannot do."
        )
    return right


SHAPES = Question(
    "Rebuilt at H = 2C = 16, what shapes do h and dW1 have?",
    "guess_build_2c",
    ("h (2, 4, 32), dW1 (8, 32)", "h (2, 4, 16), dW1 (16, 8)", "h (2, 4, 16), dW1 (8, 16)",
     "h (2, 4, 8), dW1 (8, 8)"),
    answer="h (2, 4, 16), dW1 (8, 16)",
    why="h has one value per position and hidden neuron, (B, T, H); W1 is (C, H), and a "
    "gradient has its quantity's shape, so dW1 is (8, 16) too.",
)  # fmt: skip


def rebuild_section(forward_backward_right: bool) -> None:
    """Exercise 1: the parameters at half the width, the learner's lines rerun unchanged,
    the shapes asked before they are shown."""
    width = bound_select("hidden width H", "build_h", list(WIDTHS), next(iter(WIDTHS)))
    case = WIDTHS[width]
    if case is LESSON:
        st.caption("Choose 2C to rebuild the FFN at half the width.")
        return
    if not predicted(SHAPES):
        return
    if not forward_backward_right:
        st.caption("Once your forward and backward lines are right, they run here unchanged.")
        return
    values = build_ffn.run_lines(typed(STEPS), case.inputs(), case.sizes)
    shown = {s.name: str(np.shape(values[s.name])) for s in STEPS}
    st.dataframe(pd.DataFrame({"shape at H = 2C, from your lines": shown}))

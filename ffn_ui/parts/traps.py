"""The Traps page's pieces: the small by-hand cases it runs, and the exercise's grader."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core import ffn_forward, ffn_forward_flat, ffn_forward_flat_one_stride
from ffn_core.lessons.mistakes import ffn_forward_flat_relu_after_w2
from ffn_core.typed_numbers import parse_row
from ffn_ui.classroom import recording
from ffn_ui.controls.buttons import preset_button
from ffn_ui.page.predict import Question

SAME, DIFFERENT = "the same answer", "a different answer or a crash"
SHAPES = {"square": (3, 3), "H > D": (3, 5), "H < D": (5, 3)}


def shape_presets() -> None:
    """One button per telling shape, in a row, under their label."""
    with recording.paused():  # the buttons' label: a follower, who has no buttons, skips it
        st.caption("Presets")
    for place, (label, (d, h)) in zip(st.columns(3), SHAPES.items(), strict=True):
        preset_button(place, label, D=d, H=h)


# The exercise, non-square on purpose: D = 2, H = 3, in the lesson's W @ x convention.
EXERCISE = {
    "x": [1.0, -2.0],
    "W1": [1.0, 0.0, -1.0, 1.0, 2.0, 1.0],  # H x D = 3 x 2, row-major
    "b1": [0.0, 1.0, -1.0],
    "W2": [1.0, 2.0, -1.0, 0.0, 1.0, 3.0],  # D x H = 2 x 3, row-major
    "b2": [0.0, -1.0],
}


def small_case(D: int, H: int) -> dict[str, list[float]]:
    """Small whole numbers for x (D), W1 (H·D, row-major), W2 (D·H) and zero biases,
    seeded by the shape so a link shows the same case."""
    rng = np.random.default_rng(D * 10 + H)
    return {
        "x": rng.integers(-3, 4, D).astype(float).tolist(),
        "W1": rng.integers(-2, 3, H * D).astype(float).tolist(),
        "b1": [0.0] * H,
        "W2": rng.integers(-2, 3, D * H).astype(float).tolist(),
        "b2": [0.0] * D,
    }


def stride_question(D: int, H: int, same: bool) -> Question:
    """Will reading W2 with W1's stride D give the same answer, at these shapes? `same`:
    whether it does (worked out by running it)."""
    return Question(
        f"With D = {D} and H = {H}, will the one-stride version (W2 read with W1's stride D; a "
        "stride is how far apart two rows start in the flat list) "
        "give the same answer as the correct strides?",
        "guess_stride",
        (SAME, DIFFERENT),
        answer=SAME if same else DIFFERENT,
        why="when H = D the two strides are the same number, so every square test passes (and "
        "with D = 1, W2 has one row, which starts at 0 either way); with "
        "H > D the mistake reads the wrong numbers silently, and with H < D it runs off the end.",
    )


def with_w1_transposed(case: dict, D: int, H: int) -> tuple:
    """The case in the x @ W convention, run right and with W1 passed transposed: (the
    right output (D,), the transposed one's or None, the core's refusal or "")."""
    x = np.array(case["x"])  # (D,)
    W1 = np.array(case["W1"]).reshape(H, D).T  # (D, H): x @ W convention
    W2 = np.array(case["W2"]).reshape(D, H).T  # (H, D)
    good, _ = ffn_forward(x, W1, np.zeros(H), W2, np.zeros(D))
    transposed, refusal = outcome(
        lambda: ffn_forward(x, W1.T, np.zeros(H), W2, np.zeros(D))[0].tolist()
    )
    return good, transposed, refusal


def outcome(fn, *args) -> tuple[list[float] | None, str]:
    """Run a possibly buggy version; a crash is an outcome too."""
    try:
        return fn(*args), ""
    except (IndexError, ValueError) as err:
        return None, f"{type(err).__name__}: {err}"


def grade_exercise(typed: str) -> bool:
    """Say whether the y the learner typed is right, and if not, which mistake gives it;
    True once an answer could be read, when the page may show the reference."""
    if not typed.strip():
        return False
    expected = ffn_forward_flat(**EXERCISE)
    try:
        mine = parse_row(typed, 2)
    except ValueError as err:
        st.warning(f"Could not read that as y: {err}.")
        return False
    if np.allclose(mine, expected):
        st.success(f"Right: y = {expected}.")
    elif np.allclose(mine, ffn_forward_flat_one_stride(**EXERCISE)):
        st.error(
            "Not this time: that is what one stride for both matrices gives. Row i of "
            "W2 starts at i·H = 3i, not at i·D."
        )
    elif np.allclose(mine, ffn_forward_flat_relu_after_w2(**EXERCISE)):
        st.error(
            "Not this time: that is y with a ReLU after W2 too. The output stays "
            "signed: the nonlinearity goes between the linears only."
        )
    else:
        st.error(
            "Not this time. Score each of the 3 neurons first (row j of W1 against x, "
            "plus b1), pass them through ReLU, then take each row of W2 against them and add b2."
        )
    return True

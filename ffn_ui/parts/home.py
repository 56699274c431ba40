"""Home's plane: the lesson's smallest FFN, its token and its two keys moved by hand.

The token is x = (x₁, x₂); each neuron's key is a column of W1 at an angle, of the lesson's
length √2, so that the lesson's keys [1, 1] and [1, −1] are 45° and −45°. A drag on the
plane (ffn_ui/controls/drag.py) and the sliders write the same session values.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.init import lesson_example

DRAG = "home_drag"  # the drag component's key: its last `moved`
LIMIT = 3.0  # the plane shows x₁, x₂ in [−3, 3]
STEP = 0.25  # a token's coordinates move in quarters, by drag or slider
ANGLE_STEP = 15  # a key turns in steps of 15°
ANGLES = (45, -45)  # the lesson's keys [1, 1] and [1, −1]
# The token starts clear of both keys' tips and labels, where one neuron fires (scores −1
# and 1); the lesson's own x = [1, −1] would sit on key 2's tip.
TOKEN = (0.0, -1.0)
ASKED = (-2.0, -2.0)  # the point Home's question asks about


def lesson_weights(angles: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The lesson's weights with each key turned to its angle (degrees): W1 (2, 2), one key
    a column, length √2; b1 = 0, W2 = I, b2 = 0, so each neuron writes its own output."""
    _, weights = lesson_example()
    radians = np.radians(np.asarray(angles, dtype=float))
    keys = np.sqrt(2.0) * np.stack([np.cos(radians), np.sin(radians)])  # (2, K)
    return {**weights, "W1": np.round(keys, 12) + 0.0}  # 45° gives exactly [1, 1]; no −0


def snapped(value: object, step: float, limit: float) -> float | None:
    """A number from the browser on the sliders' grid and within their range; None for
    anything else (a visitor's client may send any JSON)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not np.isfinite(value):
        return None
    return float(np.clip(round(value / step) * step, -limit, limit))


def moved() -> None:
    """A drag ended (or paused): the token or a key goes where it was dropped, through the
    same session values the sliders hold. Anything else the component sends is ignored."""
    moved_to = st.session_state[DRAG]["moved"]
    if not isinstance(moved_to, dict):
        return
    token = moved_to.get("token")
    if isinstance(token, list) and len(token) == 2:
        x1, x2 = (snapped(v, STEP, LIMIT) for v in token)
        if x1 is not None and x2 is not None:
            st.session_state.update(x1=x1, x2=x2)
    elif type(moved_to.get("key")) is int and moved_to["key"] in (0, 1):
        angle = snapped(moved_to.get("angle"), ANGLE_STEP, 180)
        if angle is not None:
            st.session_state[f"k{moved_to['key'] + 1}"] = int(angle)

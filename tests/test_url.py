"""Every URL-bound control: a malformed or out-of-range value gets a visible note and the
default, never an exception."""

from __future__ import annotations

import pytest
from helpers import (
    ACTIVATIONS,
    ANSWERS,
    BACKPROP,
    COLLAPSE,
    KEY_VALUE,
    MOE,
    NEURONS,
    POSITION_WISE,
    SCALE,
    TRAPS,
    link_noted,
    open_page,
    warnings_text,
)

BAD_VALUES = [
    # (page, key, bad value)
    (None, "x1", "abc"),
    (None, "x2", "7"),
    (NEURONS, "presenter", "maybe"),
    (NEURONS, "d_model", "abc"),
    (NEURONS, "d_model", "0"),
    (NEURONS, "d_model", "2000"),
    (NEURONS, "d_ff", "5000"),
    (NEURONS, "d_ff", "1.5"),
    (NEURONS, "act", "tanh"),
    (NEURONS, "seed", "-1"),
    (NEURONS, "init", "magic"),
    (NEURONS, "tokens", "words"),
    (NEURONS, "T", "65"),  # open_page adds tokens=random, where T applies
    (NEURONS, "view", "both"),
    (NEURONS, "thr", "5"),
    (NEURONS, "mask", "perhaps"),
    (NEURONS, "sort", "1"),
    (NEURONS, "tok", "99: zz"),
    (NEURONS, "neuron", "n999"),
    (KEY_VALUE, "off", "n999"),
    (KEY_VALUE, "scale", "nan"),
    (KEY_VALUE, "scale", "10"),
    (ACTIVATIONS, "curves", "tanh"),
    (ACTIVATIONS, "range", "0"),
    (ACTIVATIONS, "deriv", "yes"),
    (COLLAPSE, "L", "13"),
    (COLLAPSE, "task", "moons"),
    (COLLAPSE, "bigger", "2"),
    (COLLAPSE, "guess", "maybe"),
    (POSITION_WISE, "ptok", "9: x"),
    (POSITION_WISE, "coord", "99"),
    (POSITION_WISE, "nudge", "abc"),
    (POSITION_WISE, "perm", "-3"),
    (BACKPROP, "B", "9"),
    (BACKPROP, "loss", "L1"),
    (BACKPROP, "eps", "1e-20"),
    (BACKPROP, "f32", "maybe"),
    (BACKPROP, "kink", "2"),
    (BACKPROP, "nudge_w", "5"),
    (TRAPS, "D", "0"),
    (TRAPS, "H", "99"),
    (TRAPS, "guess_stride", "sure"),
    (TRAPS, "guess_t", "sure"),
    (TRAPS, "guess_clamp", "sure"),
    (SCALE, "layers", "200"),
    (SCALE, "cost_model", "GPT-5"),
    (SCALE, "seq_T", "3"),
    (MOE, "E", "1"),
    (MOE, "k", "0"),
    (MOE, "rbias", "inf"),
]

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.mark.parametrize(("page", "key", "raw"), BAD_VALUES)
def test_a_bad_link_value_gets_a_note_and_the_default(page, key, raw):
    answered = {k: v for k, v in ANSWERS.get(page, {}).items() if k != key}
    at = open_page(page, {**answered, key: raw, **({"tokens": "random"} if key == "T" else {})})
    assert not at.exception
    assert link_noted(warnings_text(at), key, raw)
    assert at.get("plotly_chart") or page == TRAPS  # Traps draws after a guess


@pytest.mark.parametrize(("key", "default"), [("d_model", 4), ("d_ff", 16), ("T", 6), ("seed", 0)])
def test_bad_numbers_fall_back_to_the_default(key, default):
    at = open_page(NEURONS, {key: "-5", "tokens": "random"})
    assert at.sidebar.number_input(key=key).value == default


def test_good_values_get_no_note():
    query = {
        "d_model": "8",
        "d_ff": "32",
        "act": "GELU",
        "seed": "3",
        "init": "Xavier",
        "tokens": "random",
        "T": "9",
        "view": "pre-activation",
        "thr": "0.2",
    }
    at = open_page(NEURONS, query)
    assert not at.exception
    assert warnings_text(at) == ""
    assert at.sidebar.number_input(key="d_model").value == 8
    assert at.sidebar.selectbox(key="act").value == "GELU"

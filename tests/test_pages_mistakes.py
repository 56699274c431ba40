"""The Backprop & gradient check page and the Traps page in AppTest."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    ANSWERS,
    BACKPROP,
    TRAPS,
    decode,
    expected_default_model,
    open_page,
    relu,
    traces,
    warnings_text,
)

from ffn_core import ffn_forward_flat

pytestmark = pytest.mark.usefixtures("fresh_caches")


def check_table(at) -> dict[str, float]:
    (frame,) = [d.value for d in at.dataframe if "max relative error" in d.value.columns]
    return frame["max relative error"].to_dict()


def backprop(query: dict | None = None):
    """The Backprop page with its questions answered, so that everything is drawn."""
    return open_page(BACKPROP, {**ANSWERS[BACKPROP], **(query or {})})


def test_gradient_check_table_passes_in_float64_and_fails_in_float32():
    errors = check_table(backprop())
    assert list(errors) == ["W1", "b1", "W2", "b2", "x"]
    assert max(errors.values()) < 1e-6
    errors32 = check_table(backprop({"f32": "true"}))
    assert max(errors32.values()) > 1e-4


def test_the_lesson_shapes_preset_and_the_kink():
    at = backprop()
    (preset,) = [b for b in at.button if b.label.startswith("Preset: the lesson")]
    preset.click().run()
    assert not at.exception
    assert at.session_state["d_model"] == 8 and at.session_state["d_ff"] == 32
    assert max(check_table(at).values()) < 1e-6
    kinked = check_table(backprop({"kink": "true"}))
    assert max(kinked["W1"], kinked["b1"]) > 1e-4  # the nudge straddles the kink


def test_eps_sweep_is_u_shaped():
    at = backprop({"act": "GELU"})
    sweep = decode(traces(at, -1)[0]["y"])  # eps from 1e-12 up to 1e-1
    best = int(np.argmin(sweep))
    assert 0 < best < len(sweep) - 1
    assert sweep[0] > 10 * sweep[best] and sweep[-1] > 10 * sweep[best]


def test_gradient_heatmaps_match_the_core_and_the_mask():
    at = backprop()
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    G = np.random.default_rng(0).standard_normal((1, 6, 4))[0]
    mask = decode(traces(at, 1)[0]["z"])  # the gate heatmap, second of the first four
    np.testing.assert_array_equal(mask, (h_pre > 0).astype(float))
    dW2 = decode(traces(at, 4)[0]["z"])  # the first in the expander
    np.testing.assert_allclose(dW2, relu(h_pre).T @ G, rtol=1e-5, atol=1e-5)


def test_a_silent_neuron_passes_no_gradient():
    at = backprop({"nudge_w": "-1.0"})
    text = " ".join(m.value for m in at.markdown)
    assert "dW1 column for" in text and "largest entry **0**" in text
    assert "differs from the loss at s = 0 by **0**" in text


def test_typed_dout_is_checked():
    at = open_page(BACKPROP, {"loss": "typed in", "dout": "1 2 x"})
    assert "Could not use that row" in warnings_text(at)
    at = open_page(BACKPROP, {"loss": "typed in", "dout": "0 0 0 1"})
    assert not at.warning


def test_too_large_for_brute_force_says_so():
    at = backprop({"d_model": "64", "d_ff": "256"})
    assert "check runs one entry at a time up to 2,000 entries" in warnings_text(at)


# --- Traps ------------------------------------------------------------------------------

BOTH = {"guess_stride": "the same answer", "guess_t": "the same answer"}


def shown_results(at) -> list[str]:
    return [c.value for c in at.code if not c.value.startswith('"""')]


def test_one_stride_agrees_on_square_shapes_only():
    square = shown_results(open_page(TRAPS, {**BOTH, "D": "4", "H": "4"}))
    assert square[0] == square[1]
    wide = shown_results(open_page(TRAPS, {**BOTH, "D": "3", "H": "6"}))
    assert wide[0] != wide[1] and not wide[1].startswith("IndexError")
    narrow = shown_results(open_page(TRAPS, {**BOTH, "D": "6", "H": "3"}))
    assert narrow[1] == "IndexError: list index out of range"


def test_transposed_weights_are_refused_unless_square():
    refused = shown_results(open_page(TRAPS, {**BOTH, "D": "3", "H": "5"}))
    assert refused[2].startswith("ValueError: x has shape (3,)")
    at = open_page(TRAPS, {**BOTH, "D": "3", "H": "3"})
    assert any("runs silently" in m.value for m in at.markdown)


def test_guesses_are_checked():
    at = open_page(TRAPS, {"D": "3", "H": "3", "guess_stride": "the same answer"})
    assert any(s.value.startswith("Right") for s in at.success)
    at = open_page(TRAPS, {"D": "3", "H": "5", "guess_stride": "the same answer"})
    assert any(e.value.startswith("Not this time") for e in at.error)


def test_the_clamp_blocks_every_negative_update():
    at = open_page(TRAPS, {"guess_clamp": "no"})
    x, w = expected_default_model()
    out = relu(x @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
    (blocked,) = [m.value for m in at.metric if m.label.startswith("residual updates")]
    assert blocked == f"{int(np.sum(out < 0))} of {out.size}"
    clamped = decode(traces(at, 1)[0]["z"])
    assert clamped.min() >= 0
    np.testing.assert_allclose(decode(traces(at, 0)[0]["z"]), out, rtol=1e-5, atol=1e-6)


def test_the_reference_code_shown_runs_and_matches_the_core():
    at = open_page(TRAPS)
    (source,) = [c.value for c in at.code if c.value.startswith('"""')]
    namespace: dict = {}
    exec(compile(source, "shown_reference", "exec"), namespace)  # the learner's copy
    rng = np.random.default_rng(5)
    for D, H in ((2, 2), (3, 7), (6, 4)):
        args = [rng.standard_normal(n).tolist() for n in (D, H * D, H, D * H, D)]
        assert namespace["ffn_forward_flat"](*args) == ffn_forward_flat(*args)
    assert namespace["ffn_forward_flat"]([1, -1], [1, 1, 1, -1], [0, 0], [1, 0, 0, 1], [0, 0]) == [
        0.0,
        2.0,
    ]


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("1, -1", "Right: y = [1.0, -1.0]."),
        ("1 -2", "that is what one stride for both matrices gives"),
        ("1, 0", "that is y with a ReLU after W2 too"),
        ("3, 3", "Score each of the 3 neurons first"),
        ("1", "Could not read that as y: expected 2 numbers, found 1"),
    ],
)
def test_the_exercise_checks_a_typed_answer_and_names_the_mistake(typed, says):
    at = open_page(TRAPS, {"ex_y": typed})
    assert not at.exception
    assert says in warnings_text(at) + " ".join(s.value for s in at.success)


def test_the_exercise_is_not_square_and_its_answer_is_the_references():
    from ffn_core.reference import ffn_forward_flat as reference

    at = open_page(TRAPS)
    (given,) = [c.value for c in at.code if c.value.startswith("x = ")]
    namespace: dict = {}
    exec(given, namespace)  # the numbers exactly as the learner reads them
    D, H = len(namespace["x"]), len(namespace["b1"])
    assert (D, H) == (2, 3) and len(namespace["W1"]) == H * D and len(namespace["W2"]) == D * H
    assert reference(*(namespace[k] for k in ("x", "W1", "b1", "W2", "b2"))) == [1.0, -1.0]
    assert not at.success and not at.error  # nothing is judged before an answer is typed


def test_the_reference_source_waits_in_an_expander():
    at = open_page(TRAPS)
    (expander,) = [e for e in at.expander if e.label.startswith("The reference")]
    assert any(c.value.startswith('"""') for c in expander.code)


def test_the_precision_question_comes_before_the_check_and_says_why():
    at = open_page(BACKPROP)
    assert not [d for d in at.dataframe if "max relative error" in d.value.columns]
    at.radio(key="guess_precision").set_value("about 10⁻⁷ in both").run()
    assert "float32 keeps about 7, so the same nudge is lost" in at.error[0].value
    assert check_table(at)  # the check that settles it, drawn after the guess
    heading = [h.value for h in at.subheader if h.value.startswith("4.")]
    assert heading == ["4. Gradient check against centred differences"]  # not "float64" only


def test_rows_read_as_sequence_and_position_and_every_gradient_has_its_shape():
    at = backprop({"tokens": "random", "T": "5", "B": "2"})
    rows = traces(at, 0)[0]["y"]  # dh: one row per position
    assert rows[:6] == ["seq 1, pos 1", "seq 1, pos 2", "seq 1, pos 3", "seq 1, pos 4",
                        "seq 1, pos 5", "seq 2, pos 1"]  # fmt: skip
    (shapes,) = [d.value for d in at.dataframe if "gradient shape" in d.value.columns]
    for name, want in (("x", "(2, 5, 4)"), ("W1", "(4, 16)"), ("b1", "(16,)"), ("W2", "(16, 4)")):
        assert shapes.loc[name, "shape"] == shapes.loc[name, "gradient shape"] == want
    assert shapes.loc["h", "shape"] == "(2, 5, 16)" and shapes.loc["out", "shape"] == "(2, 5, 4)"
    assert shapes.loc["h", "its gradient"] == "dh" and shapes.loc["out", "its gradient"] == "dout"
    assert shapes.loc["h", "gradient shape"] == "(2, 5, 16)"
    assert shapes.loc["out", "gradient shape"] == "(2, 5, 4)"


def test_epsilon_grows_to_the_right_and_both_write_it_as_a_power_of_ten():
    at = backprop()
    slider = at.select_slider(key="eps")
    assert slider.value == 1e-6 and slider.format_func(1e-6) == "10⁻⁶"
    assert (slider.options[0], slider.options[-1]) == ("10⁻¹²", "10⁻¹")  # smaller to the left
    spec = json.loads(at.get("plotly_chart")[8].proto.spec)
    assert spec["layout"]["xaxis"]["exponentformat"] == "power"
    assert decode(spec["data"][0]["x"])[0] < decode(spec["data"][0]["x"])[-1]


def test_the_relu_exercise_asks_about_dw1_then_shows_the_flat_loss_and_the_kink():
    at = open_page(BACKPROP, {"guess_precision": ANSWERS[BACKPROP]["guess_precision"]})
    assert at.radio(key="guess_dw1").value == "not sure yet"
    at.radio(key="guess_dw1").set_value("small, but not zero").run()
    assert at.error[-1].value.startswith("Not this time: the answer is exactly zero.")
    slider = at.slider(key="nudge_w")
    assert slider.min < 0 < slider.max  # both ways past the margin
    curve = traces(at, -1)[0]
    s, loss = decode(curve["x"]).astype(float), decode(curve["y"]).astype(float)
    kink = json.loads(at.get("plotly_chart")[-1].proto.spec)["layout"]["shapes"][0]["x0"]
    flat = s < kink - 1e-3
    assert np.ptp(loss[flat]) < 1e-5 and np.ptp(loss[~flat]) > 1e-3  # flat, then it moves

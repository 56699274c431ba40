"""The Activations page in AppTest: the curves, the GELU gap, SwiGLU's slices and width, and
dead neurons, against the core."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import (
    ACTIVATIONS,
    decode,
    expected_default_model,
    metric,
    open_page,
    traces,
)

from ffn_core.activations import ACTIVATIONS as CORE
from ffn_core.init import init_weights
from ffn_core.lessons.costs import swiglu_d_ff

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_curves_follow_the_chosen_set_and_the_derivative_toggle():
    at = open_page(ACTIVATIONS, {"curves": ["ReLU", "GELU-tanh"], "range": "2"})
    lines = traces(at, 0)
    assert [t["name"] for t in lines] == ["ReLU", "GELU-tanh"]
    z = decode(lines[0]["x"])
    assert z.min() == -2 and z.max() == 2
    np.testing.assert_allclose(decode(lines[0]["y"]), np.maximum(z, 0), atol=1e-7)
    at = open_page(ACTIVATIONS, {"curves": "ReLU", "deriv": "true"})
    assert set(np.unique(decode(traces(at, 0)[0]["y"]))) == {0.0, 1.0}


def test_the_gelu_gap_shown_matches_math_erf():
    at = open_page(ACTIVATIONS, {"range": "3"})
    z = np.linspace(-3, 3, 20001)
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in z])
    approx = 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
    assert float(metric(at, "largest gap")) == pytest.approx(np.abs(exact - approx).max(), 1e-2)


@pytest.mark.parametrize("d_model", [4, 768])
def test_the_swiglu_width_shown_is_the_cores(d_model):
    at = open_page(ACTIVATIONS, {"d_model": str(d_model), "d_ff": "16"})
    table = at.dataframe[1].value
    assert table["d_ff"].tolist() == [4 * d_model, swiglu_d_ff(d_model)]
    assert table["weights"].iloc[1] == 3 * d_model * swiglu_d_ff(d_model)


def test_same_weights_table_counts_relu_zeros_and_gelu_negatives():
    at = open_page(ACTIVATIONS, {"guess_dead": "yes, fewer"})
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    stats = at.dataframe[2].value
    assert stats.loc["ReLU", "exactly 0"] == pytest.approx(np.mean(h_pre <= 0))
    assert stats.loc["GELU", "exactly 0"] == 0
    assert stats.loc["GELU", "negative (h < 0)"] == pytest.approx(np.mean(h_pre < 0))
    assert "active per token" not in stats.columns  # it counted h > 0, the same for all


@pytest.mark.parametrize("d_ff", ["16", "64"])
def test_dead_means_no_slope_on_any_token_so_relu_has_them_and_gelu_not(d_ff):
    query = {"d_ff": d_ff, "tokens": "random", "T": "2", "seed": "3"}
    at = open_page(ACTIVATIONS, {**query, "guess_dead": "no, the same"})
    x = np.random.default_rng([3, 1]).standard_normal((2, 4))
    w = init_weights(4, int(d_ff), "normal", 3)
    relu_dead = int(np.sum(np.all(x @ w["W1"] + w["b1"] <= 0, axis=0)))  # zero slope everywhere
    stats = at.dataframe[2].value
    assert stats.loc["ReLU", "dead neurons"] == relu_dead
    assert stats.loc["GELU", "dead neurons"] == stats.loc["SiLU", "dead neurons"] == 0
    assert stats.loc["none", "dead neurons"] == 0
    verdict = (at.success or at.error)[0].value
    assert verdict.startswith("Right" if relu_dead == 0 else "Not this time")
    assert f"ReLU has {relu_dead} of {d_ff} neurons" in verdict


def test_with_no_dead_neuron_the_dead_neuron_answer_says_none_and_how_to_get_some():
    at = open_page(ACTIVATIONS, {"guess_dead": "yes, fewer"})  # six tokens, d_ff 16
    x, w = expected_default_model()
    assert not np.any(np.all(x @ w["W1"] + w["b1"] <= 0, axis=0))  # no neuron is dead here
    (verdict,) = at.error
    assert verdict.value.startswith("Not this time: the answer is no, the same.")
    assert "even ReLU has none dead here" in verdict.value


def test_the_dead_neuron_question_hides_the_table_until_answered():
    at = open_page(ACTIVATIONS)
    assert at.radio(key="guess_dead").value == "not sure yet"
    assert len(at.dataframe) == 2  # the facts and the SwiGLU widths; the counts wait for a guess


def test_gelu_tanh_is_dashed_and_the_inset_shows_its_gap_to_gelu():
    at = open_page(ACTIVATIONS, {"range": "3"})
    lines = {t["name"]: t for t in traces(at, 0)}
    assert lines["GELU-tanh"]["line"]["dash"] == "dash"
    inset = lines["GELU − GELU-tanh (inset)"]
    assert inset["xaxis"] == "x2" and inset["yaxis"] == "y2"
    z = decode(inset["x"])
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in z])
    approx = 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
    np.testing.assert_allclose(decode(inset["y"]), exact - approx, atol=1e-6)  # z is float32


def test_swiglu_slices_are_curves_and_lines_on_the_surface():
    at = open_page(ACTIVATIONS, {"curves": ["SwiGLU, gate = up = z", "SwiGLU, up = 1"]})
    diagonal, up_one = traces(at, 0)[:2]
    z = decode(diagonal["x"]).astype(float)
    silu = z / (1 + np.exp(-z))
    np.testing.assert_allclose(decode(diagonal["y"]), silu * z, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(decode(up_one["y"]), silu, rtol=1e-5, atol=1e-6)
    surface = traces(at, 1)
    names = [t.get("name") for t in surface]
    assert "gate = up = z" in names and "up = 1" in names
    text = " ".join(m.value for m in at.markdown)
    assert "takes its sign from u" in text


def test_zoom_preset_narrows_the_range():
    at = open_page(ACTIVATIONS)
    (zoom,) = [b for b in at.button if b.label == "Zoom near 0"]
    zoom.click().run()
    assert decode(traces(at, 0)[0]["x"]).max() == pytest.approx(1.5)


def test_the_dead_neuron_preset_makes_a_batch_where_gelu_leaves_fewer():
    at = open_page(ACTIVATIONS)
    (preset,) = [b for b in at.button if b.label.startswith("One token, d_ff = 64")]
    preset.click().run()
    at.radio(key="guess_dead").set_value("yes, fewer").run()
    stats = at.dataframe[2].value
    assert stats.loc["ReLU", "dead neurons"] > 10 and stats.loc["GELU", "dead neurons"] == 0
    assert at.success[0].value.startswith("Right:")


def test_a_button_that_changes_every_pages_model_says_so_and_offers_the_way_back():
    at = open_page(ACTIVATIONS)
    before = {key: at.session_state[key] for key in ("tokens", "T", "d_ff")}
    (preset,) = [b for b in at.button if b.label.startswith("One token, d_ff = 64")]
    assert preset.label.endswith("(changes the sidebar's model on every page)")
    preset.click().run()
    assert (at.session_state["T"], at.session_state["d_ff"]) == (1, 64)
    (back,) = [b for b in at.button if b.label.startswith("Back to your model")]
    assert back.label == (
        f"Back to your model (tokens = {before['tokens']}, T = {before['T']}, "
        f"d_ff = {before['d_ff']})"
    )
    back.click().run()
    assert not at.exception
    assert {key: at.session_state[key] for key in before} == before
    assert not [b for b in at.button if b.label.startswith("Back to your model")]


def test_swiglus_preset_notices_only_what_it_draws_and_dots_the_slice_on_silu():
    at = open_page(ACTIVATIONS)
    (preset,) = [b for b in at.button if b.label == "SwiGLU's slices"]
    preset.click().run()
    notice = " ".join(c.value for c in at.caption if c.value.startswith("Notice: ReLU"))
    assert "GELU-tanh (dashed) lies on GELU" not in notice
    assert "its line (dotted) lies exactly on SiLU's" in notice
    assert not [m for m in at.metric if "tanh approximation" in m.label]
    lines = {t["name"]: t for t in traces(at, 0)}
    assert "GELU" not in lines and "GELU − GELU-tanh (inset)" not in lines
    assert lines["SwiGLU, up = 1"]["line"]["dash"] == "dot"
    z = decode(lines["SiLU"]["x"]).astype(float)
    np.testing.assert_allclose(
        decode(lines["SwiGLU, up = 1"]["y"]), z / (1 + np.exp(-z)), atol=1e-6
    )
    np.testing.assert_array_equal(decode(lines["SwiGLU, up = 1"]["y"]), decode(lines["SiLU"]["y"]))


def test_the_intro_says_where_gelus_slope_reaches_zero_and_how_negative_it_gets():
    """GELU(z) = z Φ(z), so GELU'(z) = Φ(z) + z φ(z): 1/2 at 0, zero where GELU is lowest
    (found here by bisection, with the math module), and least where its own slope,
    φ(z)(2 − z²), is zero: z = −√2. The intro gives these numbers, read off the core."""
    import re

    def phi(z):
        return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)

    def slope(z):
        return 0.5 * math.erfc(-z / math.sqrt(2)) + z * phi(z)

    low, high = -1.0, -0.5  # slope(−1) < 0 < slope(−0.5)
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if slope(mid) < 0 else (low, mid)
    flat = low
    steepest_at = -math.sqrt(2)
    at = open_page(ACTIVATIONS)
    intro = " ".join(m.value for m in at.markdown)
    said = re.search(
        r"never below about (\S+), at z ≈ (\S+)\)\..*slope is (\S+) at z = 0; it falls to 0 at "
        r"z ≈ (\S+), where GELU is lowest, then turns negative, lowest about (\S+) near "
        r"z ≈ (\S+), and fades back to 0",
        intro,
    )
    assert said, intro
    lowest, lowest_at, at_0, zero_at, steepest, steepest_z = (
        float(v.replace("−", "-").rstrip(",")) for v in said.groups()
    )
    assert lowest == pytest.approx(flat * 0.5 * math.erfc(-flat / math.sqrt(2)), abs=5e-3)
    assert lowest_at == zero_at == pytest.approx(flat, abs=5e-3)
    assert at_0 == 0.5
    assert steepest == pytest.approx(slope(steepest_at), abs=5e-4)
    assert steepest_z == pytest.approx(steepest_at, abs=5e-3)
    assert "fading further down" not in intro  # the slope does not just fade: it turns


def test_the_dead_neuron_answer_names_the_button_it_points_to():
    """The verdict stands under the question, and the button above it: a direction would
    be wrong on one page or the other, so the verdict names it."""
    at = open_page(ACTIVATIONS)
    at.radio(key="guess_dead").set_value("yes, fewer").run()
    (verdict,) = at.error
    assert "button below" not in verdict.value and "button above" not in verdict.value
    assert "the button “One token, d_ff = 64”" in verdict.value
    assert [b for b in at.button if b.label.startswith("One token, d_ff = 64")]


def test_one_token_is_asked_about_as_one_token():
    at = open_page(ACTIVATIONS, {"tokens": "random", "T": "1"})
    assert at.radio(key="guess_dead").label.startswith("Predict: on this 1 token, does GELU")


def test_the_facts_table_has_every_activation_as_the_core_keeps_it():
    """One row per activation, read from its record: Squared ReLU max(0, z)² with slope
    2 · max(0, z) among them; the curves offer it too."""
    at = open_page(ACTIVATIONS)
    facts = at.dataframe[0].value
    assert list(facts.index) == [a.label for a in CORE.values()]
    assert facts.loc["Squared ReLU", "act(z)"] == "max(0, z)²"
    assert facts.loc["Squared ReLU", "slope act′(z)"] == "2 · max(0, z)"
    assert "Squared ReLU" in at.button_group(key="curves").options


def test_squared_relu_counts_as_many_dead_neurons_as_relu():
    """Both are exactly 0, with slope 0, at and below 0: the same neurons are dead."""
    at = open_page(ACTIVATIONS, {"tokens": "random", "T": "1", "d_ff": "64"})
    at.radio(key="guess_dead").set_value("yes, fewer").run()
    stats = at.dataframe[2].value
    assert stats.loc["Squared ReLU", "dead neurons"] == stats.loc["ReLU", "dead neurons"] > 0
    text = " ".join(m.value for m in at.markdown)
    assert "ReLU and Squared ReLU is zero at every score of 0 or below" in text

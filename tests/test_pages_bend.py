"""The Activations, Collapse and Position-wise pages in AppTest."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import (
    ACTIVATIONS,
    ANSWERS,
    COLLAPSE,
    POSITION_WISE,
    decode,
    expected_default_model,
    metric,
    open_page,
    traces,
    warnings_text,
)

from ffn_core.costs import swiglu_d_ff
from ffn_core.init import init_weights

pytestmark = pytest.mark.usefixtures("fresh_caches")


# --- Activations ------------------------------------------------------------------------


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
    table = at.dataframe[0].value
    assert table["d_ff"].tolist() == [4 * d_model, swiglu_d_ff(d_model)]
    assert table["weights"].iloc[1] == 3 * d_model * swiglu_d_ff(d_model)


def test_same_weights_table_counts_relu_zeros_and_gelu_negatives():
    at = open_page(ACTIVATIONS, {"guess_dead": "yes, fewer"})
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    stats = at.dataframe[1].value
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
    stats = at.dataframe[1].value
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
    assert len(at.dataframe) == 1  # only the SwiGLU widths; the counts wait for a guess


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


# --- Collapse ---------------------------------------------------------------------------


@pytest.mark.parametrize("query", [{}, {"d_model": "7", "d_ff": "3"}, {"init": "Xavier"}])
def test_collapse_difference_is_round_off(query):
    at = open_page(COLLAPSE, query)
    assert float(metric(at, "max |FFN(x)")) < 1e-9
    rank, d_model = metric(at, "rank").split(" of ")
    assert int(rank) <= min(int(d_model), int(query.get("d_ff", 16)))


def test_the_stack_is_one_matrix_at_every_depth():
    for L in ("1", "6", "12"):
        at = open_page(COLLAPSE, {"L": L})
        (gap,) = [m.value for m in at.metric if "blocks of" in m.label]
        assert float(gap) < 1e-9
        assert len(decode(traces(at, 3)[0]["y"])) == 4  # one singular value per coordinate


def test_training_waits_for_a_prediction_then_checks_it():
    at = open_page(COLLAPSE)
    assert "Make your guess above to see the answer." in warnings_text(at)
    assert len(at.get("plotly_chart")) == 4
    at = open_page(COLLAPSE, {"guess": "yes"})
    assert any("Not this time" in e.value for e in at.error)
    at = open_page(COLLAPSE, {"guess": "no"})
    assert any("Right" in s.value for s in at.success)


def accuracy(at, chart: int) -> float:
    title = json.loads(at.get("plotly_chart")[chart].proto.spec)["layout"]["title"]["text"]
    return float(title.split("accuracy ")[1].rstrip("%")) / 100


def test_linear_cannot_fit_xor_but_relu_can():
    at = open_page(COLLAPSE, {"guess": "no", "task": "XOR"})
    assert accuracy(at, 4) <= 0.75  # no activation
    assert accuracy(at, 5) >= 0.95  # ReLU


def test_a_line_is_linear_and_the_answer_key_says_so():
    at = open_page(COLLAPSE, {"guess": "yes", "task": "line"})
    (right,) = at.success
    assert right.value.startswith("Right: with no bend the network is one matrix")
    assert "reaches R² 1.00 on line" in right.value


def test_collapse_says_what_it_takes_away_and_where_the_stack_comes_from():
    at = open_page(COLLAPSE)
    intro = at.markdown[0].value
    assert "Sections 1 and 2 take the activation away, whatever the sidebar says" in intro
    text = " ".join(m.value for m in [*at.markdown, *at.caption])
    assert "Fresh random blocks, not the sidebar's weights" in text
    assert "only spread apart" not in text and "tend to spread apart" in text


# --- Position-wise ----------------------------------------------------------------------


@pytest.mark.parametrize("token", ["1: the", "3: sat", "6: mat"])
def test_nudging_a_token_changes_only_its_row(token):
    query = {"ptok": token, "nudge": "-2.5", "coord": "2", **ANSWERS[POSITION_WISE]}
    at = open_page(POSITION_WISE, query)
    change = decode(traces(at, 0)[0]["z"])
    t = int(token.split(":")[0]) - 1
    assert np.all(np.delete(change, t, axis=0) == 0)
    assert np.any(change[t] != 0)
    assert metric(at, "largest change in the other") == "0"


def test_shuffling_tokens_shuffles_outputs():
    at = open_page(POSITION_WISE, {"perm": "7"})
    assert metric(at, "max |FFN(shuffled") == "0"


def test_the_shuffle_box_says_what_it_is_and_the_order_it_gives():
    at = open_page(POSITION_WISE, {"perm": "7", **ANSWERS[POSITION_WISE]})
    box = at.number_input(key="perm")
    assert box.label == "which shuffle" and "random order" in box.help
    words = ["the", "cat", "sat", "on", "the", "mat"]
    order = np.random.default_rng(7).permutation(6)  # an independent draw of the same order
    listed = ", ".join(f"{i + 1}: {words[i]}" for i in order)
    assert f"New order: {listed}." in [c.value for c in at.caption]
    rows = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]["y"]
    assert rows == [f"{i + 1}: {words[i]}" for i in order]


def test_cost_plot_marks_the_crossover_at_d_ff():
    at = open_page(POSITION_WISE, {"d_ff": "40", **ANSWERS[POSITION_WISE]})
    spec = json.loads(at.get("plotly_chart")[2].proto.spec)
    (line,) = [s for s in spec["layout"]["shapes"] if s.get("x0") is not None]
    assert line["x0"] == 40
    names = [t["name"] for t in spec["data"]]
    assert names == ["FFN", "attention Q, K, V, O", "attention T² terms"]


def test_task_presets_ask_for_a_new_prediction():
    at = open_page(COLLAPSE, {"guess": "no"})
    (spiral,) = [b for b in at.button if b.label == "spiral"]
    spiral.click().run()
    assert at.selectbox(key="task").value == "spiral"
    assert at.radio(key="guess").value == "not sure yet"


def test_the_dead_neuron_preset_makes_a_batch_where_gelu_leaves_fewer():
    at = open_page(ACTIVATIONS)
    (preset,) = [b for b in at.button if b.label.startswith("A batch with dead ReLU")]
    preset.click().run()
    at.radio(key="guess_dead").set_value("yes, fewer").run()
    stats = at.dataframe[1].value
    assert stats.loc["ReLU", "dead neurons"] > 10 and stats.loc["GELU", "dead neurons"] == 0
    assert at.success[0].value.startswith("Right:")


def test_the_nudge_question_waits_then_the_change_map_settles_it():
    at = open_page(POSITION_WISE, {"ptok": "3: sat"})
    assert not [m for m in at.metric if m.label.startswith("largest change")]
    at.radio(key="guess_rows_moved").set_value("every row").run()
    assert at.error[0].value.startswith("Not this time: the answer is only its own row.")
    assert metric(at, "largest change in the other") == "0"
    text = at.markdown[0].value
    assert "a filter one position wide: the same weights at every position" in text
    flops = " ".join(c.value for c in at.caption)
    assert "a multiply-add counts as 2" in flops

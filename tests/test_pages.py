"""The Neurons and Key–value pages in AppTest: they run, follow their controls, and show
numbers that agree with the core computed independently."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    KEY_VALUE,
    NEURONS,
    click,
    decode,
    edit_table,
    expected_default_model,
    heatmap,
    open_page,
    relu,
    trace_y,
    traces,
    warnings_text,
)

from ffn_core.activations import gelu
from ffn_core.typed_numbers import encode_arrays

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_neurons_heatmap_shows_the_activation_of_every_token_and_neuron():
    at = open_page(NEURONS, {"mask": "false"})
    x, w = expected_default_model()
    z = decode(heatmap(at)["z"])
    assert z.shape == (6, 16)
    np.testing.assert_allclose(z, relu(x @ w["W1"] + w["b1"]), rtol=1e-6, atol=1e-6)
    assert heatmap(at)["zmid"] == 0  # diverging, centred on zero
    assert "%{z" in heatmap(at)["hovertemplate"]


def test_heatmap_follows_d_model_d_ff_T_activation_and_view():
    query = {"d_model": "3", "d_ff": "9", "tokens": "random", "T": "5", "act": "GELU"}
    at = open_page(NEURONS, {**query, "mask": "false", "view": "pre-activation"})
    w = expected_default_model(3, 9)[1]
    x = np.random.default_rng([0, 1]).standard_normal((5, 3))  # the UI's random tokens
    h_pre = x @ w["W1"] + w["b1"]
    np.testing.assert_allclose(decode(heatmap(at)["z"]), h_pre, rtol=1e-6, atol=1e-6)
    at = open_page(NEURONS, {**query, "mask": "false"})
    np.testing.assert_allclose(decode(heatmap(at)["z"]), gelu(h_pre), rtol=1e-6, atol=1e-6)


def test_mask_blanks_the_cells_that_did_not_fire():
    at = open_page(NEURONS)
    x, w = expected_default_model()
    z = decode(heatmap(at)["z"])
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    np.testing.assert_array_equal(~np.isnan(z), fired)


def test_a_wide_layer_keeps_its_most_active_neurons_under_the_size_cap():
    at = open_page(NEURONS, {"d_model": "64", "d_ff": "4096", "tokens": "random", "T": "64"})
    trace = heatmap(at)
    assert decode(trace["z"]).shape == (64, 256)
    assert trace["x"][-1] == "other 3841"
    assert "most active of 4096" in " ".join(c.value for c in at.caption)
    spec_bytes = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert spec_bytes < 1_000_000


def test_per_token_counts_and_firing_rates_agree_with_the_heatmap():
    at = open_page(NEURONS)
    x, w = expected_default_model()
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    np.testing.assert_array_equal(trace_y(at, 1, kind="bar"), fired.sum(axis=1))
    rates = trace_y(at, 2, kind="bar")
    np.testing.assert_allclose(np.sort(rates)[::-1], np.sort(fired.mean(axis=0))[::-1])
    assert at.metric[0].value == f"{np.mean(~fired):.0%}"


def test_threshold_counts_fewer_firing_neurons_for_smooth_activations():
    base = {"act": "SiLU", "mask": "false"}
    low = open_page(NEURONS, base)
    high = open_page(NEURONS, {**base, "thr": "0.3"})
    assert trace_y(high, 1, kind="bar").sum() < trace_y(low, 1, kind="bar").sum()


def test_lesson_preset_gives_the_output_0_2():
    at = click(open_page(KEY_VALUE), "Lesson")
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 2.0])
    assert len(at.get("plotly_chart")) == 5  # the plane's arrows appear at d_model = 2
    at = click(open_page(NEURONS), "Lesson")
    np.testing.assert_array_equal(decode(heatmap(at)["z"]), [[np.nan, 2.0]])


def test_the_blocks_shown_add_up_to_the_output_shown():
    at = open_page(KEY_VALUE)
    x, w = expected_default_model()
    out = relu(x[0] @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
    bars = [decode(t["y"]) for t in traces(at, 1) if t["type"] == "bar"]
    shown_out = trace_y(at, 1, name="output (the sum)")
    np.testing.assert_allclose(np.sum(bars, axis=0), shown_out, atol=1e-6)
    np.testing.assert_allclose(shown_out, out, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("neuron", [0, 6, 14])
def test_switching_a_neuron_off_removes_exactly_its_write(neuron):
    x, w = expected_default_model()
    h = relu(x[2] @ w["W1"] + w["b1"])  # token "3: sat"
    write = h[neuron] * w["W2"][neuron]
    query = {"tok": "3: sat", "neuron": f"n{neuron + 1}"}
    at = open_page(KEY_VALUE, {**query, "off": f"n{neuron + 1}"})
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, -write, atol=1e-6)
    at = open_page(KEY_VALUE, {**query, "scale": "2.5"})
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, 1.5 * write, atol=1e-6)


def test_the_inspected_neuron_can_be_switched_off_and_then_cannot_be_scaled():
    x, w = expected_default_model()
    h = relu(x[0] @ w["W1"] + w["b1"])  # token "1: the"
    at = open_page(KEY_VALUE, {"neuron": "n3", "off": "n1", "scale": "2"})
    (switch,) = [b for b in at.button if b.label == "Switch off n3"]
    switch.click().run()
    assert at.multiselect(key="off").value == ["n1", "n3"]
    assert at.slider(key="scale").disabled
    assert any("n3 is switched off, so scaling it changes nothing." in c.value for c in at.caption)
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, -(h[0] * w["W2"][0] + h[2] * w["W2"][2]), atol=1e-6)
    assert not [b for b in at.button if b.label.startswith("Switch off")]


def test_reset_restores_the_output():
    at = open_page(KEY_VALUE, {"off": "n1", "scale": "2"})
    (reset,) = [b for b in at.button if b.label == "Reset"]
    reset.click().run()
    np.testing.assert_array_equal(
        trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    )


def test_residual_view_shows_x_ffn_and_their_sum():
    at = open_page(KEY_VALUE)
    x, ffn, total = (trace_y(at, -2, name=n) for n in ("x", "FFN(x)", "x + FFN(x)"))
    np.testing.assert_allclose(x + ffn, total, atol=1e-6)


def test_a_link_with_hand_edited_weights_reproduces_them():
    weights = [
        np.array([[1.0, -2, 0.5], [0.25, 1, -1]]),
        np.array([0.1, 0, -0.2]),
        np.array([[1.0, 0], [0, 1], [-1, 1]]),
        np.array([0.0, 0.5]),
    ]
    query = {"init": "hand-edited", "d_model": "2", "d_ff": "3", "mask": "false"}
    at = open_page(NEURONS, {**query, "w": encode_arrays(weights)})
    x, _ = expected_default_model(2, 3)
    np.testing.assert_allclose(
        decode(heatmap(at)["z"]), relu(x @ weights[0] + weights[1]), rtol=1e-6, atol=1e-6
    )
    assert not at.warning


def test_a_link_with_unfitting_hand_weights_falls_back_with_a_note():
    query = {"init": "hand-edited", "d_model": "2", "d_ff": "3", "w": "1_2_3~4"}
    at = open_page(NEURONS, query)
    assert not at.exception
    assert "w= values do not fit" in warnings_text(at)


def test_editing_a_weight_cell_changes_the_model_and_the_link():
    at = click(open_page(KEY_VALUE), "Lesson")
    version = at.session_state["hand_weights_version"]
    edit_table(at, f"edit_W1_{version}", {0: {"n2": 3.0}})  # key of neuron 2 becomes [3, -1]
    at.run()
    assert not at.exception
    assert at.session_state["hand_weights"]["W1"][0, 1] == 3.0
    assert at.query_params["w"].startswith("1_3_1_-1~")
    # x = [1, -1]: neuron 2 now scores 3 + 1 = 4 and writes [0, 4].
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 4.0])


def test_editing_x_in_the_table_changes_the_token():
    at = click(open_page(KEY_VALUE), "Lesson")
    version = at.session_state["edited_x_version"]
    edit_table(at, f"edit_x_{version}", {0: {"x2": 1.0}})  # x = [1, 1]: now the "agree" key fires
    at.run()
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [2.0, 0.0])
    assert at.query_params["x"] == "1_1"


@pytest.mark.parametrize("factor", [2, 4])
def test_d_ff_quick_settings_are_two_and_four_times_d_model(factor):
    at = open_page(NEURONS, {"d_model": "5"})
    (quick,) = [b for b in at.sidebar.button if b.label == f"d_ff = {factor} × d_model"]
    quick.click().run()
    assert at.sidebar.number_input(key="d_ff").value == 5 * factor
    assert decode(heatmap(at)["z"]).shape == (6, 5 * factor)


def test_presenter_mode_enlarges_figures_and_tucks_secondary_controls_away():
    plain, presenting = open_page(NEURONS), open_page(NEURONS, {"presenter": "true"})
    font = [
        json.loads(c.proto.spec)["layout"]["font"]["size"]
        for c in (plain.get("plotly_chart")[0], presenting.get("plotly_chart")[0])
    ]
    assert font == [14, 20]
    assert not plain.sidebar.expander
    assert [e.label for e in presenting.sidebar.expander] == ["More settings"]


def test_the_tokens_box_shows_the_sentences_word_count_and_is_locked():
    at = open_page(NEURONS, {"text": "one two three four five", "T": "9"})
    box = at.sidebar.number_input(key="T")
    assert box.value == 5 and box.disabled
    assert warnings_text(at) == ""  # a sentence decides T: the address's is ignored
    assert len(heatmap(at)["y"]) == 5


def test_empty_and_long_sentences():
    at = open_page(NEURONS, {"text": "?!"})
    assert "at least one word" in warnings_text(at)
    at = open_page(NEURONS, {"text": " ".join(["a"] * 80)})
    assert decode(heatmap(at)["z"]).shape[0] == 64  # at most 64 tokens
    at = open_page(NEURONS, {"text": "word " * 80})
    assert "using the first 300" in warnings_text(at)
    assert decode(heatmap(at)["z"]).shape[0] == 60


def test_the_chosen_token_and_neuron_come_from_the_link():
    at = open_page(KEY_VALUE, {"tok": "2: cat", "neuron": "n7"})
    assert "2: cat" in " ".join(s.value for s in at.subheader)
    assert "n7 scores" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("bad", ["abc", None, float("nan"), float("inf"), "-inf", ""])
def test_a_bad_cell_gets_a_note_and_changes_nothing(bad):
    at = click(open_page(KEY_VALUE), "Lesson")
    version = at.session_state["hand_weights_version"]
    edit_table(at, f"edit_W1_{version}", {0: {"n2": bad}})
    at.run()
    assert not at.exception
    assert "not a number within ±1,000,000" in warnings_text(at)
    np.testing.assert_array_equal(at.session_state["hand_weights"]["W1"], [[1, 1], [1, -1]])
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 2.0])


def test_the_heatmap_caption_says_what_the_default_view_shows():
    masked = " ".join(c.value for c in open_page(NEURONS).caption)
    assert "only the cells that fired are coloured" in masked and "white at zero" not in masked
    full = " ".join(c.value for c in open_page(NEURONS, {"mask": "false"}).caption)
    assert "blue below, white at zero" in full


def test_a_faint_firing_is_coloured_and_a_silent_cell_is_marked():
    at = open_page(NEURONS)
    trace = heatmap(at)
    z = decode(trace["z"])
    silent = np.isnan(z)
    assert trace["zmin"] == 0 and trace["colorscale"][0][1] != "#FFFFFF"  # no white floor
    np.testing.assert_array_equal(np.array(trace["text"]) == "·", silent)


def test_neurons_that_stay_silent_on_every_token_are_counted():
    x, w = expected_default_model()
    silent = np.flatnonzero(~np.any(relu(x @ w["W1"] + w["b1"]) > 0, axis=0))
    text = " ".join(c.value for c in open_page(NEURONS).caption)
    if len(silent):
        assert f"{len(silent)} of 16 neurons stayed silent on all 6 tokens" in text
    else:
        assert "Every neuron fired on at least one of these 6 tokens." in text


def test_the_two_the_rows_question_waits_then_shows_they_match():
    at = open_page(NEURONS)
    question = at.radio(key="guess_rows")
    assert question.label == "Predict: will the rows of 1: the and 5: the match?"
    assert not [m for m in at.metric if "largest difference" in m.label]
    question.set_value("no").run()
    assert "Not this time: the answer is yes, exactly." in at.error[0].value
    assert "same input, same output" in at.error[0].value
    (difference,) = [m for m in at.metric if "largest difference" in m.label]
    assert difference.value == "0"
    random = open_page(NEURONS, {"tokens": "random"})
    assert not [r for r in random.radio if r.key == "guess_rows"]


def test_key_value_asks_which_coordinate_moves_before_showing_it():
    x, w = expected_default_model()
    h = relu(x[0] @ w["W1"] + w["b1"])  # token "1: the"
    strongest = int(np.argmax(h))
    moved = int(np.argmax(np.abs(w["W2"][strongest])))
    at = open_page(KEY_VALUE)
    question = at.radio(key="guess_kv")
    assert f"switch off n{strongest + 1}, the strongest neuron" in question.label
    assert not [b for b in at.button if b.label.endswith("below")]
    wrong = f"out{(moved + 1) % 4 + 1}"
    question.set_value(wrong).run()
    assert at.error[0].value.startswith(f"Not this time: the answer is out{moved + 1}.")
    at.radio(key="guess_kv").set_value(f"out{moved + 1}").run()
    assert at.success[0].value.startswith("Right:")
    (switch,) = [b for b in at.button if b.label == f"Switch off n{strongest + 1} below"]
    switch.click().run()
    change = trace_y(at, -1, name="edited output") - trace_y(at, -1, name="output")
    assert int(np.argmax(np.abs(change))) == moved  # the figure settles it

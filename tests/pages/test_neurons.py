"""The Neurons page in AppTest: its heatmap, counts and rates against the core, and its question."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    ANSWERS,
    NEURONS,
    chart_traces,
    decode,
    expected_default_model,
    heatmap,
    open_page,
    relu,
    trace_y,
)

from ffn_core.activations import gelu

pytestmark = pytest.mark.usefixtures("fresh_caches")
GUESSED = ANSWERS[NEURONS]  # the grid's colours and every count wait for the guess


def guessed_page(query: dict | None = None):
    """The page as a link with `query` opens it, its question answered."""
    return open_page(NEURONS, {**GUESSED, **(query or {})})


def test_neurons_heatmap_shows_the_activation_of_every_token_and_neuron():
    at = guessed_page({"mask": "false"})
    x, w = expected_default_model()
    z = decode(heatmap(at)["z"])
    assert z.shape == (6, 16)
    np.testing.assert_allclose(z, relu(x @ w["W1"] + w["b1"]), rtol=1e-6, atol=1e-6)
    assert heatmap(at)["zmid"] == 0  # diverging, centred on zero
    assert "%{z" in heatmap(at)["hovertemplate"]


def test_heatmap_follows_d_model_d_ff_T_activation_and_view():
    query = {"d_model": "3", "d_ff": "9", "tokens": "random", "T": "5", "act": "GELU"}
    at = guessed_page({**query, "mask": "false", "view": "pre-activation"})
    w = expected_default_model(3, 9)[1]
    x = np.random.default_rng([0, 1]).standard_normal((5, 3))  # the UI's random tokens
    h_pre = x @ w["W1"] + w["b1"]
    np.testing.assert_allclose(decode(heatmap(at)["z"]), h_pre, rtol=1e-6, atol=1e-6)
    at = guessed_page({**query, "mask": "false"})
    np.testing.assert_allclose(decode(heatmap(at)["z"]), gelu(h_pre), rtol=1e-6, atol=1e-6)


def test_mask_blanks_the_cells_that_did_not_fire():
    at = guessed_page()
    x, w = expected_default_model()
    z = decode(heatmap(at)["z"])
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    np.testing.assert_array_equal(~np.isnan(z), fired)


def test_the_pre_activation_view_shows_every_score_even_with_blanking_on():
    """Blanked, the scores would be ReLU's activations again: the view shows them all,
    negatives included, and a line says why there is no blanking toggle."""
    at = guessed_page({"view": "pre-activation", "mask": "true"})
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    z = decode(heatmap(at)["z"])
    assert not np.isnan(z).any() and (z < 0).any()
    np.testing.assert_allclose(z, h_pre, rtol=1e-6, atol=1e-6)
    assert not [t for t in at.toggle if t.key == "mask"]  # no greyed-out control: a line
    caption = " ".join(c.value for c in at.caption)
    assert "Nothing to blank in the pre-activation view" in caption
    assert "Every cell shows its value: red above zero, blue below" in caption
    assert "(on a phone, tap it)" in caption


def test_a_wide_layer_keeps_its_most_active_neurons_under_the_size_cap():
    at = guessed_page({"d_model": "64", "d_ff": "4096", "tokens": "random", "T": "64"})
    trace = heatmap(at)
    assert decode(trace["z"]).shape == (64, 256)
    assert trace["x"][-1] == "other 3841"
    assert "most active of 4096" in " ".join(c.value for c in at.caption)
    spec_bytes = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert spec_bytes < 1_000_000


def test_per_token_counts_and_firing_rates_agree_with_the_heatmap():
    at = guessed_page()
    x, w = expected_default_model()
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    np.testing.assert_array_equal(trace_y(at, 1, kind="bar"), fired.sum(axis=1))
    rates = trace_y(at, 2, kind="bar")
    np.testing.assert_allclose(np.sort(rates)[::-1], np.sort(fired.mean(axis=0))[::-1])
    (metric,) = [m for m in at.metric if m.label == "activations that fired"]
    assert metric.value == f"{np.mean(fired):.0%}"


@pytest.mark.parametrize("label", ["ReLU", "Squared ReLU"])
def test_where_silent_is_exactly_0_a_line_says_why_there_is_no_threshold(label):
    """A disabled slider's label was too faint to read (axe: color-contrast). ReLU and
    Squared ReLU are exactly 0 at and below 0: nothing leaks, so no threshold."""
    at = open_page(NEURONS, {"act": label})
    assert not [s for s in at.slider if s.key == "thr"]
    (said,) = [c.value for c in at.caption if "no threshold" in c.value]
    assert said.startswith(label) and "exactly 0" in said


def test_squared_relu_fires_where_relu_does():
    """The same scores under max(0, z)²: the same neurons pass something, the same count."""
    relu, squared = guessed_page({"act": "ReLU"}), guessed_page({"act": "Squared ReLU"})
    np.testing.assert_array_equal(trace_y(squared, 1, kind="bar"), trace_y(relu, 1, kind="bar"))


def test_threshold_counts_fewer_firing_neurons_for_smooth_activations():
    base = {"act": "SiLU", "mask": "false"}
    low = guessed_page(base)
    high = guessed_page({**base, "thr": "0.3"})
    assert trace_y(high, 1, kind="bar").sum() < trace_y(low, 1, kind="bar").sum()


def test_the_heatmap_caption_says_what_the_default_view_shows():
    masked = " ".join(c.value for c in guessed_page().caption)
    assert "only the cells that fired are coloured" in masked and "white at zero" not in masked
    full = " ".join(c.value for c in guessed_page({"mask": "false"}).caption)
    assert "blue below, white at zero" in full


def test_a_faint_firing_is_coloured_and_a_silent_cell_is_marked():
    at = guessed_page()
    trace = heatmap(at)
    z = decode(trace["z"])
    silent = np.isnan(z)
    assert trace["zmin"] == 0 and trace["colorscale"][0][1] != "#FFFFFF"  # no white floor
    np.testing.assert_array_equal(np.array(trace["text"]) == "·", silent)


def test_neurons_that_stay_silent_on_every_token_are_counted():
    x, w = expected_default_model()
    silent = np.flatnonzero(~np.any(relu(x @ w["W1"] + w["b1"]) > 0, axis=0))
    text = " ".join(c.value for c in guessed_page().caption)
    if len(silent):
        assert f"{len(silent)} of 16 neurons stayed silent on all 6 tokens" in text
    else:
        assert "Every neuron fired on at least one of the 6 tokens." in text


def test_the_firing_question_waits_then_counts_what_fired():
    """Asked before the heatmap, with the count it settles held back until a guess; the
    answer and its numbers are the core's, recomputed here."""
    x, w = expected_default_model()
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    share = fired.mean()
    expected = (
        "fewer than a third"
        if share < 1 / 3
        else "about half"
        if share <= 2 / 3
        else "more than two thirds"
    )
    at = open_page(NEURONS)
    question = at.radio(key="guess_fire")
    assert question.label == "Predict: of these 6 × 16 = 96 activations, how many fire?"
    assert not [m for m in at.metric if m.label == "activations that fired"]
    wrong = next(o for o in question.options[1:] if o != expected)
    question.set_value(wrong).run()
    verdict = at.error[0].value
    assert f"Not this time: the answer is {expected}." in verdict
    assert f"{fired.sum()} of 96 fired ({share:.0%})" in verdict
    assert "with random weights" in verdict and "learned, not built in" in verdict
    (metric,) = [m for m in at.metric if m.label == "activations that fired"]
    assert metric.value == f"{share:.0%}"


def test_a_repeated_word_s_rows_are_said_to_match_exactly():
    at = guessed_page()
    captions = " ".join(c.value for c in at.caption)
    assert (
        "Notice the rows of 1: the and 5: the: the largest difference between them is 0."
        in captions
    )
    assert "same input, same output" in captions
    random = guessed_page({"tokens": "random"})
    assert "Notice the rows of" not in " ".join(c.value for c in random.caption)


def test_the_heatmap_in_numbers_counts_who_fires_per_token_and_names_the_strongest():
    at = guessed_page()  # silent cells blank, as a learner first sees it
    x, w = expected_default_model()
    h = relu(x @ w["W1"] + w["b1"])  # (6 tokens, 16 neurons)
    (words,) = [t.value for t in at.text if "hidden neuron" in t.value]
    for t, word in enumerate(["the", "cat", "sat", "on", "the", "mat"]):
        fired = sum(1 for j in range(16) if h[t, j] > 0)
        assert f"{t + 1}: {word}: {fired} of the 16 drawn" in words
    t, j = max(((t, j) for t in range(6) for j in range(16)), key=lambda tj: h[tj])
    assert f"largest {h[t, j]:.3g} at token {t + 1}: " in words
    assert f"hidden neuron n{j + 1};" in words


def test_hand_edited_weights_fire_for_the_same_reason_as_the_random_ones_they_start_from():
    at = open_page(NEURONS, {"init": "hand-edited"})
    at.radio(key="guess_fire").set_value("about half").run()
    said = " ".join(m.value for m in [*at.success, *at.error])
    assert "start from the random weights" in said and "set by hand" not in said


def shown_words(at) -> str:
    """Every word the page shows: headings, sentences, captions, notes, verdicts, metrics,
    tables and each figure in numbers."""
    parts = [e.value for e in [*at.title, *at.subheader, *at.markdown, *at.caption, *at.text]]
    parts += [e.value for e in [*at.info, *at.warning, *at.success, *at.error]]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(parts)


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"mask": "false"},
        {"view": "pre-activation"},
        {"act": "GELU", "thr": "0.2"},
        {"act": "SwiGLU"},
        {"tokens": "random", "T": "1", "d_ff": "64"},
    ],
)
def test_before_the_guess_nothing_on_the_page_says_how_many_fire(query):
    """The question asks how many of the T × d_ff activations fire. Before a guess the grid
    is drawn, every cell the same grey with no value in its data or on hover, and no count
    is drawn or said anywhere: not per token, per neuron nor in all; after it, the cells
    that fired are coloured and the counts are there."""
    at = open_page(NEURONS, query)
    assert at.radio(key="guess_fire").value == "not sure yet"
    (grid,) = chart_traces(at)  # the grid alone: no bars of counts, no histogram
    (cells,) = grid
    z = decode(cells["z"])
    assert np.all(z == z.flat[0]) and "%{z" not in cells["hovertemplate"]
    assert not at.metric and not at.dataframe
    fired = np.isnan(decode(heatmap(guessed_page(query))["z"]))  # silent cells, once revealed
    words = shown_words(at)
    count = int(fired.size - fired.sum()) if query.get("mask") != "false" else None
    assert "of the 16 drawn" not in words and "fired (" not in words and "%" not in words
    assert "stayed silent" not in words and "fired on" not in words
    if count is not None and query.get("view") is None:
        assert f"{count} of" not in words
    after = guessed_page(query)
    assert "activations that fired" in shown_words(after)
    assert len(chart_traces(after)) == 4  # the grid, then the counts: per token, per neuron, all


def test_after_the_guess_the_grid_colours_what_fired_and_its_words_count_it():
    x, w = expected_default_model()
    fired = relu(x @ w["W1"] + w["b1"]) > 0
    at = open_page(NEURONS)
    at.radio(key="guess_fire").set_value("fewer than a third").run()
    np.testing.assert_array_equal(~np.isnan(decode(heatmap(at)["z"])), fired)
    words = shown_words(at)
    assert f"{fired.sum()} of 96 fired ({fired.mean():.0%})" in words
    assert f"1: the: {fired[0].sum()} of the 16 drawn" in words


def test_pre_activation_is_explained_where_it_first_appears():
    """The view's name is a control's option: the line under it says what it is, the
    score before the activation, and the explanation under the grid says it again."""
    at = open_page(NEURONS)
    assert "pre-activation" in at.radio(key="view").options
    first = next(c.value for c in at.caption if "pre-activation" in c.value)
    assert "pre-activation: the neuron's score x · W1 + b1" in first
    assert "before the activation acts" in first
    assert "that score is the neuron's *pre-activation*" in shown_words(at)


def test_one_token_is_one_token():
    at = guessed_page({"tokens": "random", "T": "1", "d_ff": "64"})
    words = shown_words(at)
    assert "1 tokens" not in words and "these 1" not in words
    assert "on the 1 token" in words

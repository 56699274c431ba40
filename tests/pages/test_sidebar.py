"""The sidebar every page shares, in AppTest: hand-edited weights and tokens, links that carry
them, quick settings, presenter mode and the sentence box."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    ACTIVATIONS,
    KEY_VALUE,
    NEURONS,
    click,
    decode,
    edit_table,
    expected_default_model,
    guessed,
    heatmap,
    open_page,
    relu,
    trace_y,
    warnings_text,
)

from ffn_core.typed_numbers import encode_arrays

pytestmark = pytest.mark.usefixtures("fresh_caches")


# W1 (2, 3), b1, W2 (3, 2), b2: a small hand-edited model, non-square
HAND_WEIGHTS = [
    np.array([[1.0, -2, 0.5], [0.25, 1, -1]]),
    np.array([0.1, 0, -0.2]),
    np.array([[1.0, 0], [0, 1], [-1, 1]]),
    np.array([0.0, 0.5]),
]


def test_a_link_with_hand_edited_weights_reproduces_them():
    weights = HAND_WEIGHTS
    query = {"init": "hand-edited", "d_model": "2", "d_ff": "3", "mask": "false"}
    query["guess_fire"] = "about half"  # the grid's values wait for a guess
    at = open_page(NEURONS, {**query, "w": encode_arrays(weights)})
    x, _ = expected_default_model(2, 3)
    np.testing.assert_allclose(
        decode(heatmap(at)["z"]), relu(x @ weights[0] + weights[1]), rtol=1e-6, atol=1e-6
    )
    assert not at.warning


def test_the_sidebar_offers_squared_relu_and_the_heatmap_is_relu_squared():
    """Chosen in the sidebar, Squared ReLU reaches the page: max(0, x·W1 + b1)², computed
    here from the weights the link sets."""
    weights = HAND_WEIGHTS
    query = {"init": "hand-edited", "d_model": "2", "d_ff": "3", "mask": "false"}
    query |= {"guess_fire": "about half", "act": "Squared ReLU", "w": encode_arrays(weights)}
    at = open_page(NEURONS, query)
    assert "Squared ReLU" in at.sidebar.selectbox(key="act").options
    x, _ = expected_default_model(2, 3)
    expected = relu(x @ weights[0] + weights[1]) ** 2
    np.testing.assert_allclose(decode(heatmap(at)["z"]), expected, rtol=1e-6, atol=1e-6)


def test_a_link_with_unfitting_hand_weights_falls_back_with_a_note():
    query = {"init": "hand-edited", "d_model": "2", "d_ff": "3", "w": "1_2_3~4"}
    at = open_page(NEURONS, query)
    assert not at.exception
    assert "w= values do not fit" in warnings_text(at)


def test_editing_a_weight_cell_changes_the_model_and_the_link():
    at = guessed(click(open_page(KEY_VALUE), "Lesson"), "guess_kv")
    version = at.session_state["hand_weights_version"]
    edit_table(at, f"edit_W1_{version}", {0: {"n2": 3.0}})  # key of neuron 2 becomes [3, -1]
    at.run()
    assert not at.exception
    assert at.session_state["hand_weights"]["W1"][0, 1] == 3.0
    assert at.query_params["w"].startswith("1_3_1_-1~")
    # x = [1, -1]: neuron 2 now scores 3 + 1 = 4 and writes [0, 4].
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 4.0])


def test_editing_x_in_the_table_changes_the_token():
    at = guessed(click(open_page(KEY_VALUE), "Lesson"), "guess_kv")
    version = at.session_state["edited_x_version"]
    edit_table(at, f"edit_x_{version}", {0: {"x2": 1.0}})  # x = [1, 1]: now the "agree" key fires
    at = guessed(at.run(), "guess_kv")  # another neuron missed now: the question asks again
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
    hover = json.loads(presenting.get("plotly_chart")[0].proto.spec)["layout"]["hoverlabel"]
    assert hover["font"]["size"] == 20  # hover labels grow with the ticks and titles
    assert not plain.sidebar.expander
    assert [e.label for e in presenting.sidebar.expander] == ["More settings"]


def test_presenter_mode_scales_an_insets_own_smaller_ticks_too():
    plain, presenting = open_page(ACTIVATIONS), open_page(ACTIVATIONS, {"presenter": "true"})
    sizes = [
        json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["yaxis2"]["tickfont"]["size"]
        for at in (plain, presenting)
    ]
    assert sizes == [10, 14]  # 10 × 20 / 14, as the rest of the chart's text grows


def test_the_explanation_follows_the_figure_and_presenter_mode_tucks_it_away():
    """A page opens on its heading, one sentence and its figure; the explanation comes
    after the figure, and on a projector in a closed expander the teacher may open."""
    from ffn_ui.page.stage import WHY

    plain, presenting = open_page(None), open_page(None, {"presenter": "true"})
    (why,) = [m.value for m in plain.markdown if m.value.startswith(f"**{WHY}.**")]
    (about,) = [e for e in presenting.main.expander if e.label == WHY]
    assert why.removeprefix(f"**{WHY}.** ") == about.markdown[0].value  # the same words
    assert "feed-forward network" in why
    assert not [e for e in plain.main.expander if e.label == WHY]


def test_high_contrast_draws_black_text_and_thicker_lines():
    plain, bold = open_page(ACTIVATIONS), open_page(ACTIVATIONS, {"contrast": "true"})
    specs = [json.loads(at.get("plotly_chart")[0].proto.spec) for at in (plain, bold)]
    assert "color" not in specs[0]["layout"].get("font", {})
    assert specs[1]["layout"]["font"]["color"] == "black"
    for axis in ("xaxis", "yaxis"):
        assert specs[1]["layout"][axis]["tickfont"]["color"] == "black"
        assert specs[1]["layout"][axis]["linecolor"] == "black"
    widths = [[t["line"]["width"] for t in spec["data"]] for spec in specs]
    assert widths[1] == [1.5 * w for w in widths[0]]  # every curve, the inset's too
    assert '[data-testid="stApp"] * { color: #000000 !important; }' in bold.get("html")[0].value


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


@pytest.mark.parametrize("bad", ["abc", None, float("nan"), float("inf"), "-inf", ""])
def test_a_bad_cell_gets_a_note_and_changes_nothing(bad):
    at = guessed(click(open_page(KEY_VALUE), "Lesson"), "guess_kv")
    version = at.session_state["hand_weights_version"]
    edit_table(at, f"edit_W1_{version}", {0: {"n2": bad}})
    at.run()
    assert not at.exception
    assert "not a number within ±1,000,000" in warnings_text(at)
    np.testing.assert_array_equal(at.session_state["hand_weights"]["W1"], [[1, 1], [1, -1]])
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 2.0])


def test_a_sentence_box_full_to_its_limit_is_read_up_to_its_last_whole_word():
    full = ("sentence " * 40)[:300]  # 300 characters, the last word cut to "sen"
    assert full.endswith(" sen")
    at = open_page(NEURONS, {"text": full})
    assert "page reads it up to the last whole word, `sentence`." in " ".join(
        c.value for c in at.sidebar.caption
    )
    assert heatmap(at)["y"][-1].endswith(": sentence")

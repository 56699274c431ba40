"""The home page in AppTest: it runs, computes the lesson's example, and follows its controls."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import app_test, chart_traces, decode


@pytest.fixture
def home():
    return app_test()


def plotted_output(at) -> np.ndarray:
    """The output the writes figure draws (its diamonds)."""
    (marker,) = [t for c in chart_traces(at) for t in c if t.get("name") == "output (the sum)"]
    return decode(marker["y"])


def test_home_runs_and_shows_its_first_token_s_output(home):
    """The token starts at (0, −1), clear of both keys' tips (the lesson's x = [1, −1] sat
    on key 2's, hiding its handle): neuron 1 scores −1, neuron 2 scores 1."""
    home.run()
    assert not home.exception
    assert [home.slider(key="x1").value, home.slider(key="x2").value] == [0.0, -1.0]
    assert home.metric[0].value == "[0.0, 1.0]"
    np.testing.assert_array_equal(plotted_output(home), [0.0, 1.0])
    traces = chart_traces(home)[0]
    (tips,) = [t for t in traces if str(t.get("name", "")).startswith("each key's tip")]
    tips = np.stack([decode(tips["x"]), decode(tips["y"])], axis=1)
    assert np.linalg.norm(tips - [0.0, -1.0], axis=1).min() >= 1.0  # a unit from each tip


@pytest.mark.parametrize(("x1", "x2"), [(2.0, 2.0), (-1.5, 0.5), (3.0, -3.0)])
def test_moving_the_token_changes_which_neuron_fires(home, x1, x2):
    home.run()
    home.slider(key="x1").set_value(x1)
    home.slider(key="x2").set_value(x2)
    home.run()
    assert not home.exception
    # Neuron 1 scores x1 + x2, neuron 2 scores x1 - x2; W2 = I copies them through ReLU.
    expected = [max(x1 + x2, 0.0), max(x1 - x2, 0.0)]
    np.testing.assert_allclose(plotted_output(home), expected)
    assert home.metric[0].value == str(expected)


def test_a_link_sets_the_token(home):
    home.query_params["x1"] = "2.5"
    home.query_params["x2"] = "0.5"
    home.run()
    assert home.slider(key="x1").value == 2.5
    np.testing.assert_allclose(plotted_output(home), [3.0, 2.0])
    assert not home.warning


@pytest.mark.parametrize("raw", ["abc", "99", "nan"])
def test_a_bad_link_value_falls_back_with_a_visible_note(home, raw):
    home.query_params["x1"] = raw
    home.run()
    assert not home.exception
    assert home.slider(key="x1").value == 0.0
    assert any(
        f"address set x1 to `{raw}`" in w.value and "using `0.0`" in w.value for w in home.warning
    )


def test_after_the_lesson_preset_the_example_and_the_sidebar_hold_the_same_x(home):
    home.run()
    home.slider(key="x1").set_value(2.5)
    home.slider(key="x2").set_value(0.5)
    home.run()
    (lesson,) = [b for b in home.sidebar.button if b.label == "Lesson"]
    lesson.click().run()
    assert not home.exception
    sidebar_x = home.session_state["edited_x"]["x"]
    example_x = [home.slider(key="x1").value, home.slider(key="x2").value]
    np.testing.assert_array_equal(sidebar_x, [[1.0, -1.0]])
    assert example_x == [1.0, -1.0]
    np.testing.assert_array_equal(plotted_output(home), [0.0, 2.0])


def all_text(at) -> str:
    return " ".join(e.value for e in [*at.markdown, *at.caption])


def test_the_neurons_are_described_by_the_half_plane_where_they_fire_once_guessed(home):
    """Where each neuron fires answers the question (x = [−2, −2] is in neither half):
    the rule is said after the guess, never before."""
    home.run()
    before = all_text(home)
    assert "x₁ + x₂ > 0" not in before and "x₁ > x₂" not in before
    assert "score is above 0" not in before
    home.radio(key="guess_home").set_value("both").run()
    text = all_text(home)
    assert "wherever x₁ + x₂ > 0" in text and "wherever x₁ > x₂" in text
    assert "agreeing" not in text and "pulling apart" not in text  # the old, false reading


def test_the_token_on_the_question_s_point_shows_no_readout_until_the_guess(home):
    """Dragged to x = [−2, −2] before the guess, the output, the scores and who fires
    would answer the question: they wait for it; anywhere else they are live."""
    home.query_params.update({"x1": "-2", "x2": "-2"})
    home.run()
    assert not home.metric and not home.dataframe
    assert len(chart_traces(home)) == 1  # the plane alone: no writes figure
    words = all_text(home) + " ".join(t.value for t in home.text)
    assert "euron 1 scores" not in words and "stays silent" not in words
    assert "[0.0, 0.0]" not in words
    assert "−4" not in words and "-4" not in words
    home.radio(key="guess_home").set_value("neuron 2").run()
    assert home.metric[0].value == "[0.0, 0.0]"
    np.testing.assert_array_equal(plotted_output(home), [0.0, 0.0])
    assert list(home.dataframe[0].value.loc["fires? (z > 0)"]) == ["no", "no"]


def test_near_the_question_s_point_the_readout_is_live(home):
    home.query_params.update({"x1": "-2", "x2": "-1.75"})
    home.run()
    np.testing.assert_allclose(plotted_output(home), [0.0, 0.0])  # −3.75 and −0.25
    assert home.metric[0].value == "[0.0, 0.0]" and home.dataframe


def test_the_first_line_says_a_key_is_the_neuron_s_pattern_not_attention_s(home):
    home.run()
    (lede,) = [m.value for m in home.markdown if "feed-forward network scores" in m.value]
    assert "the pattern that neuron looks for" in lede and "not attention's key" in lede


def inside(polygon_x, polygon_y, point) -> bool:
    """Whether point is strictly inside a closed convex polygon, in either winding."""
    px, py = point
    sides = [
        (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0)
        for x0, y0, x1, y1 in zip(polygon_x, polygon_y, polygon_x[1:], polygon_y[1:], strict=False)
        if (x0, y0) != (x1, y1)
    ]
    return all(s > 0 for s in sides) or all(s < 0 for s in sides)


@pytest.mark.parametrize(
    ("x1", "x2"), [(-2.0, -1.5), (1.0, -0.5), (0.5, 2.0), (3.0, 0.5), (-1.5, 2.5)]
)
def test_the_half_plane_picture_puts_the_token_where_its_neurons_fire(home, x1, x2):
    home.query_params.update({"x1": str(x1), "x2": str(x2)})
    home.run()
    home.radio(key="guess_home").set_value("neither").run()  # the shading is the reveal
    traces = chart_traces(home)[0]
    (dot,) = [t for t in traces if t.get("name") == "your token x"]
    assert [float(decode(dot["x"])[0]), float(decode(dot["y"])[0])] == [x1, x2]
    regions = [t for t in traces if t.get("fill") == "toself"]
    assert [t["name"] for t in regions] == [
        "neuron 1 fires: x₁ + x₂ > 0",
        "neuron 2 fires: x₁ − x₂ > 0",
    ]
    for region, fires in zip(regions, (x1 + x2 > 0, x1 - x2 > 0), strict=True):
        assert inside(decode(region["x"]), decode(region["y"]), (x1, x2)) == fires


def test_before_the_guess_the_plane_shows_the_keys_and_the_token_not_where_they_fire(home):
    """The question asks which neuron fires at [−2, −2]: the shaded half-planes would
    answer it, so they wait for the guess; the keys and the token are there from the start."""
    home.run()
    traces = chart_traces(home)[0]
    assert not [t for t in traces if t.get("fill") == "toself"]
    (tips,) = [t for t in traces if str(t.get("name", "")).startswith("each key's tip")]
    np.testing.assert_allclose(
        np.stack([decode(tips["x"]), decode(tips["y"])], axis=1), [[1, 1], [1, -1]]
    )
    words = " ".join(t.value for t in home.text)
    assert "fires where" not in words and "key points to (1, 1)" in words


@pytest.mark.parametrize(("k1", "k2"), [(90, -90), (135, 0), (-180, 30)])
def test_turning_a_key_moves_where_its_neuron_fires(home, k1, k2):
    """Each key at its angle, of length √2: the scores and the output follow the core."""
    home.query_params.update({"k1": str(k1), "k2": str(k2), "x1": "1.5", "x2": "-0.75"})
    home.run()
    x = np.array([1.5, -0.75])
    keys = np.sqrt(2) * np.array([[np.cos(np.radians(a)), np.sin(np.radians(a))] for a in (k1, k2)])
    expected = np.maximum(keys @ x, 0.0)  # W2 = I: each neuron writes its own output
    np.testing.assert_allclose(plotted_output(home), expected, atol=1e-9)


def test_a_drag_sets_the_sliders_values_snapped_and_anything_else_is_ignored():
    """The callback the drag calls: the token goes to the sliders' grid, a key to 15°
    steps; what no browser sends (text, NaN, a key 7, a bool) changes nothing."""
    from ffn_ui.parts import home as part

    class State(dict):
        pass

    cases = [
        ({"token": [1.13, -2.9]}, {"x1": 1.25, "x2": -3.0}),
        ({"token": [9.0, -99.0]}, {"x1": 3.0, "x2": -3.0}),
        ({"key": 1, "angle": 97.0}, {"k2": 90}),
        ({"key": 0, "angle": -179.0}, {"k1": -180}),
        ({"token": ["1", 2]}, {}),
        ({"token": [float("nan"), 0.0]}, {}),
        ({"key": 7, "angle": 10.0}, {}),
        ({"key": True, "angle": 10.0}, {}),
        ({"key": 0, "angle": "90"}, {}),
        ("not a dict", {}),
    ]
    for sent, expected in cases:
        state = State({part.DRAG: {"moved": sent}})
        original = part.st.session_state
        part.st.session_state = state
        try:
            part.moved()
        finally:
            part.st.session_state = original
        assert {k: v for k, v in state.items() if k != part.DRAG} == expected, sent


def test_the_prediction_waits_for_a_guess_then_says_why(home):
    home.run()
    assert not home.success and not home.error
    assert not [b for b in home.button if b.label.startswith("Show x")]
    home.radio(key="guess_home").set_value("neuron 1").run()
    (wrong,) = home.error
    assert wrong.value.startswith("Not this time: the answer is neither.")
    assert "Neuron 1 scores −2 + (−2) = −4" in wrong.value
    home.radio(key="guess_home").set_value("neither").run()
    assert home.success[0].value.startswith("Right:")
    (show_it,) = [b for b in home.button if b.label.startswith("Show x")]
    show_it.click().run()
    np.testing.assert_array_equal(plotted_output(home), [0.0, 0.0])  # the answer, drawn


def test_the_path_links_every_page_in_order_with_its_objective(home):
    from ffn_ui.page.path import STEPS

    home.run()
    labels = [e.proto.label for e in home.get("page_link")]
    assert labels == [f"{s.label}: {s.objective}" for s in STEPS[1:]]
    # the sidebar's menu is Streamlit's own: tests/browser reads it


def test_one_token_is_one_token(home):
    home.query_params.update({"tokens": "random", "T": "1"})
    home.run()
    assert "1 token." in all_text(home) and "1 tokens" not in all_text(home)


def test_every_term_the_issue_lists_is_explained_in_the_glossary():
    from ffn_ui.parts.glossary import NOTATION, TERMS

    wanted = ["fan-in, Glorot", "1 × 1 convolution", "singular values", "grouped-query attention",
              "FLOPs", "load-balancing loss", "ROME", "WordPiece, [CLS], [SEP]",
              "activation × gradient", "R²", "dead neuron"]  # fmt: skip
    assert set(wanted) <= set(TERMS)
    assert "Meng et al. 2022" in TERMS["ROME"] and "counts as 2" in TERMS["FLOPs"]
    assert {
        "d_model = C = D",
        "d_ff = H",
        "B",
        "T",
        "x @ W, here",
        "W @ x, in the by-hand lesson",
    } <= set(NOTATION)
    from helpers import GLOSSARY, open_page

    at = open_page(GLOSSARY)
    shown = " ".join(m.value for m in at.markdown)
    assert all(f"**{term}**" in shown for term in wanted)
    assert "neuron j's key is column j of W1" in shown and "key is row j of W1" in shown


def test_the_terms_a_learner_met_unexplained_are_in_the_glossary_and_hold():
    """Each new entry is drawn, and its claim checked: the sentence embedding is the mean
    of the final states at length 1; a rank-one matrix writes along v whatever the input;
    an antipodal pair has feature dimensionality 1/2, as the Glossary's own entry says."""
    from helpers import GLOSSARY, open_page

    from ffn_core.lessons.superposition import feature_dimensionality
    from ffn_core.models.minilm.model import mean_pool

    shown = " ".join(m.value for m in open_page(GLOSSARY).markdown)
    for term in ("feature, importance", "antipodal pair", "sentence embedding, cosine", "logit",
                 "rank, rank-one"):  # fmt: skip
        assert f"**{term}**" in shown
    rng = np.random.default_rng(3)
    states = rng.standard_normal((5, 7))
    pooled = mean_pool(states)
    assert np.linalg.norm(pooled) == pytest.approx(1.0)
    np.testing.assert_allclose(pooled * np.linalg.norm(states.mean(0)), states.mean(0))
    u, v, x = rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal(4)
    np.testing.assert_allclose(x @ np.outer(u, v), (x @ u) * v)
    W = np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 1.0]])  # features 1 and 2 antipodal, 3 alone
    np.testing.assert_allclose(feature_dimensionality(W), [0.5, 0.5, 1.0])


def test_home_says_which_convention_makes_keys_columns(home):
    home.run()
    assert "This app writes x @ W; written W @ x, as many texts do, the keys are the rows" in (
        all_text(home)
    )

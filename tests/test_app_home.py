"""The home page in AppTest: it runs, computes the lesson's example, and follows its controls."""

from __future__ import annotations

import numpy as np
import pytest
from plotly_data import chart_traces, decode
from streamlit.testing.v1 import AppTest

TIMEOUT = 30  # the first run imports pandas and plotly


@pytest.fixture
def home():
    return AppTest.from_file("../app.py", default_timeout=TIMEOUT)


def plotted_output(at) -> np.ndarray:
    (traces,) = chart_traces(at)
    (marker,) = [t for t in traces if t["type"] == "scatter"]
    return decode(marker["y"])


def test_home_runs_and_shows_the_lesson_output(home):
    home.run()
    assert not home.exception
    assert home.metric[0].value == "[0.0, 2.0]"
    np.testing.assert_array_equal(plotted_output(home), [0.0, 2.0])


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
    assert home.slider(key="x1").value == 1.0
    assert any(
        f"address set x1 to `{raw}`" in w.value and "using `1.0`" in w.value for w in home.warning
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

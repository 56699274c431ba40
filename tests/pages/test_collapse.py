"""The Collapse page in AppTest: one matrix without a bend, the stack, and training that
waits for a prediction."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import (
    COLLAPSE,
    decode,
    metric,
    open_page,
    page_words,
)

from ffn_core.init import init_weights
from ffn_core.lessons.training import make_task

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.mark.parametrize("query", [{}, {"d_model": "7", "d_ff": "3"}, {"init": "Xavier"}])
def test_collapse_difference_is_round_off(query):
    at = open_page(COLLAPSE, query)
    assert float(metric(at, "max |FFN(x)")) < 1e-9
    d_model, d_ff = int(query.get("d_model", 4)), int(query.get("d_ff", 16))
    w = init_weights(d_model, d_ff, query.get("init", "normal").lower(), 0)
    expected = np.linalg.matrix_rank(w["W1"] @ w["W2"])  # the product, multiplied out here
    assert expected == min(d_model, d_ff)  # random weights: as large as the shapes allow
    assert metric(at, "rank") == f"{expected} of {d_model}"


def test_the_stack_is_one_matrix_at_every_depth():
    for L in ("1", "6", "12"):
        at = open_page(COLLAPSE, {"L": L})
        (gap,) = [m.value for m in at.metric if "blocks of" in m.label]
        assert float(gap) < 1e-9
        (sigma,) = charts_titled(at, "singular values of the product")
        assert len(decode(sigma["data"][0]["y"])) == 4  # one singular value per coordinate


def charts_titled(at, start: str) -> list[dict]:
    """The page's charts whose title starts with `start`, as Plotly JSON."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    return [s for s in specs if s["layout"].get("title", {}).get("text", "").startswith(start)]


def test_the_page_opens_on_w1_times_w2_multiplied_out_into_w_eff():
    """The first figure is the product, each block read back against the sidebar's weights
    multiplied out here; beside it, what b_eff and rank are."""
    at = open_page(COLLAPSE)
    first = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert first["layout"]["title"]["text"] == "W1 · W2 = W_eff, one 4 × 4 matrix"
    w = init_weights(4, 16, "normal", 0)
    drawn = {t["name"]: decode(t["z"]) for t in first["data"]}
    np.testing.assert_allclose(drawn["W1"], w["W1"], rtol=1e-6)
    np.testing.assert_allclose(drawn["W2"], w["W2"], rtol=1e-6)
    np.testing.assert_allclose(drawn["W_eff"], w["W1"] @ w["W2"], rtol=1e-5, atol=1e-6)
    said = " ".join(c.value for c in at.caption)
    assert "b_eff = b1·W2 + b2 is the two biases folded into one" in said
    assert "rank is how many independent directions" in said


def test_training_waits_for_a_prediction_then_checks_it():
    at = open_page(COLLAPSE)
    assert "Make your guess above to see the answer." in [c.value for c in at.caption]
    assert len(at.get("plotly_chart")) == 5
    at = open_page(COLLAPSE, {"guess": "yes"})
    assert any("Not this time" in e.value for e in at.error)
    at = open_page(COLLAPSE, {"guess": "no"})
    assert any("Right" in s.value for s in at.success)


def accuracy(at, name: str) -> float:
    (chart,) = charts_titled(at, f"{name}: accuracy ")
    return float(chart["layout"]["title"]["text"].split("accuracy ")[1].rstrip("%")) / 100


def test_linear_cannot_fit_xor_but_relu_can():
    at = open_page(COLLAPSE, {"guess": "no", "task": "XOR"})
    assert accuracy(at, "no activation") <= 0.75
    assert accuracy(at, "ReLU") >= 0.95


def test_the_why_compares_the_straight_boundary_with_always_answering_one_class():
    """XOR: the trained linear model scores below the share of the commoner class, and the
    why says so, both as percentages to one decimal (one form for the two numbers), with
    that share counted here from the task's labels."""
    at = open_page(COLLAPSE, {"guess": "no", "task": "XOR"})
    (right,) = at.success
    linear = accuracy(at, "no activation")
    _, y = make_task("XOR", seed=0)
    base = max(np.sum(y == 0), np.sum(y == 1)) / len(y)
    assert linear < base
    assert f"reaches accuracy {linear:.1%} on XOR, worse than the {base:.1%}" in right.value
    assert "of always answering the commoner class" in right.value
    assert re.findall(r"\d\.\d\d\b", right.value) == []  # no share left as 0.54


@pytest.mark.parametrize("task", ["XOR", "spiral", "|x|"])
def test_the_task_s_data_is_drawn_and_the_loss_named_before_the_question(task):
    """The question asks whether a straight FFN fits the task: the points it is asked about
    are on the page first, with the loss training lowers said in words, and no fit, no
    score and no verdict until the guess."""
    at = open_page(COLLAPSE, {"task": task})
    (data,) = charts_titled(at, f"{task}: the 200 points to fit")
    X, target = make_task(task, seed=0)
    if task == "|x|":
        np.testing.assert_allclose(decode(data["data"][0]["y"]), target, rtol=1e-6)
    else:
        drawn = sum(len(decode(t["x"])) for t in data["data"])
        assert drawn == len(X) == 200
    said = " ".join(c.value for c in at.caption)
    assert ("cross-entropy (the mean of −log" in said) == (task != "|x|")
    assert ("mean squared error" in said) == (task == "|x|")
    before = " ".join(e.value for e in [*at.caption, *at.markdown, *at.success, *at.error])
    assert "reaches" not in before and not charts_titled(at, "no activation")
    assert not re.search(r"(accuracy|R²) \d", before)
    at.radio(key="guess").set_value("no").run()
    assert charts_titled(at, "no activation") and (at.success or at.error)


def test_a_line_is_linear_and_the_answer_key_says_so():
    at = open_page(COLLAPSE, {"guess": "yes", "task": "line"})
    (right,) = at.success
    assert right.value.startswith("Right: with no bend the network is one matrix")
    assert "reaches R² 1.000 on line" in right.value


def test_collapse_says_what_it_takes_away_and_where_the_stack_comes_from():
    at = open_page(COLLAPSE)
    intro = " ".join(m.value for m in at.markdown)
    assert "sections 1 and 2 take the activation away, whatever the sidebar says" in intro
    text = " ".join(m.value for m in [*at.markdown, *at.caption])
    assert "Fresh random blocks, not the sidebar's weights" in text
    assert "only spread apart" not in text and "tend to spread apart" in text


def test_task_presets_ask_for_a_new_prediction():
    at = open_page(COLLAPSE, {"guess": "no"})
    (spiral,) = [b for b in at.button if b.label == "spiral"]
    spiral.click().run()
    assert at.selectbox(key="task").value == "spiral"
    assert at.radio(key="guess").value == "not sure yet"


def test_the_stack_says_its_blocks_follow_the_sidebar_up_to_a_cap():
    at = open_page(COLLAPSE)
    said = " ".join(m.value for m in at.markdown)
    assert "each the sidebar's d_model → d_ff → d_model (capped at 64 → 256 → 64)" in said


@pytest.mark.parametrize("act", ["ReLU", "SwiGLU"])
def test_swiglu_and_silu_are_said_where_the_page_first_names_them(act):
    """Collapse comes before Activations on the path: where the page first names SwiGLU it
    says it is the gated FFN, with its formula, and where it first names SiLU, a smooth
    ReLU, z·sigmoid(z)."""
    said = page_words(open_page(COLLAPSE, {"act": act}).main)
    swiglu, silu = said.index("SwiGLU"), said.index("SiLU")
    assert said[swiglu:].startswith(("SwiGLU is the gated FFN silu(x·W_gate)", "SwiGLU chosen"))
    assert "the gated FFN silu(x·W_gate) ⊙ (x·W_up) · W_down" in said[swiglu : swiglu + 90]
    assert "silu(z) = z·sigmoid(z), is a smooth ReLU" in said[silu : silu + 60]


def test_in_presenter_mode_the_first_figure_fits_a_projectors_first_screen():
    """The projector draws a figure 1.3 times as tall: the product's is made shorter first,
    so that its bottom labels (n10 to n16, rotated) stay on a 1024 × 768 screen."""
    at = open_page(COLLAPSE)
    desk = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["height"]
    at.sidebar.toggle(key="presenter").set_value(True).run()
    projector = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["height"]
    assert desk == 440 and projector <= 500

"""The Backprop page in AppTest: the gradients shown against the core, the gradient check in
both precisions, and the exercises."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import (
    ANSWERS,
    BACKPROP,
    click,
    decode,
    expected_default_model,
    open_page,
    relu,
    traces,
    warnings_text,
)

pytestmark = pytest.mark.usefixtures("fresh_caches")


def check_table(at) -> dict[str, float]:
    (frame,) = [d.value for d in at.dataframe if "max relative error" in d.value.columns]
    for error, band in zip(frame["max relative error"], frame["band"], strict=True):
        words = "within 1e-6" if error <= 1e-6 else "within 1e-4" if error <= 1e-4 else "above 1e-4"
        assert band == words  # the colour's meaning, in words
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
    (preset,) = [b for b in at.button if b.label == "Preset: a small batch"]
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


def chart_titled(at, start: str) -> dict:
    """The one chart whose title starts with `start`, as Plotly JSON."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    (found,) = [s for s in specs if s["layout"].get("title", {}).get("text", "").startswith(start)]
    return found


def test_gradient_heatmaps_match_the_core_and_the_mask():
    at = backprop()
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    G = np.random.default_rng(0).standard_normal((1, 6, 4))[0]
    dh, mask, dh_pre = (decode(t["z"]) for t in traces(at, 0))  # the first figure's three maps
    np.testing.assert_array_equal(mask, (h_pre > 0).astype(float))
    np.testing.assert_allclose(dh, G @ w["W2"].T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dh_pre, (G @ w["W2"].T) * (h_pre > 0), rtol=1e-5, atol=1e-6)
    dW2 = decode(chart_titled(at, "dW2 = ")["data"][0]["z"])
    np.testing.assert_allclose(dW2, relu(h_pre).T @ G, rtol=1e-5, atol=1e-5)


def test_the_first_figure_holds_back_dh_pre_until_the_silent_neuron_question_is_answered():
    """The question: a neuron silent on the first token, outlined; its share of dW1. Before
    the guess the figure draws dh and the gate and leaves dh_pre blank, its words say so,
    and nothing made from dh_pre (dW1, db1, dx) nor the notice that answers it is shown.
    After: dh_pre is drawn, exactly 0 in the outlined cell, and the notice is said."""
    at = open_page(BACKPROP)
    x, w = expected_default_model()
    h_pre = x @ w["W1"] + w["b1"]
    j = int(np.flatnonzero(h_pre[0] <= 0)[0])  # the first silent neuron on the first token
    (question,) = [r for r in at.radio if r.key == "guess_dw1"]
    assert f"neuron n{j + 1} scores" in question.label and "(outlined)" in question.label
    first = json.loads(at.get("plotly_chart")[0].proto.spec)
    (outline,) = first["layout"]["shapes"][:1]
    assert (outline["x0"], outline["y0"]) == (j - 0.5, -0.5)
    assert np.isnan(decode(first["data"][2]["z"])).all()  # dh_pre: not drawn
    assert np.isnan(decode(first["data"][1]["z"])).all()  # nor the gate: its 0 would answer
    assert "smallest 0" not in first["layout"]["meta"]["alt"]
    words = " ".join(t.value for t in at.text)
    assert "dh_pre = dh × that slope: held back until the answer." in words
    said = " ".join(e.value for e in [*at.caption, *at.markdown, *at.success, *at.error])
    assert "no gradient reaches" not in said and "exactly zero" not in said
    assert "0 or 1" not in said  # the gate's values, said in words
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert not [t for t in titles if t.startswith(("dW1", "db1", "dx"))]
    at.radio(key="guess_dw1").set_value("exactly zero").run()
    dh_pre = decode(traces(at, 0)[2]["z"])
    assert dh_pre[0, j] == 0 and np.isfinite(dh_pre).all()
    assert "no gradient reaches that neuron's key" in " ".join(c.value for c in at.caption)
    assert chart_titled(at, "dW1 = ") and chart_titled(at, "dx = ")


MAPS = [
    ("ReLU", "dh_pre = dh × gate", "gate"),
    ("GELU", "dh_pre = dh × GELU'(h_pre)", "slope"),
    ("Squared ReLU", "dh_pre = dh × Squared ReLU'(h_pre)", "slope"),
]


def test_squared_relu_asks_of_its_silent_neuron_and_its_check_passes():
    """Squared ReLU is exactly 0, slope too, at and below 0: the page asks the same question
    of its silent neuron, holds back its slope, then says dh_pre is 0 there; its slope
    2 · max(0, h_pre) has no jump, so no kink to put a score on, and the check passes."""
    at = open_page(BACKPROP, {"act": "Squared ReLU"})
    (question,) = [r for r in at.radio if r.key == "guess_dw1"]
    assert "so Squared ReLU passes nothing" in question.label
    first = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "<b>Squared ReLU's slope at h_pre</b>" in [
        a["text"] for a in first["layout"]["annotations"]
    ]
    assert np.isnan(decode(first["data"][1]["z"])).all()  # its slope: held back
    at = backprop({"act": "Squared ReLU"})
    captions = " ".join(c.value for c in at.caption)
    assert "dh_pre is zero wherever h_pre ≤ 0" in captions
    assert "bends smoothly through 0" in captions
    assert not [t for t in at.toggle if t.key == "kink"]
    assert max(check_table(at).values()) < 1e-6
    assert any("2 · max(0, z) = 0" in verdict.value for verdict in at.success)


@pytest.mark.parametrize(("act", "third", "bar"), MAPS)
def test_each_map_is_named_for_what_it_shows(act, third, bar):
    """The gate map's colour bar says gate (ReLU) or slope, not gradient; under GELU the
    third map multiplies by GELU's slope, not a gate; each weight map's bar names it."""
    at = backprop({"act": act})
    first = json.loads(at.get("plotly_chart")[0].proto.spec)
    bars = [t.get("colorbar", {}).get("title", {}).get("text") for t in first["data"]]
    assert bars == ["dh", bar, "dh_pre"]
    panels = [a["text"] for a in first["layout"]["annotations"]]
    assert f"<b>{third}</b>" in panels
    dW1 = chart_titled(at, "dW1 = ")
    assert dW1["data"][0]["colorbar"]["title"]["text"] == "dW1"


def column_entry(text: str, neuron: int) -> float:
    """The entry the page reads off dW1's column for n`neuron`: the bold number after it."""
    said = re.search(rf"dW1 column for n{neuron}: [^*]*\*\*(−?-?[\d.e+-]+)\*\*", text)
    return float(said.group(1).replace("−", "-"))


def test_a_silent_neuron_passes_no_gradient():
    at = backprop({"nudge_w": "-1.0"})
    text = " ".join(m.value for m in at.markdown)
    assert column_entry(text, 3) == 0
    assert "differs from the loss at s = 0 by **0**" in text


def test_at_the_lesson_preset_the_neuron_on_the_kink_is_the_exercise_and_fires_when_moved():
    """x = [1, −1] against keys [1, 1] and [1, −1]: n1 scores exactly 0, which ReLU passes
    as 0. Moved up by s = 1.5 it fires: dW1's column is x · dh_1 (dh = dout · W2ᵀ, W2 = I),
    and the loss L = out · dout grows by 1.5 · dout_1."""
    at = backprop({"loss": "typed in", "dout": "3 -2", "nudge_w": "1.5"})
    click(at, "Lesson")
    at.radio(key="guess_dw1").set_value("exactly zero").run()  # a new neuron: asked again
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "Neuron n1 scores exactly 0 on the first token: it sits on ReLU's kink" in text
    assert "Every neuron" not in " ".join(i.value for i in at.info)
    x, dout = np.array([1.0, -1.0]), np.array([3.0, -2.0])
    column = x * (dout @ np.eye(2).T)[0]  # the gate is open at score 1.5
    assert "At s = 1.5 (score 1.5)" in text
    assert column_entry(text, 1) == column[np.argmax(np.abs(column))]  # signed, as it is
    assert f"differs from the loss at s = 0 by **{1.5 * dout[0]:.4g}**" in text


def test_typed_dout_is_checked():
    at = open_page(BACKPROP, {"loss": "typed in", "dout": "1 2 x"})
    assert "Could not use that row" in warnings_text(at)
    at = open_page(BACKPROP, {"loss": "typed in", "dout": "0 0 0 1"})
    assert not at.warning


def test_too_large_for_brute_force_says_so():
    at = backprop({"d_model": "64", "d_ff": "256"})
    assert "check runs one entry at a time up to 2,000 entries" in warnings_text(at)


def test_the_precision_question_comes_before_the_check_and_says_why():
    at = open_page(BACKPROP)
    assert not [d for d in at.dataframe if "max relative error" in d.value.columns]
    at.radio(key="guess_precision").set_value("about 10⁻⁷ in both").run()
    assert "float32 keeps about 7, so the same nudge is lost" in at.error[0].value
    assert check_table(at)  # the check that settles it, drawn after the guess
    heading = [h.value for h in at.subheader if h.value.startswith("3.")]
    assert heading == ["3. Gradient check against centred differences"]  # not "float64" only


def test_the_precision_answer_holds_for_the_table_it_reveals_and_the_table_says_what_it_shows():
    """The answer's bounds against the page's own float64 and float32 tables, and the why's
    words."""
    at = open_page(BACKPROP)
    at.radio(key="guess_precision").set_value("about 10⁻⁷ in both").run()
    why = at.error[0].value
    assert "measures the slope to about 10⁻⁷" not in why and "about 10⁻¹⁰" in why
    float64 = check_table(at)
    assert max(float64.values()) <= 1e-6
    at.toggle(key="f32").set_value(True).run()
    assert max(check_table(at).values()) >= 1e-2
    caption = " ".join(c.value for c in at.caption)
    assert "Max relative error: the largest, over a quantity's entries, of" in caption
    assert "1 means they disagree completely: opposite signs, or one of them 0" in caption


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
    spec = chart_titled(at, "too large an ε")
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


def test_a_score_already_on_the_kink_is_named_under_the_check():
    at = backprop()
    click(at, "Lesson")  # the sidebar's lesson: x = [1, −1], so neuron 1 scores exactly 0
    captions = " ".join(c.value for c in at.caption)
    assert "1 of the 2 scores h_pre is within ε of ReLU's kink at 0 already" in captions
    assert max(check_table(at).values()) > 1e-4  # and the check does report a large error
    assert "kink at 0 already" not in " ".join(c.value for c in backprop().caption)


def test_halving_the_hidden_width_is_asked_then_counted():
    """From 4C to 2C: parameters 2CH + H + C, forward FLOPs 2 matrices × 2·N·C·H over the
    batch's N tokens, and dW1's shape (C, H), each counted here by hand."""
    at = open_page(BACKPROP)
    C, N = 4, 6  # the default model: d_model 4, one sequence of six tokens
    question = at.radio(key="guess_width")
    assert "from 4C to 2C" in question.label and "(here 16 to 8 neurons)" in question.label
    assert not [d for d in at.dataframe if "dW1's shape" in d.value.columns]
    question.set_value("only the number of neurons changes").run()
    (table,) = [d.value for d in at.dataframe if "dW1's shape" in d.value.columns]
    for H, row in zip((16, 8), table.itertuples(), strict=True):
        assert row.parameters == 2 * C * H + H + C
        assert row[2] == 2 * (2 * N * C * H)
        assert row[3] == f"({C}, {H})"
    assert at.error[0].value.startswith("Not this time: the answer is parameters and FLOPs about")


MARK = 1000.0  # added to every step the core hands over: a page that recomputes misses it


@pytest.mark.parametrize("act", ["ReLU", "SwiGLU"])
def test_the_steps_shown_are_the_core_s_own_not_computed_on_the_page(monkeypatch, act):
    """Backprop draws dh, the slope and dh_pre (SwiGLU: da, dup, dgate) as the core's
    backward pass made them: marked here, the first figure shows the mark."""
    import ffn_core
    import ffn_ui.parts.backprop_gated as gated
    from ffn_core.ffn import FFNSteps
    from ffn_core.swiglu import SwiGLUSteps

    core_steps, core_gated = ffn_core.ffn_backward_steps, gated.swiglu_steps

    def marked(dout, cache, keep=True):
        s = core_steps(dout, cache, keep)
        return FFNSteps(
            s.dx, s.dW1, s.db1, s.dW2, s.db2, s.dh + MARK, s.slope + MARK, s.dh_pre + MARK
        )

    def marked_gated(dout, cache):
        s = core_gated(dout, cache)
        return SwiGLUSteps(s.dout2d, s.da + MARK, s.slope, s.dup + MARK, s.dgate + MARK, s.dx)

    monkeypatch.setattr(ffn_core, "ffn_backward_steps", marked)
    monkeypatch.setattr(gated, "swiglu_steps", marked_gated)
    at = backprop({"act": act})
    assert not at.exception
    shown = [decode(t["z"]) for t in traces(at, 0)]
    steps = [0, 1, 2] if act == "ReLU" else [0, 2, 3]  # SwiGLU's second map is the cache's silu
    for i in steps:
        assert np.nanmin(shown[i]) > MARK / 2, i  # every cell carries the mark

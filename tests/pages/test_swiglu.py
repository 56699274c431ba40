"""SwiGLU as the sidebar's FFN, on every toy page, in AppTest: each number a page shows is
read back and recomputed here from the formula (silu(x·W_gate) ⊙ (x·W_up) · W_down, with
SiLU written out), not through the page's own code."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import (
    ACTIVATIONS,
    BACKPROP,
    COLLAPSE,
    KEY_VALUE,
    MEMORY,
    MOE,
    NEURONS,
    POSITION_WISE,
    SCALE,
    TRAPS,
    bound_keys,
    chart_traces,
    click,
    heatmap,
    link_noted,
    npz_bytes,
    open_page,
    warnings_text,
)
from streamlit.testing.v1 import AppTest

from ffn_core.init import init_weights
from ffn_core.tokens import embed_words
from ffn_ui.controls.url import REGISTRY_KEY
from ffn_ui.page.files import apply_upload
from harness.protocol import decode

pytestmark = pytest.mark.usefixtures("fresh_caches")

SWIGLU = {"act": "SwiGLU"}
WORDS = ["the", "cat", "sat", "on", "the", "mat"]
TOY_PAGES = [NEURONS, KEY_VALUE, ACTIVATIONS, COLLAPSE, POSITION_WISE, BACKPROP, TRAPS, SCALE,
             MOE, MEMORY]  # fmt: skip


def silu(z):
    return z / (1.0 + np.exp(-z))


def default_swiglu(d_model=4, d_ff=16, seed=0):
    """x and SwiGLU's weights at the sidebar's defaults, rebuilt from the core's init."""
    return embed_words(WORDS, d_model), init_weights(d_model, d_ff, "normal", seed, gated=True)


def said(at: AppTest) -> str:
    """Everything the page says in text: markdown, captions, notes and verdicts."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in [*at.info, *at.warning, *at.success, *at.error]]
    return "\n".join(parts)


def answer(at: AppTest, key: str, option: str) -> AppTest:
    return at.radio(key=key).set_value(option).run()


# --- the sidebar: the choice, the matched width, the weights -----------------------------


def test_swiglu_is_an_ffn_of_the_sidebar_bound_to_the_address():
    at = open_page(NEURONS, SWIGLU)
    assert not at.exception
    ffn = at.sidebar.selectbox(key="act")
    assert ffn.label == "FFN" and "SwiGLU" in ffn.options and ffn.value == "SwiGLU"
    assert at.session_state["act"] == "SwiGLU"


@pytest.mark.parametrize(("d_model", "d_ff"), [(4, 11), (9, 24), (768, 2048)])
def test_the_eight_thirds_button_sets_the_matched_width_and_says_why(d_model, d_ff):
    at = open_page(NEURONS, {**SWIGLU, "d_model": str(d_model)})
    at = click(at, "d_ff = 8/3 × d_model, for SwiGLU")
    assert at.sidebar.number_input(key="d_ff").value == d_ff == math.ceil(8 * d_model / 3)
    caption = " ".join(c.value for c in at.sidebar.caption)
    how = "rounded up" if 8 * d_model % 3 else "exactly"  # 8/3 × 9 is 24 exactly
    assert f"at d_ff = 8/3 × d_model ({d_ff}, {how})" in caption
    assert "three matrices where the plain FFN has two" in caption
    assert 3 * d_model * d_ff >= 2 * d_model * 4 * d_model  # about as many weights, not fewer


def test_random_swiglu_weights_are_the_cores_and_the_page_runs_on_them():
    x, w = default_swiglu()
    at = open_page(NEURONS, {**SWIGLU, "guess_fire": "about half"})  # the grid's reveal
    a = silu(x @ w["W_gate"]) * (x @ w["W_up"])  # (T, d_ff)
    np.testing.assert_allclose(decode(heatmap(at)["z"]), a, rtol=1e-6, atol=1e-7)


def test_hand_edited_swiglu_weights_are_three_tables_and_an_edit_changes_the_output():
    at = open_page(KEY_VALUE, {**SWIGLU, "init": "hand-edited"})
    assert not at.exception
    for name in ("W_gate", "W_up", "W_down"):
        assert f"edit_{name}_1" in at.session_state
    assert "edit_W1_1" not in at.session_state and "edit_b1_1" not in at.session_state
    captions = " ".join(c.value for c in at.caption)
    assert "W_gate (d_model × d_ff): column j opens neuron j's gate" in captions
    before = np.array(at.session_state["hand_weights"]["W_down"])
    at.session_state["edit_W_down_1"] = {
        "edited_rows": {0: {"out1": 5.0}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    after = at.session_state["hand_weights"]["W_down"]
    assert after[0, 0] == 5.0 and np.array_equal(np.delete(after, 0), np.delete(before, 0))
    assert "w" in at.query_params  # the link carries the three tables


def test_a_swiglu_file_switches_the_ffn_and_a_plain_one_switches_it_back():
    state = {"act": "ReLU"}
    gated = init_weights(3, 5, "normal", 1, gated=True)
    apply_upload(state, "llama.npz", npz_bytes(**gated))
    assert state["act"] == "SwiGLU" and state["d_model"] == 3 and state["d_ff"] == 5
    assert state["upload_result"][1].startswith("Loaded `llama.npz`: SwiGLU, d_model 3, d_ff 5")
    assert "the FFN is now SwiGLU, as the file's weights are" in state["upload_result"][1]
    apply_upload(state, "gpt.npz", npz_bytes(**init_weights(3, 5, "normal", 1)))
    assert state["act"] == "ReLU" and "the FFN is now ReLU" in state["upload_result"][1]


def test_uploaded_swiglu_weights_run_on_the_page():
    weights = init_weights(4, 6, "normal", 5, gated=True)
    at = AppTest.from_file("../../app.py", default_timeout=30)
    apply_upload(at.session_state, "w.npz", npz_bytes(**weights))
    at.session_state["guess_fire"] = "about half"  # the grid's values wait for a guess
    at.switch_page(NEURONS).run()
    assert not at.exception and at.session_state["act"] == "SwiGLU"
    x = embed_words(WORDS, 4)
    a = silu(x @ weights["W_gate"]) * (x @ weights["W_up"])
    np.testing.assert_allclose(decode(heatmap(at)["z"]), a, rtol=1e-6, atol=1e-7)


# --- Neurons -------------------------------------------------------------------------------


def test_neurons_shows_product_gate_and_up_and_counts_firing_by_size():
    x, w = default_swiglu()
    gate, up = x @ w["W_gate"], x @ w["W_up"]
    a = silu(gate) * up
    at = open_page(NEURONS, SWIGLU)
    assert at.radio(key="view").options == ["product", "gate", "up"]
    assert "look at its size |silu(gate) · up|, and at its sign" in said(at)
    assert "silent" not in said(at)  # that nothing is silent is the question's answer
    question = at.radio(key="guess_fire")
    assert "with |silu(gate) · up| above 0" in question.label
    at = answer(at, "guess_fire", "more than two thirds")
    assert f"{int(np.sum(np.abs(a) > 0))} of 96 fired" in said(at)  # all: never exactly 0
    assert "exactly 0 only where the gate or up is exactly 0" in said(at)
    at = at.slider(key="thr").set_value(0.2).run()  # a new count: the question asks again
    at = answer(at, "guess_fire", "fewer than a third")
    counts = [int(v) for v in decode(chart_traces(at)[1][0]["y"])]
    assert counts == np.sum(np.abs(a) > 0.2, axis=1).tolist()
    for view, values in (("gate", gate), ("up", up)):
        at = at.radio(key="view").set_value(view).run()
        np.testing.assert_allclose(decode(heatmap(at)["z"]), values, rtol=1e-6, atol=1e-7)


def test_neurons_closer_look_names_gate_silu_up_and_the_sign_of_the_write():
    x, w = default_swiglu()
    g, u = float(x[1] @ w["W_gate"][:, 2]), float(x[1] @ w["W_up"][:, 2])
    at = open_page(NEURONS, {**SWIGLU, "tok": "2: cat", "neuron": "n3"})
    text = said(at)
    assert f"gate to **{g:.4g}** (silu gives {silu(g):.4g})" in text
    assert f"scores **{u:.4g}** on its up key" in text
    way = "forward" if silu(g) * u > 0 else "backward"
    a = silu(g) * u
    assert f"silu(gate) · up = **{a:.4g}**, so it writes {a:.4g} × its value" in text
    assert f"(its row of W_down), {way}" in text


# --- Key–value memory ----------------------------------------------------------------------


def test_key_value_writes_add_up_and_a_closed_gate_still_writes_a_little_the_other_way():
    x, w = default_swiglu()
    at = open_page(KEY_VALUE, SWIGLU)
    assert not at.exception and "there is no b2" in said(at)
    gate, up = x[0] @ w["W_gate"], x[0] @ w["W_up"]  # the first token
    a = silu(gate) * up
    closed = np.flatnonzero(gate <= 0)
    k = int(closed[np.argmax(np.abs(a[closed]))])
    question = at.radio(key="guess_kv_gate")
    assert f"n{k + 1}'s gate is {gate[k]:.3g}" in question.label
    assert f"its up score is {up[k]:.3g}" in question.label
    at = answer(at, "guess_kv_gate", "a little, against its up's sign")
    assert f"flipped: silu({gate[k]:.3g}) = {silu(gate[k]):.3g}" in said(at)
    assert np.sign(a[k]) == -np.sign(up[k])  # a closed gate flips up's sign
    # the writes chart: its blocks and the output it draws
    out = a @ w["W_down"]
    writes = next(c for c in chart_traces(at) if c[-1].get("name") == "output (the sum)")
    drawn = decode(writes[-1]["y"])
    np.testing.assert_allclose(drawn, out, rtol=1e-5, atol=1e-6)
    blocks = sum(decode(t["y"]) for t in writes if t["type"] == "bar")
    np.testing.assert_allclose(blocks, out, rtol=1e-5, atol=1e-6)


# --- Collapse ------------------------------------------------------------------------------


def test_collapse_asks_then_shows_the_bilinear_map_missing_its_best_matrix_as_the_square():
    x, w = default_swiglu()
    at = open_page(COLLAPSE, SWIGLU)
    assert len([c for c in chart_traces(at) if not c]) == 1  # the first figure: no misses yet
    assert not [t for c in chart_traces(at) for t in c if "miss" in t.get("name", "")]
    assert "largest miss at 5 input sizes, from 0.25 to 4 times the tokens': held back" in (
        " ".join(t.value for t in at.text)
    )  # its words say so, and give no miss
    assert "polynomial" not in said(at)  # nor does section 2, which would give it away
    at = answer(at, "guess_bilinear", "no")
    assert "a polynomial of degree 2^L in x" in said(at)
    # recomputed here: least squares by hand on the page's inputs
    size = float(np.sqrt(np.mean(x**2)))
    Z = np.random.default_rng(0).standard_normal((512, 4)) * size

    def gap(s):
        X = s * Z
        F = (X @ w["W_gate"]) * (X @ w["W_up"]) @ w["W_down"]
        design = np.column_stack([X, np.ones(len(X))])
        coef = np.linalg.lstsq(design, F, rcond=None)[0]
        return np.abs(F - design @ coef).max()

    assert f"misses it by {gap(1.0):.3g} on inputs the size of these tokens" in said(at)
    assert f"by {gap(2.0):.3g} on inputs twice as large" in said(at)
    (figure,) = [c for c in chart_traces(at) if any("largest miss" in t.get("name", "") for t in c)]
    misses = decode(figure[0]["x"]), decode(figure[0]["y"])
    np.testing.assert_allclose(misses[1], [gap(s) for s in misses[0]], rtol=1e-5)
    np.testing.assert_allclose(misses[1] / misses[1][2], misses[0] ** 2, rtol=1e-5)


def test_collapse_trains_swiglu_without_silu_on_xor_and_it_fits():
    at = open_page(COLLAPSE, {**SWIGLU, "guess_gated": "yes"})
    at = answer(at, "guess_gated", "yes")
    verdict = said(at)
    assert "Right: without SiLU the gated FFN is (x·W_gate) ⊙ (x·W_up)·W_down" in verdict
    titles = [json_title(c) for c in at.get("plotly_chart")]
    assert any(t.startswith("SwiGLU without SiLU: accuracy") for t in titles), titles


def json_title(chart) -> str:
    import json

    layout = json.loads(chart.proto.spec)["layout"]
    title = layout.get("title", {})
    return title.get("text", "") if isinstance(title, dict) else str(title)


# --- Backprop ------------------------------------------------------------------------------


def test_backprop_checks_every_swiglu_gradient_and_shows_their_shapes():
    query = {**SWIGLU, "d_model": "3", "d_ff": "5", "tokens": "random", "T": "2", "B": "2"}
    at = open_page(BACKPROP, query)
    assert not at.exception
    shapes = at.dataframe[0].value
    expected = {"W_gate": (3, 5), "W_up": (3, 5), "W_down": (5, 3), "x": (2, 2, 3)}
    for name, shape in expected.items():
        assert shapes.loc[name, "shape"] == shapes.loc[name, "gradient shape"] == str(shape)
    at = answer(at, "guess_precision", "10⁻⁶ or smaller in float64, 10⁻² or worse in float32")
    errors = at.dataframe[-1].value["max relative error"]
    assert list(errors.index) == ["W_gate", "W_up", "W_down", "x"]
    assert errors.max() < 1e-6
    at = at.toggle(key="f32").set_value(True).run()
    assert at.dataframe[-1].value["max relative error"].max() > 1e-3
    assert "ReLU's, whose silent neurons" in said(at)


# --- Scale & cost, Position-wise, Mixture of experts, Traps, Memory lab, Activations ------


def test_scale_and_cost_counts_swiglu_at_the_matched_width_against_the_plain_ffn():
    at = open_page(SCALE, {**SWIGLU, "d_model": "12"})
    at = answer(at, "guess_share", "about two thirds")
    at = answer(at, "guess_swiglu_cost", "about the same")
    table = at.dataframe[-1].value
    plain, gated = table.loc["plain FFN, 4 × d_model"], table.loc["SwiGLU, 8/3 × d_model"]
    assert (plain["d_ff"], gated["d_ff"]) == (48, 32)
    assert plain["weights"] == 2 * 12 * 48 and gated["weights"] == 3 * 12 * 32
    assert plain["FLOPs per token"] == 2 * 2 * 12 * 48 == gated["FLOPs per token"]
    text = said(at)
    assert "Llama 2 7B's d_ff, 11,008, is 8/3 × 4,096 = 10,923 rounded up" in text
    assert "Llama-style SwiGLU blocks, with no biases and RMSNorm" in text
    yours = at.dataframe[0].value.loc["your model"]
    assert yours["FFN"] == "swiglu" and yours["FFN params / block"] == 3 * 12 * 16  # no biases


def test_position_wise_with_swiglu_changes_only_the_nudged_token():
    at = open_page(POSITION_WISE, {**SWIGLU, "guess_rows_moved": "only its own row"})
    at = answer(at, "guess_rows_moved", "only its own row")
    assert not at.exception
    metric = next(m for m in at.metric if m.label.startswith("largest change in the other"))
    assert float(metric.value) == 0.0
    assert "1.5 × d_ff" in said(at)  # SwiGLU's three matrices move attention's crossover


def test_mixture_of_experts_runs_swiglu_experts():
    from ffn_ui.shared_arrays import experts_and_router

    at = open_page(MOE, SWIGLU)
    assert not at.exception and "SwiGLU experts, as Mixtral's" in said(at)
    experts, _ = experts_and_router(4, 16, 8, 0, gated=True)
    assert set(experts[0]) == {"W_gate", "W_up", "W_down"}


def test_traps_and_memory_lab_say_what_they_run_with_swiglu():
    at = open_page(TRAPS, SWIGLU)
    assert not at.exception and "section 3 runs the sidebar's SwiGLU" in said(at)
    at = open_page(MEMORY, SWIGLU)
    assert not at.exception and "it bends with SiLU" in said(at)


def test_activations_adds_swiglu_s_row_on_the_gate_and_up_scores():
    x, w = default_swiglu()
    at = open_page(ACTIVATIONS, {**SWIGLU, "guess_dead": "no, the same"})
    at = answer(at, "guess_dead", at.radio(key="guess_dead").options[1])
    stats = at.dataframe[-1].value
    a = silu(x @ w["W_gate"]) * (x @ w["W_up"])
    assert stats.loc["SwiGLU", "positive (h > 0)"] == pytest.approx(np.mean(a > 0))
    assert stats.loc["SwiGLU", "negative (h < 0)"] == pytest.approx(np.mean(a < 0))
    assert stats.loc["SwiGLU", "dead neurons"] == 0
    plain = open_page(ACTIVATIONS)
    assert "SwiGLU has no row" in said(plain)


# --- every link into a SwiGLU page is checked ------------------------------------------


@pytest.mark.parametrize("bad", ["abc", "inf", "x" * 400])
def test_bad_link_values_on_every_toy_page_with_swiglu_get_notes_and_no_exception(bad):
    for (page, variant), keys in bound_keys().items():
        if page not in [None, *TOY_PAGES]:
            continue
        fuzzed = {key: bad for key, _ in keys if key != "act"}
        at = open_page(page, {**dict(variant), **fuzzed, **SWIGLU})
        assert not at.exception, (page, bad)
        drawn, text = at.session_state[REGISTRY_KEY], warnings_text(at)
        for key in fuzzed:
            if key in drawn and drawn[key][0] != "text":  # a long text is cut, not refused
                assert link_noted(text, key, bad) or _accepted(drawn[key], bad), (page, key)


def _accepted(rule: tuple, raw: str) -> bool:
    if rule[0] == "number":
        try:
            value = int(raw) if rule[3] else float(raw)
        except ValueError:
            return False
        return math.isfinite(value) and rule[1] <= value <= rule[2]
    return rule[0] == "choice" and raw in rule[1]

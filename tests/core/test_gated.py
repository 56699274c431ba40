"""The gated FFN as a model the toy runs: SwiGLU and the bilinear map left without its SiLU,
through ffn_core.forms, against loops, finite differences and closed forms, on non-square
shapes (d_model ≠ d_ff) so that no transpose can hide."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import SCALAR_ACTIVATIONS, numerical_grad

import ffn_core.forms
from ffn_core.analysis import affine_fit_gap
from ffn_core.forms import is_gated, run, run_backward, weight_shapes, writes
from ffn_core.gradcheck import check_form
from ffn_core.init import init_weights
from ffn_core.lessons.training import make_task, train_ffn
from ffn_core.swiglu import swiglu_forward
from ffn_core.weights_io import weights_from_file, weights_to_json, weights_to_npz

SHAPES = [((5,), 3, 7), ((2, 4), 6, 4), ((1,), 1, 5)]  # (leading axes, d_model, d_ff)


def loop_gated(x, W_gate, W_up, W_down, gate):
    """The gated FFN with explicit loops over positions, neurons and coordinates."""
    g_fn = SCALAR_ACTIVATIONS[gate]
    C, H = W_gate.shape
    rows = x.reshape(-1, C)
    out = np.zeros_like(rows)
    for n, row in enumerate(rows):
        a = [
            g_fn(sum(row[c] * W_gate[c, j] for c in range(C)))
            * sum(row[c] * W_up[c, j] for c in range(C))
            for j in range(H)
        ]
        for c in range(C):
            out[n, c] = sum(a[j] * W_down[j, c] for j in range(H))
    return out.reshape(x.shape)


@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
@pytest.mark.parametrize(("ffn", "gate"), [("swiglu", "silu"), ("bilinear", "identity")])
def test_both_gated_forms_match_loops(rng, lead, d_model, d_ff, ffn, gate):
    weights = init_weights(d_model, d_ff, "normal", seed=3, gated=True)
    x = rng.standard_normal((*lead, d_model))
    out, _ = run(x, weights, ffn)
    expected = loop_gated(x, weights["W_gate"], weights["W_up"], weights["W_down"], gate)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
@pytest.mark.parametrize("ffn", ["swiglu", "bilinear", "gelu"])
def test_the_backward_of_either_form_matches_float64_centred_differences(
    rng, lead, d_model, d_ff, ffn
):
    weights = init_weights(d_model, d_ff, "normal", seed=4, gated=is_gated(ffn))
    x = rng.standard_normal((*lead, d_model))
    G = rng.standard_normal(x.shape)

    def loss():
        return float(np.sum(run(x, weights, ffn)[0] * G))

    dx, grads = run_backward(G, run(x, weights, ffn)[1])
    assert set(grads) == set(weight_shapes(ffn, d_model, d_ff))
    np.testing.assert_allclose(dx, numerical_grad(loss, x), rtol=1e-6, atol=1e-8)
    for name, grad in grads.items():
        assert grad.shape == weights[name].shape == weight_shapes(ffn, d_model, d_ff)[name]
        np.testing.assert_allclose(grad, numerical_grad(loss, weights[name]), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("ffn", ["swiglu", "bilinear", "relu"])
def test_each_neuron_writes_its_coefficient_times_its_value_row(rng, ffn):
    d_model, d_ff = 3, 7
    weights = init_weights(d_model, d_ff, "xavier", seed=5, gated=is_gated(ffn))
    x = rng.standard_normal((4, d_model))
    w = writes(x, weights, ffn)
    assert w.coefficient.shape == (4, d_ff) and w.values.shape == (d_ff, d_model)
    by_neuron = w.coefficient[:, :, None] * w.values[None]  # (4, d_ff, d_model)
    np.testing.assert_allclose(by_neuron.sum(axis=1) + w.bias, w.out, atol=1e-12)
    if is_gated(ffn):  # the coefficient is g(gate) · up, from the formula
        gate, up = x @ weights["W_gate"], x @ weights["W_up"]
        g = gate / (1 + np.exp(-gate)) if ffn == "swiglu" else gate
        np.testing.assert_allclose(w.coefficient, g * up, atol=1e-12)
        assert (w.coefficient < 0).any()  # signed: up gives a neuron's write its sign


def test_gated_initial_weights_have_swiglu_s_names_shapes_and_scale():
    weights = init_weights(64, 48, "normal", seed=1, gated=True)
    assert {n: w.shape for n, w in weights.items()} == weight_shapes("swiglu", 64, 48)
    assert weight_shapes("swiglu", 64, 48) == {
        "W_gate": (64, 48),
        "W_up": (64, 48),
        "W_down": (48, 64),
    }
    # N(0, 1/fan_in): variance 1/64 for W_gate and W_up, 1/48 for W_down
    assert np.var(weights["W_gate"]) == pytest.approx(1 / 64, rel=0.1)
    assert np.var(weights["W_down"]) == pytest.approx(1 / 48, rel=0.1)
    assert not np.allclose(weights["W_gate"], weights["W_up"])  # two different keys
    bound = np.sqrt(6 / (64 + 48))
    xavier = init_weights(64, 48, "xavier", seed=1, gated=True)
    assert all(np.abs(w).max() <= bound for w in xavier.values())


@pytest.mark.parametrize("to_bytes, name", [(weights_to_npz, "w.npz"), (weights_to_json, "w.json")])
def test_gated_weights_go_out_and_come_back_by_their_own_names(to_bytes, name):
    weights = init_weights(3, 5, "normal", seed=2, gated=True)
    back = weights_from_file(to_bytes(weights), name)
    assert list(back) == ["W_gate", "W_up", "W_down"]
    for key, value in weights.items():
        np.testing.assert_array_equal(back[key], value)
    if name.endswith(".json"):
        assert "W_gate and W_up are (d_model, d_ff)" in json.loads(to_bytes(weights))["orientation"]


def test_a_gated_file_with_a_wrong_shape_or_a_plain_name_mixed_in_is_refused():
    weights = init_weights(3, 5, "normal", seed=2, gated=True)
    bad_up = {**weights, "W_up": weights["W_up"].T}
    with pytest.raises(ValueError, match=r"W_up has shape \(5, 3\), expected \(3, 5\)"):
        weights_from_file(weights_to_npz(bad_up), "w.npz")
    mixed = {**{k: v.tolist() for k, v in weights.items()}, "b1": [0, 0, 0, 0, 0]}
    with pytest.raises(ValueError, match=r"unexpected arrays b1; a file holds only W1"):
        weights_from_file(json.dumps(mixed).encode(), "w.json")
    missing = {k: v.tolist() for k, v in weights.items() if k != "W_down"}
    with pytest.raises(ValueError, match=r"missing W_down"):
        weights_from_file(json.dumps(missing).encode(), "w.json")


def test_a_gated_upload_counts_its_three_matrices_against_the_cap():
    # 3 × 128 × 700 = 268,800 numbers: over 2^18 = 262,144, where W1 and W2 would fit
    weights = {n: np.zeros(s) for n, s in weight_shapes("swiglu", 128, 700).items()}
    with pytest.raises(ValueError, match=r"W_gate, W_up and W_down hold 268,800 numbers"):
        weights_from_file(weights_to_npz(weights), "big.npz")
    plain = {n: np.zeros(s) for n, s in weight_shapes("relu", 128, 700).items()}
    assert weights_from_file(weights_to_npz(plain), "ok.npz")["W1"].shape == (128, 700)


# --- the Collapse page's claim: without SiLU the gated FFN is bilinear, not one matrix ----


def test_without_silu_the_gated_ffn_is_bilinear_in_x(rng):
    """f(s·x) = s²·f(x), and f(x + y) = f(x) + f(y) + the cross terms: quadratic, exactly."""
    weights = init_weights(4, 9, "normal", seed=6, gated=True)
    x, y = rng.standard_normal((2, 5, 4))

    def f(z):
        return run(z, weights, "bilinear")[0]

    np.testing.assert_allclose(f(3.0 * x), 9.0 * f(x), rtol=1e-12, atol=1e-12)
    Wg, Wu, Wd = weights["W_gate"], weights["W_up"], weights["W_down"]
    cross = ((x @ Wg) * (y @ Wu) + (y @ Wg) * (x @ Wu)) @ Wd
    np.testing.assert_allclose(f(x + y), f(x) + f(y) + cross, atol=1e-12)


def test_the_best_single_matrix_misses_the_bilinear_map_by_a_gap_growing_as_the_square(rng):
    weights = init_weights(5, 12, "normal", seed=7, gated=True)
    Z = rng.standard_normal((300, 5))
    gaps = {s: affine_fit_gap(s * Z, run(s * Z, weights, "bilinear")[0]) for s in (0.5, 1, 2, 4)}
    assert gaps[1.0] > 0.5  # far from one matrix
    for s, gap in gaps.items():
        assert gap == pytest.approx(s**2 * gaps[1.0], rel=1e-8)
    plain = init_weights(5, 12, "normal", seed=7)  # the plain FFN with no bend: one matrix
    assert affine_fit_gap(4 * Z, run(4 * Z, plain, "identity")[0]) < 1e-12


def test_without_silu_the_gated_ffn_separates_xor_where_one_matrix_cannot():
    X, y = make_task("XOR", seed=0)
    bilinear = train_ffn(X, y, "classify", 4, "bilinear", 300, seed=0)
    linear = train_ffn(X, y, "classify", 4, "identity", 300, seed=0)
    assert bilinear.scores[-1] >= 0.95 > 0.7 > linear.scores[-1]
    # It computes the product x1·x2 that XOR is the sign of: no bend is needed.
    swiglu = train_ffn(X, y, "classify", 4, "swiglu", 300, seed=0)
    assert swiglu.scores[-1] >= 0.95


def test_the_gate_function_is_kept_for_the_backward_pass(rng):
    weights = init_weights(3, 4, "normal", seed=8, gated=True)
    x = rng.standard_normal((2, 3))
    _, cache = swiglu_forward(x, *weights.values(), gate_fn="identity")
    assert cache.gate_fn == "identity"
    np.testing.assert_array_equal(cache.s, cache.gate)  # no SiLU: the gate passes as it is


def test_the_gradient_check_of_swiglu_passes_in_float64_and_not_in_float32():
    weights = init_weights(3, 5, "normal", seed=9, gated=True)
    x = np.random.default_rng(9).standard_normal((2, 4, 3))
    errors = check_form(x, weights, "swiglu")
    assert list(errors) == ["W_gate", "W_up", "W_down", "x"]
    assert max(errors.values()) < 1e-6
    assert max(check_form(x, weights, "swiglu", dtype=np.float32).values()) > 1e-3


def test_the_gradient_check_catches_a_swiglu_backward_that_forgets_silu_s_slope(monkeypatch):
    weights = init_weights(3, 5, "normal", seed=10, gated=True)
    x = np.random.default_rng(10).standard_normal((4, 3))
    original = ffn_core.forms.swiglu_backward

    def forgets_the_slope(dout, cache):  # dgate without silu'(gate): as if the gate were linear
        dx, _, dW_up, dW_down = original(dout, cache)
        da = dout @ cache.W_down.T
        return dx, cache.x.T @ (da * cache.up), dW_up, dW_down

    monkeypatch.setattr(ffn_core.forms, "swiglu_backward", forgets_the_slope)
    errors = check_form(x, weights, "swiglu")
    assert errors["W_gate"] > 1e-2 and errors["W_up"] < 1e-6 and errors["W_down"] < 1e-6

"""The backward passes against finite differences written here, and the gradient checker."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_grad, random_ffn

import ffn_core.forms
import ffn_core.gradcheck
from ffn_core import (
    ACTIVATIONS,
    ffn_backward,
    ffn_backward_steps,
    ffn_forward,
    gradient_check,
    hidden,
    swiglu_backward,
    swiglu_forward,
)
from ffn_core.gradcheck import onto_kink
from ffn_core.swiglu import swiglu_steps

NAMES = list(ACTIVATIONS)
# 1-D, 2-D and 3-D inputs, every one with d_ff != d_model so a transpose cannot hide.
SHAPES = [((), 5, 3), ((4,), 3, 7), ((2, 4), 8, 32), ((2, 3), 6, 4)]


def away_from_relu_kink(rng, lead, d_model, d_ff, margin=1e-3):
    """Random weights and input with every pre-activation at least `margin` from zero."""
    while True:
        W1, b1, W2, b2 = random_ffn(rng, d_model, d_ff)
        x = rng.standard_normal((*lead, d_model))
        h_pre, _ = hidden(x, W1, b1)
        if np.abs(h_pre).min() > margin:
            return x, W1, b1, W2, b2


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
def test_backward_matches_independent_finite_differences(rng, name, lead, d_model, d_ff):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, lead, d_model, d_ff)
    G = rng.standard_normal((*lead, d_model))  # L = sum(out * G), so dL/dout = G

    def loss():
        return float(np.sum(ffn_forward(x, W1, b1, W2, b2, name)[0] * G))

    _, cache = ffn_forward(x, W1, b1, W2, b2, name)
    analytic = ffn_backward(G, cache)
    for grad, param in zip(analytic, (x, W1, b1, W2, b2), strict=True):
        assert grad.shape == param.shape
        np.testing.assert_allclose(grad, numerical_grad(loss, param), rtol=1e-6, atol=1e-8)


def test_weight_gradients_are_sums_of_per_position_outer_products(rng):
    # The lesson's shape: B=2, T=4, C=8, d_ff=32, summed with explicit loops.
    W1, b1, W2, b2 = random_ffn(rng, 8, 32)
    x = rng.standard_normal((2, 4, 8))
    out, cache = ffn_forward(x, W1, b1, W2, b2)
    dout = rng.standard_normal(out.shape)
    _, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
    eW1, eb1, eW2, eb2 = np.zeros_like(W1), np.zeros_like(b1), np.zeros_like(W2), np.zeros(8)
    for b in range(2):
        for t in range(4):
            h_pre = x[b, t] @ W1 + b1
            h = np.maximum(h_pre, 0)
            dh_pre = (W2 @ dout[b, t]) * (h_pre > 0)
            eW2 += np.outer(h, dout[b, t])
            eb2 += dout[b, t]
            eW1 += np.outer(x[b, t], dh_pre)
            eb1 += dh_pre
    for got, want in ((dW1, eW1), (db1, eb1), (dW2, eW2), (db2, eb2)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_single_position_takes_the_outer_product_path_and_agrees(rng):
    W1, b1, W2, b2 = random_ffn(rng, 6, 10)
    x = rng.standard_normal((1, 6))
    out, cache = ffn_forward(x, W1, b1, W2, b2)
    dout = rng.standard_normal(out.shape)
    _, dW1, _, dW2, _ = ffn_backward(dout, cache)
    # Duplicating the position with half the gradient each gives the same sums via matmul.
    _out2, cache2 = ffn_forward(np.vstack([x, x]), W1, b1, W2, b2)
    _, dW1_2, _, dW2_2, _ = ffn_backward(np.vstack([dout, dout]) / 2, cache2)
    np.testing.assert_allclose(dW1, dW1_2, rtol=1e-12)
    np.testing.assert_allclose(dW2, dW2_2, rtol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
def test_gradient_check_passes_below_1e_6(rng, name, lead, d_model, d_ff):
    # Squared ReLU's slope 2z is tiny for a score just above 0, and so is what its neuron
    # adds to dW1: a relative error of a tiny entry is its rounding, so keep scores off 0.
    margin = 0.05 if name == "relu_squared" else 1e-3
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, lead, d_model, d_ff, margin)
    errors = gradient_check(x, W1, b1, W2, b2, name)
    assert list(errors) == ["W1", "b1", "W2", "b2", "x"]
    assert max(errors.values()) < 1e-6, errors


def test_gradient_check_catches_a_broken_backward(rng, monkeypatch):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (3,), 4, 6)

    def backward_with_forgotten_mask(dout, cache):
        dx, _dW1, db1, dW2, db2 = ffn_backward(dout, cache)
        dh = dout @ cache.W2.T  # the gradient of h, not passed through the ReLU gate
        return dx, cache.x.T @ dh, db1, dW2, db2

    monkeypatch.setattr(ffn_core.forms, "ffn_backward", backward_with_forgotten_mask)
    errors = gradient_check(x, W1, b1, W2, b2)
    assert errors["W1"] > 1e-2
    assert errors["W2"] < 1e-6  # the rest is still right


def test_gradient_check_needs_float64(rng):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (4,), 5, 7)
    assert max(gradient_check(x, W1, b1, W2, b2).values()) < 1e-6
    # In float32 a nudge of 1e-6 is below the round-off of the loss itself.
    assert max(gradient_check(x, W1, b1, W2, b2, dtype=np.float32).values()) > 1e-2


def test_a_sampled_check_nudges_at_most_k_entries_of_each_quantity(rng, monkeypatch):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (2, 3), 4, 6)  # x 24, W1 24, b1 6, ...
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return ffn_forward(*args, **kwargs)

    monkeypatch.setattr(ffn_core.forms, "ffn_forward", counted)
    sampled = gradient_check(x, W1, b1, W2, b2, per_parameter=5)
    sizes = [W1.size, b1.size, W2.size, b2.size, x.size]
    assert len(calls) == 1 + 2 * sum(min(n, 5) for n in sizes)
    full = gradient_check(x, W1, b1, W2, b2)
    assert all(sampled[name] <= full[name] + 1e-15 for name in full)
    assert gradient_check(x, W1, b1, W2, b2, per_parameter=100) == full  # all fit


def test_a_sampled_check_still_catches_an_error_everywhere_in_a_quantity(rng, monkeypatch):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (3,), 4, 6)

    def backward_scaling_dW2(dout, cache):
        dx, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
        return dx, dW1, db1, 1.1 * dW2, db2

    monkeypatch.setattr(ffn_core.forms, "ffn_backward", backward_scaling_dW2)
    errors = gradient_check(x, W1, b1, W2, b2, per_parameter=3)
    assert errors["W2"] > 1e-2 and errors["W1"] < 1e-6


def test_gradient_check_does_not_modify_its_arguments(rng):
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (2,), 3, 4)
    before = [a.copy() for a in (x, W1, b1, W2, b2)]
    gradient_check(x, W1, b1, W2, b2)
    for a, b in zip(before, (x, W1, b1, W2, b2), strict=True):
        np.testing.assert_array_equal(a, b)


def loop_swiglu(x, W_gate, W_up, W_down):
    """SwiGLU with explicit loops over positions and neurons."""
    C, H = W_gate.shape
    rows = x.reshape(-1, C)
    out = np.zeros_like(rows)
    for n, row in enumerate(rows):
        a = np.zeros(H)
        for j in range(H):
            g = sum(row[c] * W_gate[c, j] for c in range(C))
            u = sum(row[c] * W_up[c, j] for c in range(C))
            a[j] = g / (1 + np.exp(-g)) * u
        out[n] = [sum(a[j] * W_down[j, c] for j in range(H)) for c in range(C)]
    return out.reshape(x.shape)


def random_swiglu(rng, d_model, d_ff):
    return (
        rng.standard_normal((d_model, d_ff)) * 0.5,
        rng.standard_normal((d_model, d_ff)) * 0.5,
        rng.standard_normal((d_ff, d_model)) * 0.5,
    )


@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
def test_swiglu_forward_matches_loops(rng, lead, d_model, d_ff):
    weights = random_swiglu(rng, d_model, d_ff)
    x = rng.standard_normal((*lead, d_model))
    out, _ = swiglu_forward(x, *weights)
    np.testing.assert_allclose(out, loop_swiglu(x, *weights), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("lead", "d_model", "d_ff"), SHAPES)
def test_swiglu_backward_matches_finite_differences(rng, lead, d_model, d_ff):
    W_gate, W_up, W_down = random_swiglu(rng, d_model, d_ff)
    x = rng.standard_normal((*lead, d_model))
    G = rng.standard_normal(x.shape)

    def loss():
        return float(np.sum(swiglu_forward(x, W_gate, W_up, W_down)[0] * G))

    _, cache = swiglu_forward(x, W_gate, W_up, W_down)
    analytic = swiglu_backward(G, cache)
    for grad, param in zip(analytic, (x, W_gate, W_up, W_down), strict=True):
        assert grad.shape == param.shape
        np.testing.assert_allclose(grad, numerical_grad(loss, param), rtol=1e-6, atol=1e-8)


def test_swiglu_keeps_float32_and_rejects_bad_shapes(rng):
    W_gate, W_up, W_down = (w.astype(np.float32) for w in random_swiglu(rng, 4, 6))
    x = rng.standard_normal((3, 4)).astype(np.float32)
    out, cache = swiglu_forward(x, W_gate, W_up, W_down)
    assert out.dtype == np.float32
    assert all(g.dtype == np.float32 for g in swiglu_backward(np.ones_like(out), cache))
    with pytest.raises(ValueError, match=r"W_up has shape \(6, 4\), expected \(4, 6\)"):
        swiglu_forward(x, W_gate, W_up.T, W_down)
    with pytest.raises(ValueError, match=r"x has shape \(3, 4\).*W_gate"):
        swiglu_forward(x, W_gate.T, W_up, W_down)
    with pytest.raises(ValueError, match=r"W_down has shape \(4, 6\), expected \(6, 4\)"):
        swiglu_forward(x, W_gate, W_up, W_down.T)


def test_the_loss_along_a_score_is_flat_until_the_relu_opens(rng):
    from ffn_core.gradcheck import loss_along_score

    W1, b1, W2, b2 = random_ffn(rng, 3, 5)
    x, g = rng.standard_normal(3), rng.standard_normal(3)
    score = x @ W1 + b1
    j = int(np.argmin(score))
    if score[j] >= 0:  # make neuron j silent on x
        b1[j] -= score[j] + 0.5
    margin = -(x @ W1[:, j] + b1[j])
    shifts = np.linspace(-2, margin + 2, 41)
    losses = loss_along_score(x, W1, b1, W2, b2, g, j, shifts)
    below = shifts < margin
    np.testing.assert_allclose(losses[below], losses[0], atol=1e-12)  # flat: gate closed
    above = shifts > margin
    # past the kink the loss moves linearly with slope W2[j] · g
    slope = np.polyfit(shifts[above], losses[above], 1)[0]
    assert slope == pytest.approx(W2[j] @ g, rel=1e-9)


def test_onto_kink_puts_the_score_nearest_zero_at_half_eps():
    rng = np.random.default_rng(5)
    x, W1, b1 = (rng.standard_normal(s) for s in ((6, 3), (3, 5), (5,)))
    h_pre, before = x @ W1 + b1, b1.copy()  # h_pre (6, 5)
    moved, n, j = onto_kink(h_pre, b1, 1e-4)
    nearest = min((abs(h_pre[r, c]), r, c) for r in range(6) for c in range(5))
    assert (n, j) == nearest[1:]
    assert (x @ W1 + moved)[n, j] == pytest.approx(5e-5, abs=1e-12)
    assert np.array_equal(np.delete(moved, j), np.delete(b1, j))  # only neuron j's bias moved
    assert np.array_equal(b1, before)  # the caller's b1 is not changed


@pytest.mark.parametrize("name", NAMES)
def test_the_kept_steps_are_the_gradients_at_h_and_h_pre_by_finite_differences(rng, name):
    """dh = dL/dh and dh_pre = dL/dh_pre, each measured by nudging h or h_pre in a forward
    pass written here (non-square, so a transpose cannot hide); the gradients equal
    ffn_backward's, and keep=False gives the same gradients."""
    x, W1, b1, W2, b2 = away_from_relu_kink(rng, (2, 3), 4, 7)
    G = rng.standard_normal((2, 3, 4))
    act = ACTIVATIONS[name].fn
    h_pre = x.reshape(-1, 4) @ W1 + b1  # (6, 7)

    def loss_at_h(h):
        return float(np.sum((h @ W2 + b2) * G.reshape(-1, 4)))

    def loss_at_h_pre(z):
        return loss_at_h(act(z))

    h = act(h_pre)
    _, cache = ffn_forward(x, W1, b1, W2, b2, name)
    steps = ffn_backward_steps(G, cache)
    np.testing.assert_allclose(steps.dh, numerical_grad(lambda: loss_at_h(h), h), rtol=1e-6)
    np.testing.assert_allclose(
        steps.dh_pre, numerical_grad(lambda: loss_at_h_pre(h_pre), h_pre), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(steps.dh * steps.slope, steps.dh_pre)
    fast = ffn_backward(G, cache)
    for kept, quick in zip(steps.gradients().values(), fast, strict=True):
        np.testing.assert_array_equal(kept, quick)


def test_swiglu_steps_split_the_gradient_at_the_product_by_finite_differences(rng):
    """da, dup and dgate are dL/da, dL/dup and dL/dgate, nudged here one entry at a time."""
    d_model, d_ff = 3, 5
    W_gate, W_up = rng.standard_normal((d_model, d_ff)), rng.standard_normal((d_model, d_ff))
    W_down = rng.standard_normal((d_ff, d_model))
    x, G = rng.standard_normal((4, d_model)), rng.standard_normal((4, d_model))
    gate, up = x @ W_gate, x @ W_up
    silu = ACTIVATIONS["silu"].fn

    def loss(g, u):
        return float(np.sum((silu(g) * u) @ W_down * G))

    steps = swiglu_steps(G, swiglu_forward(x, W_gate, W_up, W_down)[1])
    a = silu(gate) * up
    np.testing.assert_allclose(
        steps.da, numerical_grad(lambda: float(np.sum(a @ W_down * G)), a), rtol=1e-6
    )
    np.testing.assert_allclose(steps.dup, numerical_grad(lambda: loss(gate, up), up), rtol=1e-6)
    np.testing.assert_allclose(
        steps.dgate, numerical_grad(lambda: loss(gate, up), gate), rtol=1e-6, atol=1e-9
    )

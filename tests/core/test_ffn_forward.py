"""The forward pass against explicit loops, the by-hand version and the lesson's example."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import loop_ffn, random_ffn

from ffn_core import ACTIVATIONS, ffn_backward, ffn_forward, ffn_forward_flat

NAMES = list(ACTIVATIONS)


def lesson_example():
    """d_model = d_ff = 2, x = [1, -1], keys [1, 1] and [1, -1], W2 = I, zero biases."""
    keys = np.array([[1.0, 1.0], [1.0, -1.0]])  # one key per row, as the lesson writes them
    # In the x @ W convention each key is a column of W1.
    return np.array([1.0, -1.0]), keys.T, np.zeros(2), np.eye(2), np.zeros(2)


def test_lesson_tiny_example_gives_0_2():
    out, cache = ffn_forward(*lesson_example())
    np.testing.assert_array_equal(out, [0.0, 2.0])
    np.testing.assert_array_equal(cache.h_pre, [[0.0, 2.0]])  # key 1 silent, key 2 fires


def test_lesson_tiny_example_by_hand_gives_0_2():
    # W @ x convention: W1 rows are the keys, stored flat.
    assert ffn_forward_flat([1, -1], [1, 1, 1, -1], [0, 0], [1, 0, 0, 1], [0, 0]) == [0.0, 2.0]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("lead", "d_model", "d_ff"), [((2, 3), 5, 7), ((4,), 6, 3), ((), 3, 8)])
def test_forward_matches_explicit_loops(rng, name, lead, d_model, d_ff):
    W1, b1, W2, b2 = random_ffn(rng, d_model, d_ff)
    x = rng.standard_normal((*lead, d_model))
    out, _ = ffn_forward(x, W1, b1, W2, b2, name)
    assert out.shape == x.shape
    np.testing.assert_allclose(out, loop_ffn(x, W1, b1, W2, b2, name), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("d_model", "d_ff"), [(3, 7), (7, 3), (4, 16)])
def test_forward_matches_the_by_hand_version_on_non_square_shapes(rng, d_model, d_ff):
    W1, b1, W2, b2 = random_ffn(rng, d_model, d_ff)
    x = rng.standard_normal(d_model)
    # W @ x convention: W1 is d_ff x d_model and W2 is d_model x d_ff, flat row-major.
    flat = ffn_forward_flat(
        x.tolist(), W1.T.ravel().tolist(), b1.tolist(), W2.T.ravel().tolist(), b2.tolist()
    )
    np.testing.assert_allclose(ffn_forward(x, W1, b1, W2, b2)[0], flat, rtol=1e-12)


def test_many_leading_axes_and_zero_positions(rng):
    W1, b1, W2, b2 = random_ffn(rng, 4, 6)
    x = rng.standard_normal((2, 1, 3, 4))
    out, _ = ffn_forward(x, W1, b1, W2, b2)
    np.testing.assert_allclose(out, loop_ffn(x, W1, b1, W2, b2), rtol=1e-12)
    empty, cache = ffn_forward(np.zeros((0, 4)), W1, b1, W2, b2)
    assert empty.shape == (0, 4)
    dx, dW1, *_ = ffn_backward(np.zeros((0, 4)), cache)
    assert dx.shape == (0, 4)
    np.testing.assert_array_equal(dW1, np.zeros((4, 6)))


@pytest.mark.parametrize("name", NAMES)
def test_float32_stays_float32_through_forward_and_backward(rng, name):
    W1, b1, W2, b2 = random_ffn(rng, 5, 9, dtype=np.float32)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    out, cache = ffn_forward(x, W1, b1, W2, b2, name)
    assert out.dtype == np.float32
    assert cache.h_pre.dtype == cache.h.dtype == np.float32
    grads = ffn_backward(np.ones_like(out), cache)
    assert [g.dtype for g in grads] == [np.float32] * 5
    out64, _ = ffn_forward(x.astype(np.float64), W1, b1, W2, b2, name)
    assert out64.dtype == np.float64  # one float64 argument computes in float64
    np.testing.assert_allclose(out, out64, rtol=1e-5, atol=1e-5)


def test_integer_input_computes_in_float64():
    out, _ = ffn_forward([1, -1], [[1, 1], [1, -1]], [0, 0], [[1, 0], [0, 1]], [0, 0])
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [0.0, 2.0])


def test_inputs_are_not_modified(rng):
    W1, b1, W2, b2 = random_ffn(rng, 3, 5)
    x = rng.standard_normal((2, 3))
    before = [a.copy() for a in (x, W1, b1, W2, b2)]
    out, cache = ffn_forward(x, W1, b1, W2, b2, "gelu")
    ffn_backward(np.ones_like(out), cache)
    for a, b in zip(before, (x, W1, b1, W2, b2), strict=True):
        np.testing.assert_array_equal(a, b)


BAD_SHAPES = [
    # (what is wrong, x shape, W1 shape, b1 shape, W2 shape, b2 shape, message fragment)
    ("W1 transposed", (2, 3), (5, 3), (5,), (5, 3), (3,), r"x has shape \(2, 3\).*W1"),
    ("b1 of length d_model", (2, 3), (3, 5), (3,), (5, 3), (3,), r"b1 has shape \(3,\)"),
    ("W2 transposed", (2, 3), (3, 5), (5,), (3, 5), (3,), r"W2 has shape \(3, 5\)"),
    ("b2 of length d_ff", (2, 3), (3, 5), (5,), (5, 3), (5,), r"b2 has shape \(5,\)"),
    ("x a scalar", (), (3, 5), (5,), (5, 3), (3,), r"x has shape \(\)"),
    ("W1 flat", (3,), (15,), (5,), (5, 3), (3,), r"W1 has shape \(15,\), expected a 2-D matrix"),
]


@pytest.mark.parametrize(("case", "xs", "w1", "b1", "w2", "b2", "match"), BAD_SHAPES)
def test_bad_shapes_raise_value_error_naming_got_and_expected(case, xs, w1, b1, w2, b2, match):
    arrays = [np.ones(s) for s in (xs, w1, b1, w2, b2)]
    with pytest.raises(ValueError, match=match) as info:
        ffn_forward(*arrays)
    assert "expected" in str(info.value)


def test_transposed_w1_runs_silently_when_square(rng):
    # The trap: with d_ff == d_model a transposed W1 has the right shape and runs.
    W1, b1, W2, b2 = random_ffn(rng, 4, 4)
    x = rng.standard_normal((3, 4))
    right, _ = ffn_forward(x, W1, b1, W2, b2)
    wrong, _ = ffn_forward(x, W1.T, b1, W2, b2)
    assert not np.allclose(right, wrong)


def test_backward_rejects_a_dout_of_the_wrong_shape(rng):
    W1, b1, W2, b2 = random_ffn(rng, 3, 5)
    _, cache = ffn_forward(rng.standard_normal((2, 3)), W1, b1, W2, b2)
    with pytest.raises(ValueError, match=r"dout has shape \(2, 5\), expected \(2, 3\)"):
        ffn_backward(np.ones((2, 5)), cache)


def test_non_numeric_input_and_unknown_activation_raise_value_error():
    with pytest.raises(ValueError, match="real numbers"):
        ffn_forward(np.array(["a", "b"]), np.ones((2, 2)), np.ones(2), np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="unknown activation 'tanh'"):
        ffn_forward(np.ones(2), np.ones((2, 2)), np.ones(2), np.ones((2, 2)), np.ones(2), "tanh")

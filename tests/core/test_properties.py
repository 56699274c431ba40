"""Laws that hold for every input, checked by hypothesis on random shapes and values."""

from __future__ import annotations

import numpy as np
from helpers import numerical_grad
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ffn_core import (
    ACTIVATIONS,
    collapse,
    contributions,
    ffn_backward,
    ffn_forward,
    ffn_forward_flat,
    hidden,
)

values = st.floats(-3, 3, allow_nan=False, allow_infinity=False, width=64)
activations = st.sampled_from(list(ACTIVATIONS))


@st.composite
def ffn_cases(draw, min_positions=1):
    """(x, W1, b1, W2, b2) with x of shape (T, d_model) and d_model, d_ff drawn separately."""
    d_model = draw(st.integers(1, 6))
    d_ff = draw(st.integers(1, 9))
    T = draw(st.integers(min_positions, 5))
    x = draw(hnp.arrays(np.float64, (T, d_model), elements=values))
    W1 = draw(hnp.arrays(np.float64, (d_model, d_ff), elements=values))
    b1 = draw(hnp.arrays(np.float64, (d_ff,), elements=values))
    W2 = draw(hnp.arrays(np.float64, (d_ff, d_model), elements=values))
    b2 = draw(hnp.arrays(np.float64, (d_model,), elements=values))
    return x, W1, b1, W2, b2


@given(ffn_cases(min_positions=2), activations, st.data())
def test_perturbing_one_position_changes_only_its_output_row(case, name, data):
    x, W1, b1, W2, b2 = case
    t = data.draw(st.integers(0, x.shape[0] - 1))
    delta = data.draw(hnp.arrays(np.float64, x.shape[1], elements=st.floats(0.1, 2)))
    out, _ = ffn_forward(x, W1, b1, W2, b2, name)
    x2 = x.copy()
    x2[t] += delta
    out2, _ = ffn_forward(x2, W1, b1, W2, b2, name)
    others = np.arange(x.shape[0]) != t
    np.testing.assert_array_equal(out2[others], out[others])
    # ... and that row is exactly the FFN of the new token on its own.
    np.testing.assert_allclose(out2[t], ffn_forward(x2[t], W1, b1, W2, b2, name)[0], atol=1e-12)


@given(ffn_cases(min_positions=2), activations, st.randoms(use_true_random=False))
def test_permuting_positions_permutes_outputs(case, name, random):
    x, W1, b1, W2, b2 = case
    perm = list(range(x.shape[0]))
    random.shuffle(perm)
    out, _ = ffn_forward(x, W1, b1, W2, b2, name)
    out_perm, _ = ffn_forward(x[perm], W1, b1, W2, b2, name)
    np.testing.assert_allclose(out_perm, out[perm], rtol=1e-12, atol=1e-12)


@given(ffn_cases(), activations)
def test_contributions_plus_b2_equal_the_output(case, name):
    x, W1, b1, W2, b2 = case
    parts = contributions(x, W1, b1, W2, b2, name)
    assert parts.shape == (x.shape[0], W1.shape[1], W1.shape[0])  # (T, d_ff, d_model)
    out, _ = ffn_forward(x, W1, b1, W2, b2, name)
    np.testing.assert_allclose(parts.sum(axis=-2) + b2, out, rtol=1e-10, atol=1e-10)


@given(ffn_cases())
def test_without_a_bend_the_ffn_is_one_matrix(case):
    x, W1, b1, W2, b2 = case
    W_eff, b_eff = collapse(W1, b1, W2, b2)
    assert W_eff.shape == (W1.shape[0], W1.shape[0])
    out, _ = ffn_forward(x, W1, b1, W2, b2, "identity")
    np.testing.assert_allclose(out, x @ W_eff + b_eff, rtol=1e-10, atol=1e-10)
    assert np.linalg.matrix_rank(W_eff) <= min(W1.shape)


@given(ffn_cases())
def test_by_hand_version_agrees_with_numpy(case):
    x, W1, b1, W2, b2 = case
    for row in x:
        flat = ffn_forward_flat(
            row.tolist(), W1.T.ravel().tolist(), b1.tolist(), W2.T.ravel().tolist(), b2.tolist()
        )
        np.testing.assert_allclose(ffn_forward(row, W1, b1, W2, b2)[0], flat, atol=1e-10)


@given(ffn_cases(), activations)
def test_backward_agrees_with_finite_differences(case, name):
    x, W1, b1, W2, b2 = case
    if ACTIVATIONS[name].zero_below:  # ReLU's slope, and Squared ReLU's curvature, jump at 0
        h_pre, _ = hidden(x, W1, b1)
        assume(np.abs(h_pre).min() > 1e-3)
    G = np.linspace(-1, 1, x.size).reshape(x.shape)

    def loss():
        return float(np.sum(ffn_forward(x, W1, b1, W2, b2, name)[0] * G))

    _, cache = ffn_forward(x, W1, b1, W2, b2, name)
    for grad, param in zip(ffn_backward(G, cache), (x, W1, b1, W2, b2), strict=True):
        np.testing.assert_allclose(grad, numerical_grad(loss, param), rtol=1e-5, atol=1e-6)

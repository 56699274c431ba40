"""Firing, sparsity, top-k and collapse helpers, on hand-built cases and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_ffn

from ffn_core import collapse, contributions, ffn_forward, hidden
from ffn_core.analysis import (
    contribution_sizes,
    dead_neurons,
    firing_count,
    firing_mask,
    firing_rate,
    grouped_writes,
    neuron_order,
    silent_neurons,
    sparsity,
)

# Two tokens, four neurons: neuron 2 never fires, neuron 3 only above 0.
H_ACT = np.array([[0.0, 1.5, -0.1, 0.0], [2.0, 0.05, 0.0, 0.0]])


def test_firing_mask_count_rate_and_dead_neurons():
    np.testing.assert_array_equal(
        firing_mask(H_ACT), [[False, True, False, False], [True, True, False, False]]
    )
    np.testing.assert_array_equal(firing_count(H_ACT), [1, 2])
    np.testing.assert_array_equal(firing_rate(H_ACT), [0.5, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(silent_neurons(H_ACT), [2, 3])
    # A threshold turns the barely-on 0.05 into "not fired".
    np.testing.assert_array_equal(firing_count(H_ACT, threshold=0.1), [1, 1])


def test_firing_rate_counts_over_all_leading_axes():
    h = np.stack([H_ACT, H_ACT[::-1]])  # (2, 2, 4)
    np.testing.assert_array_equal(firing_rate(h), [0.5, 1.0, 0.0, 0.0])
    assert firing_count(h).shape == (2, 2)


def test_sparsity():
    assert sparsity(H_ACT) == 4 / 8
    assert sparsity(H_ACT, tol=0.1) == 6 / 8
    assert sparsity(np.zeros((0, 3))) == 0.0


def test_relu_sparsity_is_exact_zeros_while_gelu_leaks_small_values(rng):
    W1, b1, _, _ = random_ffn(rng, 8, 64)
    x = rng.standard_normal((16, 8))
    _, h_relu = hidden(x, W1, b1, "relu")
    _, h_gelu = hidden(x, W1, b1, "gelu")
    assert 0.2 < sparsity(h_relu) < 0.8
    assert sparsity(h_gelu) == 0.0  # never exactly zero
    assert np.any(h_gelu < 0)  # small negatives get through


def test_contribution_sizes_match_brute_force_norms_of_contributions(rng):
    W1, b1, W2, b2 = random_ffn(rng, 5, 12)
    x = rng.standard_normal((3, 5))
    _, h = hidden(x, W1, b1, "gelu")
    norms = np.linalg.norm(contributions(x, W1, b1, W2, b2, "gelu"), axis=-1)  # (3, 12)
    np.testing.assert_allclose(contribution_sizes(h, W2), norms, rtol=1e-12)


def test_contributions_of_the_lesson_example():
    keys = np.array([[1.0, 1.0], [1.0, -1.0]])  # rows are keys; columns of W1
    parts = contributions(np.array([1.0, -1.0]), keys.T, np.zeros(2), np.eye(2), np.zeros(2))
    # Neuron 1 is silent and writes nothing; neuron 2 fires at 2 and writes 2 * e2.
    np.testing.assert_array_equal(parts, [[0.0, 0.0], [0.0, 2.0]])


def test_collapse_is_the_product_and_matches_the_identity_ffn(rng):
    W1, b1, W2, b2 = random_ffn(rng, 3, 10)
    W_eff, b_eff = collapse(W1, b1, W2, b2)
    x = rng.standard_normal((4, 3))
    np.testing.assert_allclose(
        ffn_forward(x, W1, b1, W2, b2, "identity")[0], x @ W_eff + b_eff, rtol=1e-12
    )
    # d_ff < d_model caps the rank at d_ff: the narrow middle is a bottleneck.
    W1n, b1n, W2n, b2n = random_ffn(rng, 6, 2)
    assert np.linalg.matrix_rank(collapse(W1n, b1n, W2n, b2n)[0]) == 2


def test_collapse_and_contributions_reject_bad_shapes(rng):
    W1, b1, W2, b2 = random_ffn(rng, 3, 5)
    with pytest.raises(ValueError, match=r"W2 has shape \(3, 5\), expected \(5, 3\)"):
        collapse(W1, b1, W2.T, b2)
    with pytest.raises(ValueError, match=r"x has shape \(2, 4\)"):
        contributions(np.ones((2, 4)), W1, b1, W2, b2)


def test_a_dead_neuron_has_zero_slope_on_every_token():
    h_pre = np.array([[-1.0, 0.5, -2.0, -0.75], [-3.0, -1.0, 2.0, -0.75]])  # (T=2, d_ff=4)
    np.testing.assert_array_equal(dead_neurons(h_pre, "relu"), [0, 3])  # ≤ 0 everywhere
    # GELU's slope vanishes only near z = -0.7518: these scores never hit it exactly
    assert dead_neurons(h_pre, "gelu").size == 0
    assert dead_neurons(h_pre, "identity").size == 0
    # a batch axis in front changes nothing
    np.testing.assert_array_equal(dead_neurons(h_pre[None], "relu"), [0, 3])


def test_grouped_writes_rank_neurons_by_their_write_and_add_up_to_the_output(rng):
    d_model, d_ff = 5, 9
    h = np.maximum(rng.standard_normal(d_ff), 0)  # some neurons silent
    h[[0, 3]] = 0.0
    W2, b2 = rng.standard_normal((d_ff, d_model)), rng.standard_normal(d_model)
    coords = np.array([4, 1, 2])
    rows, writers, rest = grouped_writes(h, W2, coords, top=3)
    sizes = {k: sum(abs(h[k] * W2[k, c]) for c in coords) for k in range(d_ff) if h[k] != 0}
    expected = sorted(sizes, key=lambda k: -sizes[k])
    assert writers.tolist() == expected[:3]
    assert rest == len(expected) - 3 and rows.shape == (4, 3)
    for row, k in zip(rows, writers, strict=False):
        np.testing.assert_allclose(row, [h[k] * W2[k, c] for c in coords], rtol=1e-12)
    out = h @ W2 + b2
    np.testing.assert_allclose(rows.sum(axis=0) + b2[coords], out[coords], rtol=1e-12)
    rows, writers, rest = grouped_writes(h, W2, coords, top=d_ff)  # everyone on their own row
    assert rest == 0 and len(rows) == len(writers) == len(expected)


def test_neuron_order_sorts_by_firing_rate_then_mean():
    h = np.array([[0.0, 2.0, 1.0, 0.5], [0.0, 0.0, 3.0, 0.2]])
    # rates: 0, .5, 1, 1; means: 0, 1, 2, .35
    assert neuron_order(h).tolist() == [2, 3, 1, 0]

"""The decoder's pieces on small random shapes: RMSNorm, rotary, grouped-query attention,
each against an explicit loop or float64 centred differences."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_grad

from ffn_core.llama import (
    AttentionWeights,
    attention,
    attention_backward,
    attention_forward,
    rms_norm,
    rms_norm_backward,
    rotary_angles,
    rotate_pairs,
)

C, N_Q, N_KV, HS = 10, 4, 2, 6  # d_model 10, 4 query heads of 6 share 2 key/value heads


@pytest.fixture
def weights():
    rng = np.random.default_rng(3)
    return AttentionWeights(
        W_q=rng.standard_normal((C, N_Q * HS)) * 0.4,
        W_k=rng.standard_normal((C, N_KV * HS)) * 0.4,
        W_v=rng.standard_normal((C, N_KV * HS)) * 0.4,
        W_o=rng.standard_normal((N_Q * HS, C)) * 0.4,
        n_q=N_Q,
        n_kv=N_KV,
    )


def loop_attention(x, w, positions, base=100.0):
    """Causal grouped-query attention one query, one head and one pair at a time."""
    T = len(x)
    out = np.zeros((T, N_Q * HS))
    for h in range(N_Q):
        kv = h // (N_Q // N_KV)
        q = x @ w.W_q[:, h * HS : (h + 1) * HS]
        k = x @ w.W_k[:, kv * HS : (kv + 1) * HS]
        v = x @ w.W_v[:, kv * HS : (kv + 1) * HS]
        for vec in (q, k):
            for t in range(T):
                for i in range(HS // 2):
                    theta = positions[t] * base ** (-2 * i / HS)
                    a, b = vec[t, 2 * i], vec[t, 2 * i + 1]
                    vec[t, 2 * i] = a * np.cos(theta) - b * np.sin(theta)
                    vec[t, 2 * i + 1] = a * np.sin(theta) + b * np.cos(theta)
        for t in range(T):
            scores = np.array([q[t] @ k[s] / np.sqrt(HS) for s in range(t + 1)])
            p = np.exp(scores - scores.max())
            p /= p.sum()
            out[t, h * HS : (h + 1) * HS] = sum(p[s] * v[s] for s in range(t + 1))
    return out @ w.W_o


def test_rms_norm_divides_by_the_root_mean_square():
    x = np.array([[3.0, 4.0, 0.0, 0.0]])
    weight = np.array([1.0, 2.0, 1.0, 1.0])
    assert np.allclose(rms_norm(x, weight, 0.0), [[1.2, 3.2, 0.0, 0.0]])  # rms = 2.5


def test_rms_norm_backward_matches_centred_differences():
    rng = np.random.default_rng(0)
    x, weight, dy = rng.standard_normal((3, 7)), rng.standard_normal(7), rng.standard_normal((3, 7))
    numeric = numerical_grad(lambda: float(np.sum(rms_norm(x, weight, 1e-5) * dy)), x)
    assert np.allclose(rms_norm_backward(dy, x, weight, 1e-5), numeric, rtol=1e-6, atol=1e-8)


def test_rotation_keeps_lengths_and_dot_products_depend_on_distance_only():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((1, 1, HS)), rng.standard_normal((1, 1, HS))

    def turned(vec, position):
        return rotate_pairs(vec, rotary_angles(np.array([position]), HS, 100.0))

    assert np.allclose(np.linalg.norm(turned(q, 7)), np.linalg.norm(q))
    near = (turned(q, 5) * turned(k, 3)).sum()
    far = (turned(q, 12) * turned(k, 10)).sum()
    assert near == pytest.approx(far)


def test_grouped_query_attention_matches_an_explicit_loop(weights):
    x = np.random.default_rng(2).standard_normal((5, C))
    out, _ = attention(x, weights, rotary_angles(np.arange(5), HS, 100.0))
    assert np.allclose(out, loop_attention(x, weights, np.arange(5)), atol=1e-10)


def test_new_tokens_after_cached_ones_get_the_same_numbers(weights):
    x = np.random.default_rng(4).standard_normal((6, C))
    angles = rotary_angles(np.arange(6), HS, 100.0)
    whole, _ = attention(x, weights, angles)
    _, past = attention(x[:4], weights, angles[:4])
    rest, seen = attention(x[4:], weights, angles[4:], past)
    assert np.allclose(rest, whole[4:], atol=1e-12) and seen.k.shape == (N_KV, 6, HS)


def test_attention_backward_matches_centred_differences_with_a_fixed_past(weights):
    rng = np.random.default_rng(5)
    angles = rotary_angles(np.arange(7), HS, 100.0)
    _, past = attention(rng.standard_normal((4, C)), weights, angles[:4])
    x, dout = rng.standard_normal((3, C)), rng.standard_normal((3, C))

    def loss() -> float:
        return float(np.sum(attention(x, weights, angles[4:], past)[0] * dout))

    _, cache = attention_forward(x, weights, angles[4:], past)
    analytic = attention_backward(dout, weights, cache)
    assert np.allclose(analytic, numerical_grad(loss, x), rtol=1e-6, atol=1e-8)

"""The decoder's pieces on small random shapes: RMSNorm, rotary, grouped-query attention,
each against an explicit loop or float64 centred differences."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_grad

from ffn_core.models.smollm.llama import (
    AttentionWeights,
    Block,
    Text,
    attention_backward,
    attention_forward,
    block_backward,
    block_forward,
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


def attention(x, w, angles, past=None):
    """One text's attention: its output (T, C) and the keys and values it has seen."""
    out, (cache,) = attention_forward(x, w, [Text(slice(None), angles, past)])
    return out, cache.seen


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

    texts = [Text(slice(None), angles[4:], past)]
    _, caches = attention_forward(x, weights, texts)
    analytic = attention_backward(dout, weights, caches, texts)
    assert np.allclose(analytic, numerical_grad(loss, x), rtol=1e-6, atol=1e-8)


@pytest.fixture
def block(weights):
    rng = np.random.default_rng(6)
    d_ff = 7
    return Block(
        attn_norm=1 + 0.1 * rng.standard_normal(C),
        attention=weights,
        ffn_norm=1 + 0.1 * rng.standard_normal(C),
        W_gate=rng.standard_normal((C, d_ff)) * 0.4,
        W_up=rng.standard_normal((C, d_ff)) * 0.4,
        W_down=rng.standard_normal((d_ff, C)) * 0.4,
    )


def test_texts_stacked_in_one_block_get_what_each_gets_alone(block):
    rng = np.random.default_rng(7)
    angles = rotary_angles(np.arange(5), HS, 100.0)
    _, past = attention(rng.standard_normal((2, C)), block.attention, angles[:2])
    first, second = rng.standard_normal((3, C)), rng.standard_normal((4, C))
    texts = [Text(slice(0, 3), angles[2:], past), Text(slice(3, 7), angles[:4])]
    attn, ffn, _ = block_forward(np.concatenate([first, second]), block, 1e-5, texts)
    for x, text, rows in ((first, texts[0], slice(0, 3)), (second, texts[1], slice(3, 7))):
        alone = Text(slice(None), text.angles, text.past)
        attn_alone, ffn_alone, _ = block_forward(x, block, 1e-5, [alone])
        assert np.allclose(attn[rows], attn_alone, atol=1e-12)
        assert np.allclose(ffn[rows], ffn_alone, atol=1e-12)


def test_block_backward_matches_centred_differences_over_two_stacked_texts(block):
    rng = np.random.default_rng(8)
    angles = rotary_angles(np.arange(5), HS, 100.0)
    _, past = attention(rng.standard_normal((2, C)), block.attention, angles[:2])
    texts = [Text(slice(0, 3), angles[2:], past), Text(slice(3, 7), angles[:4])]
    x, dout = rng.standard_normal((7, C)), rng.standard_normal((7, C))

    def loss() -> float:
        attn, ffn, _ = block_forward(x, block, 1e-5, texts)
        return float(np.sum((x + attn + ffn) * dout))

    _, _, cache = block_forward(x, block, 1e-5, texts)
    analytic = block_backward(dout, block, 1e-5, cache, texts)
    assert np.allclose(analytic, numerical_grad(loss, x), rtol=1e-6, atol=1e-8)

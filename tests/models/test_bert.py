"""LayerNorm and self-attention backward passes against float64 finite differences."""

from __future__ import annotations

import numpy as np
from helpers import numerical_grad

from ffn_core.models.minilm.bert import (
    AttentionWeights,
    attention,
    attention_backward,
    layer_norm,
    layer_norm_backward,
    softmax,
)

T, C, HEADS = 5, 8, 2  # two heads of 4 features; T != C so a transpose cannot hide


def test_layer_norm_matches_its_definition_with_a_loop(rng):
    x = rng.standard_normal((T, C)) * 3 + 1
    gamma, beta = rng.standard_normal(C), rng.standard_normal(C)
    y, _ = layer_norm(x, gamma, beta, 1e-12)
    for t in range(T):
        mean = sum(x[t]) / C
        var = sum((v - mean) ** 2 for v in x[t]) / C
        expected = [(x[t, c] - mean) / np.sqrt(var + 1e-12) * gamma[c] + beta[c] for c in range(C)]
        np.testing.assert_allclose(y[t], expected, rtol=1e-12)


def test_layer_norm_backward_matches_finite_differences(rng):
    x = rng.standard_normal((T, C))
    gamma, beta = rng.standard_normal(C), rng.standard_normal(C)
    dy = rng.standard_normal((T, C))  # the loss is sum(dy * y)
    _, cache = layer_norm(x, gamma, beta, 1e-5)
    numeric = numerical_grad(lambda: float((dy * layer_norm(x, gamma, beta, 1e-5)[0]).sum()), x)
    np.testing.assert_allclose(layer_norm_backward(dy, cache), numeric, rtol=1e-6, atol=1e-8)


def random_attention(rng) -> AttentionWeights:
    mats = [rng.standard_normal((C, C)) * 0.5 for _ in range(4)]
    biases = [rng.standard_normal(C) * 0.5 for _ in range(4)]
    return AttentionWeights(*(a for pair in zip(mats, biases, strict=True) for a in pair), HEADS)


def loop_attention(x: np.ndarray, w: AttentionWeights) -> np.ndarray:
    """Each head, each query token, written out with explicit sums."""
    q, k, v = x @ w.Wq + w.bq, x @ w.Wk + w.bk, x @ w.Wv + w.bv
    d = C // HEADS
    ctx = np.zeros((T, C))
    for head in range(HEADS):
        cols = slice(head * d, (head + 1) * d)
        for i in range(T):
            scores = [float(q[i, cols] @ k[j, cols]) / np.sqrt(d) for j in range(T)]
            weights = np.exp(np.array(scores) - max(scores))
            weights /= weights.sum()
            ctx[i, cols] = sum(weights[j] * v[j, cols] for j in range(T))
    return ctx @ w.Wo + w.bo


def test_attention_matches_explicit_loops_over_heads_and_tokens(rng):
    x = rng.standard_normal((T, C))
    w = random_attention(rng)
    out, cache = attention(x, w)
    np.testing.assert_allclose(out, loop_attention(x, w), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cache.p.sum(axis=-1), 1.0)


def test_attention_backward_matches_finite_differences(rng):
    x = rng.standard_normal((T, C))
    w = random_attention(rng)
    dout = rng.standard_normal((T, C))
    _, cache = attention(x, w)
    numeric = numerical_grad(lambda: float((dout * attention(x, w)[0]).sum()), x)
    np.testing.assert_allclose(attention_backward(dout, cache), numeric, rtol=1e-6, atol=1e-8)


def test_softmax_survives_huge_scores():
    p = softmax(np.array([[1000.0, 0.0, -1000.0]]))
    np.testing.assert_allclose(p, [[1.0, 0.0, 0.0]])

"""The other parts of a BERT block, so a real model's FFN can be run in place.

A BERT layer (post-LayerNorm, as in all-MiniLM-L6-v2) is

    x1  = LayerNorm(x + Attention(x))        (T, d_model)
    out = LayerNorm(x1 + FFN(x1))            (T, d_model)

The FFN is `ffn_core.ffn`; this module holds LayerNorm and self-attention, each with its
backward pass beside it. The backward passes return only the gradient of the input:
nothing here is trained, the gradients are for asking which neurons matter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ffn_core.softmax import softmax


@dataclass(frozen=True)
class LayerNormCache:
    x_hat: np.ndarray  # (T, C): the input centred and scaled to unit variance
    inv_std: np.ndarray  # (T, 1)
    gamma: np.ndarray  # (C,)


def layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float
) -> tuple[np.ndarray, LayerNormCache]:
    """y = gamma * (x - mean) / sqrt(var + eps) + beta over the last axis; x (T, C)."""
    centred = x - x.mean(axis=-1, keepdims=True)  # (T, C)
    inv_std = 1.0 / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)  # (T, 1)
    x_hat = centred * inv_std  # (T, C)
    return x_hat * gamma + beta, LayerNormCache(x_hat, inv_std, gamma)


def layer_norm_backward(dy: np.ndarray, cache: LayerNormCache) -> np.ndarray:
    """dL/dx from dL/dy (T, C): the mean and the variance both depend on every x."""
    d_hat = dy * cache.gamma  # (T, C)
    mean_d = d_hat.mean(axis=-1, keepdims=True)  # (T, 1)
    mean_dx = (d_hat * cache.x_hat).mean(axis=-1, keepdims=True)  # (T, 1)
    return cache.inv_std * (d_hat - mean_d - cache.x_hat * mean_dx)  # (T, C)


@dataclass(frozen=True)
class AttentionWeights:
    """Self-attention in the x @ W convention: every W is (d_model, d_model)."""

    Wq: np.ndarray
    bq: np.ndarray
    Wk: np.ndarray
    bk: np.ndarray
    Wv: np.ndarray
    bv: np.ndarray
    Wo: np.ndarray
    bo: np.ndarray
    n_heads: int


@dataclass(frozen=True)
class AttentionCache:
    q: np.ndarray  # (heads, T, d_head)
    k: np.ndarray  # (heads, T, d_head)
    v: np.ndarray  # (heads, T, d_head)
    p: np.ndarray  # (heads, T, T): attention weights, each row sums to 1
    w: AttentionWeights


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    T, C = x.shape
    return x.reshape(T, n_heads, C // n_heads).transpose(1, 0, 2)  # (heads, T, d_head)


def merge_heads(x: np.ndarray) -> np.ndarray:
    heads, T, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(T, heads * d_head)  # (T, C)


def attention(x: np.ndarray, w: AttentionWeights) -> tuple[np.ndarray, AttentionCache]:
    """Multi-head self-attention over one unpadded sentence, every token seeing every token.

    Shapes: x (T, C); each head works on C / n_heads features. Returns (T, C).
    """
    q = split_heads(x @ w.Wq + w.bq, w.n_heads)  # (heads, T, d_head)
    k = split_heads(x @ w.Wk + w.bk, w.n_heads)  # (heads, T, d_head)
    v = split_heads(x @ w.Wv + w.bv, w.n_heads)  # (heads, T, d_head)
    scale = 1.0 / math.sqrt(q.shape[-1])  # a Python float keeps float32 float32
    p = softmax(q @ k.transpose(0, 2, 1) * scale)  # (heads, T, T)
    out = merge_heads(p @ v) @ w.Wo + w.bo  # (T, C)
    return out, AttentionCache(q, k, v, p, w)


def attention_backward(dout: np.ndarray, cache: AttentionCache) -> np.ndarray:
    """dL/dx from dL/dout (T, C); x reaches the output through q, k and v alike."""
    q, k, v, p, w = cache.q, cache.k, cache.v, cache.p, cache.w
    scale = 1.0 / math.sqrt(q.shape[-1])  # a Python float keeps float32 float32
    d_ctx = split_heads(dout @ w.Wo.T, w.n_heads)  # (heads, T, d_head)
    dp = d_ctx @ v.transpose(0, 2, 1)  # (heads, T, T)
    dv = p.transpose(0, 2, 1) @ d_ctx  # (heads, T, d_head)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale  # (heads, T, T)
    dq = ds @ k  # (heads, T, d_head)
    dk = ds.transpose(0, 2, 1) @ q  # (heads, T, d_head)
    return merge_heads(dq) @ w.Wq.T + merge_heads(dk) @ w.Wk.T + merge_heads(dv) @ w.Wv.T  # (T, C)

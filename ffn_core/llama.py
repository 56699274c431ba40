"""The pieces of a Llama-style decoder block, each beside its formula.

    x = x + attention(rms_norm(x))        grouped-query, rotary positions, causal
    x = x + swiglu(rms_norm(x))           the FFN: ffn_core.swiglu.swiglu_forward

Shapes: T tokens, C = d_model, n_q query heads and n_kv key/value heads of size hs.
Weights are in the x @ W convention: W_q (C, n_q*hs), W_k and W_v (C, n_kv*hs), W_o (n_q*hs, C).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.softmax import softmax


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x²) + eps) * weight over the last axis: (..., C) -> (..., C).

    Unlike LayerNorm, nothing is subtracted and nothing is added: only the length changes.
    """
    scale = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)  # (..., 1)
    return x * scale * weight


def rotary_angles(positions: np.ndarray, head_size: int, base: float) -> np.ndarray:
    """The angle each pair of a head is turned by: position * base^(-2i / head_size).

    positions (T,) -> angles (T, head_size / 2). Pair i turns slower as i grows, so early
    pairs tell near positions apart and late pairs far ones.
    """
    inv_freq = base ** (-np.arange(0, head_size, 2, dtype=np.float64) / head_size)  # (hs/2,)
    return np.outer(positions, inv_freq)  # (T, hs/2)


def rotate_pairs(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Turn each pair (x[2i], x[2i+1]) of every head by angles[t, i].

    x (heads, T, hs), angles (T, hs/2) -> (heads, T, hs). GGUF files store the rows of
    W_q and W_k in this interleaved order (llama.cpp's layout); Hugging Face's files pair
    i with i + hs/2 instead, which is the same model with the rows permuted.
    """
    cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)  # (T, hs/2)
    even, odd = x[..., 0::2], x[..., 1::2]  # (heads, T, hs/2) each
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


@dataclass(frozen=True)
class AttentionWeights:
    W_q: np.ndarray  # (C, n_q * hs)
    W_k: np.ndarray  # (C, n_kv * hs)
    W_v: np.ndarray  # (C, n_kv * hs)
    W_o: np.ndarray  # (n_q * hs, C)
    n_q: int  # query heads
    n_kv: int  # key/value heads, each shared by n_q / n_kv query heads


@dataclass(frozen=True)
class KeysValues:
    """The rotated keys and the values of the tokens seen so far, for one block."""

    k: np.ndarray  # (n_kv, T_seen, hs)
    v: np.ndarray  # (n_kv, T_seen, hs)


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(T, heads*hs) -> (heads, T, hs)."""
    T = x.shape[0]
    return x.reshape(T, heads, -1).transpose(1, 0, 2)


def attention(
    x: np.ndarray,
    w: AttentionWeights,
    angles: np.ndarray,
    past: KeysValues | None = None,
) -> tuple[np.ndarray, KeysValues]:
    """Causal grouped-query self-attention for the new tokens x, after the `past` ones.

    x (T, C) normed input of the new tokens; angles (T, hs/2) their rotary angles.
    Returns out (T, C) and the keys/values of past and new tokens together. A new token
    at place t sees every past token and the new tokens up to t, never later ones.
    """
    T = x.shape[0]
    q = rotate_pairs(split_heads(x @ w.W_q, w.n_q), angles)  # (n_q, T, hs)
    k = rotate_pairs(split_heads(x @ w.W_k, w.n_kv), angles)  # (n_kv, T, hs)
    v = split_heads(x @ w.W_v, w.n_kv)  # (n_kv, T, hs)
    if past is not None:
        k = np.concatenate([past.k, k], axis=1)  # (n_kv, T_all, hs)
        v = np.concatenate([past.v, v], axis=1)
    T_all, hs = k.shape[1], k.shape[2]
    group = w.n_q // w.n_kv
    q = q.reshape(w.n_kv, group * T, hs)  # query heads sharing a key head, side by side
    # The scale is a Python float: a NumPy float64 would turn float32 scores into float64.
    scores = q @ k.transpose(0, 2, 1) * hs**-0.5  # (n_kv, group*T, T_all)
    scores = scores.reshape(w.n_kv, group, T, T_all)
    seen = np.arange(T_all)[None, :] <= np.arange(T_all - T, T_all)[:, None]  # (T, T_all)
    weights = softmax(np.where(seen, scores, -np.inf))  # (n_kv, group, T, T_all)
    mixed = weights.reshape(w.n_kv, group * T, T_all) @ v  # (n_kv, group*T, hs)
    mixed = mixed.reshape(w.n_q, T, hs).transpose(1, 0, 2).reshape(T, w.n_q * hs)  # (T, n_q*hs)
    return mixed @ w.W_o, KeysValues(k, v)  # (T, C)

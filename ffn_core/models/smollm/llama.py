"""A Llama-style decoder block, forward and backward, each piece beside its formula.

    x = x + attention(rms_norm(x))        grouped-query, rotary positions, causal
    x = x + swiglu(rms_norm(x))           the FFN: ffn_core.swiglu.swiglu_forward

`block_forward` and `block_backward` are the one block pair: the model runs its blocks
with them (`model.LanguageModel`), and the fact rewrite runs them back (`fact_edit`).
Several texts can go through a block together, their rows stacked (each a `Text`), so
each block's weights are read once for all of them; only attention's mixing is per text.

Shapes: T tokens, C = d_model, n_q query heads and n_kv key/value heads of size hs.
Weights are in the x @ W convention: W_q (C, n_q*hs), W_k and W_v (C, n_kv*hs), W_o (n_q*hs, C).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.softmax import softmax
from ffn_core.swiglu import SwiGLUCache, swiglu_forward, swiglu_input_grad


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x²) + eps) * weight over the last axis: (..., C) -> (..., C).

    Unlike LayerNorm, nothing is subtracted and nothing is added: only the length changes.
    """
    scale = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)  # (..., 1)
    return x * scale * weight


def rms_norm_backward(dy: np.ndarray, x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """dL/dx from dL/dy for y = rms_norm(x): r·g − r³·x·mean(g·x), with g = dy·weight."""
    r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)  # (..., 1)
    g = dy * weight  # (..., C)
    return r * g - r**3 * x * np.mean(g * x, axis=-1, keepdims=True)


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


@dataclass(frozen=True)
class AttentionCache:
    """What `attention_backward` needs from the forward pass."""

    q: np.ndarray  # (n_kv, group*T, hs) rotated queries, grouped by the key head they read
    seen: KeysValues  # every key and value the new tokens could read
    weights: np.ndarray  # (n_kv, group, T, T_all) attention weights
    angles: np.ndarray  # (T, hs/2)


@dataclass(frozen=True)
class Block:
    """One decoder block's weights, in the x @ W convention."""

    attn_norm: np.ndarray  # (C,)
    attention: AttentionWeights
    ffn_norm: np.ndarray  # (C,)
    W_gate: np.ndarray  # (C, d_ff): column j is neuron j's gate key
    W_up: np.ndarray  # (C, d_ff): column j is neuron j's up key
    W_down: np.ndarray  # (d_ff, C): row j is neuron j's value


@dataclass(frozen=True)
class Text:
    """One text's rows in a stack of rows, with what its attention needs."""

    rows: slice  # where its new tokens are in the stack
    angles: np.ndarray  # (tokens, hs/2): their rotary angles
    past: KeysValues | None = None  # the keys and values of its tokens before these


@dataclass(frozen=True)
class BlockCache:
    """What `block_backward` needs from `block_forward`."""

    x: np.ndarray  # (R, C) the stream into the block
    attention: list[AttentionCache]  # one per text
    mid: np.ndarray  # (R, C) the stream after attention
    ffn: SwiGLUCache


def split_heads(x: np.ndarray, heads: int) -> np.ndarray:
    """(T, heads*hs) -> (heads, T, hs)."""
    T = x.shape[0]
    return x.reshape(T, heads, -1).transpose(1, 0, 2)


def attention_forward(
    x: np.ndarray, w: AttentionWeights, texts: list[Text]
) -> tuple[np.ndarray, list[AttentionCache]]:
    """Causal grouped-query self-attention over the stacked new tokens x (R, C), normed.

    Returns out (R, C) and each text's cache; `cache.seen` holds the keys and values of
    that text's past and new tokens together. A new token at place t sees every past token
    of its own text and its new tokens up to t, never later ones, never another text's.
    """
    q, k, v = x @ w.W_q, x @ w.W_k, x @ w.W_v  # (R, n_q*hs), (R, n_kv*hs), (R, n_kv*hs)
    mixed, caches = np.empty_like(q), []
    for text in texts:
        rows = text.rows
        mixed[rows], cache = mix(q[rows], k[rows], v[rows], w, text.angles, text.past)
        caches.append(cache)
    return mixed @ w.W_o, caches  # (R, C)


def attention_backward(
    dout: np.ndarray, w: AttentionWeights, caches: list[AttentionCache], texts: list[Text]
) -> np.ndarray:
    """dL/dx (R, C) of the new tokens from dL/dout (R, C); the past keys and values are
    held fixed (they came from earlier tokens, which these tokens cannot change)."""
    d_mixed = dout @ w.W_o.T  # (R, n_q*hs)
    dq = np.empty_like(d_mixed)
    dk, dv = (np.empty((len(dout), w.W_k.shape[1]), dout.dtype) for _ in range(2))
    for text, cache in zip(texts, caches, strict=True):
        dq[text.rows], dk[text.rows], dv[text.rows] = mix_backward(d_mixed[text.rows], w, cache)
    return dq @ w.W_q.T + dk @ w.W_k.T + dv @ w.W_v.T  # (R, C)


def block_forward(
    x: np.ndarray, block: Block, eps: float, texts: list[Text]
) -> tuple[np.ndarray, np.ndarray, BlockCache]:
    """What the block's attention adds to the stream x (R, C), and then its FFN.

    Returns attn (R, C), ffn (R, C) and the cache; the stream after the block is
    x + attn + ffn. The FFN's hidden vector is cache.ffn.a (R, d_ff), its output ffn.
    """
    attn, caches = attention_forward(rms_norm(x, block.attn_norm, eps), block.attention, texts)
    mid = x + attn  # (R, C)
    ffn, ffn_cache = swiglu_forward(
        rms_norm(mid, block.ffn_norm, eps), block.W_gate, block.W_up, block.W_down
    )
    return attn, ffn, BlockCache(x, caches, mid, ffn_cache)


def block_backward(
    dout: np.ndarray, block: Block, eps: float, cache: BlockCache, texts: list[Text]
) -> np.ndarray:
    """dL/dx (R, C) into the block from dL/dout (R, C) out of it, residuals included."""
    d_normed = swiglu_input_grad(dout, cache.ffn)  # (R, C)
    dmid = dout + rms_norm_backward(d_normed, cache.mid, block.ffn_norm, eps)
    d_normed = attention_backward(dmid, block.attention, cache.attention, texts)
    return dmid + rms_norm_backward(d_normed, cache.x, block.attn_norm, eps)


def mix(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    w: AttentionWeights,
    angles: np.ndarray,
    past: KeysValues | None,
) -> tuple[np.ndarray, AttentionCache]:
    """Attention between the projections and W_o: rotate, score, mask, softmax, mix.

    q (T, n_q*hs), k and v (T, n_kv*hs) of the new tokens -> (T, n_q*hs). Kept apart from
    the projections so that several prompts can share one pass over the weights.
    """
    T = q.shape[0]
    q = rotate_pairs(split_heads(q, w.n_q), angles)  # (n_q, T, hs)
    k = rotate_pairs(split_heads(k, w.n_kv), angles)  # (n_kv, T, hs)
    v = split_heads(v, w.n_kv)  # (n_kv, T, hs)
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
    return mixed, AttentionCache(q, KeysValues(k, v), weights, angles)


def mix_backward(
    d_mixed: np.ndarray, w: AttentionWeights, cache: AttentionCache
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dL/dq (T, n_q*hs), dL/dk and dL/dv (T, n_kv*hs) of the new tokens, from dL/dmixed."""
    T = d_mixed.shape[0]
    k, v, weights = cache.seen.k, cache.seen.v, cache.weights  # (n_kv, T_all, hs), …
    n_kv, group, _, T_all = weights.shape
    hs = k.shape[2]
    d_mixed = d_mixed.reshape(T, w.n_q, hs).transpose(1, 0, 2).reshape(n_kv, group * T, hs)
    P = weights.reshape(n_kv, group * T, T_all)
    dv = P.transpose(0, 2, 1) @ d_mixed  # (n_kv, T_all, hs)
    dP = d_mixed @ v.transpose(0, 2, 1)  # (n_kv, group*T, T_all)
    d_scores = P * (dP - np.sum(dP * P, axis=-1, keepdims=True)) * hs**-0.5  # softmax's
    dq = d_scores @ k  # (n_kv, group*T, hs)
    dk = d_scores.transpose(0, 2, 1) @ cache.q  # (n_kv, T_all, hs)
    back = -cache.angles  # turning back by the same angle undoes the rotation
    dq = rotate_pairs(dq.reshape(w.n_q, T, hs), back)  # (n_q, T, hs)
    dk = rotate_pairs(dk[:, T_all - T :], back)  # (n_kv, T, hs): the new tokens' only
    dv = dv[:, T_all - T :]

    def merge(d: np.ndarray) -> np.ndarray:  # (heads, T, hs) -> (T, heads*hs)
        return d.transpose(1, 0, 2).reshape(T, -1)

    return merge(dq), merge(dk), merge(dv)

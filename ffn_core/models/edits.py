"""Edits to a real model's FFNs, the same for both models: scale a neuron, or rewrite a fact.

    Edit(layer=2, neuron=943)                  # neuron 943 of layer 3 writes nothing
    Edit(layer=8, neuron=100, scale=3.0, token=2)  # writes three times as much, at token 2

An Edit scales a neuron's activation h_j before W2 (W_down in a Llama block), so what the
neuron writes, h_j · W2[j], scales with it. A RankOneEdit changes W_down itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Edit:
    """Scale one neuron's activation: 0 switches it off, 2 doubles what it writes.

    token None means at every position; otherwise only at that position.
    """

    layer: int  # 0-based
    neuron: int  # 0-based
    scale: float = 0.0
    token: int | None = None


@dataclass(frozen=True)
class RankOneEdit:
    """W_down of one block becomes W_down + outer(u, v), without copying W_down.

    Each position's FFN output gains (h · u) v: a key direction u (d_ff,) that decides how
    much, and a value v (C,) that says what is written.
    """

    layer: int
    u: np.ndarray  # (d_ff,)
    v: np.ndarray  # (C,)


def apply_edits(
    h: np.ndarray,
    out: np.ndarray,
    W2: np.ndarray,
    edits: list[Edit],
    positions: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One layer's h (T, d_ff) and FFN output (T, C) after `edits`, which are that layer's.

    positions (T,) are the rows' token positions (default 0, 1, …). Only the changed
    entries are multiplied by W2 again, so an edit costs one row of W2. With no edits the
    arrays themselves come back, uncopied.
    """
    if not edits:
        return h, out
    positions = np.arange(len(h)) if positions is None else positions
    h, out = h.copy(), out.copy()
    for edit in edits:
        rows = slice(None) if edit.token is None else positions == edit.token
        before = h[rows, edit.neuron].copy()
        h[rows, edit.neuron] = before * edit.scale
        out[rows] += np.outer(h[rows, edit.neuron] - before, W2[edit.neuron])
    return h, out

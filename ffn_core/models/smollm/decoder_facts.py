"""The toy pages' facts, checked on a real decoder's numbers.

Each function returns how far the fact is from holding exactly (0 would be exact): the
page shows the number, and the tests check it against float32's rounding.
"""

from __future__ import annotations

import numpy as np

from ffn_core.swiglu import swiglu_forward


def sum_of_values_gap(h: np.ndarray, W_down: np.ndarray, out: np.ndarray) -> float:
    """max |Σ_j h_j · W_down[j] − out|, the sum taken one neuron at a time in float64.

    h (d_ff,) one token's hidden vector, W_down (d_ff, C), out (C,) the FFN's output.
    """
    total = np.zeros(W_down.shape[1])  # (C,)
    for j in np.flatnonzero(h):
        total += float(h[j]) * W_down[j].astype(np.float64)
    return float(np.max(np.abs(total - out)))


def rows_moved(
    x: np.ndarray, W_gate: np.ndarray, W_up: np.ndarray, W_down: np.ndarray, t: int
) -> np.ndarray:
    """(T,): how much each token's FFN output moves when only token t's input changes.

    x (T, C) the FFN's input. Token t's row is replaced by the next token's row (the first
    token's, for the last); every other row's output moves by exactly 0 because the FFN
    reads one row at a time.
    """
    before, _ = swiglu_forward(x, W_gate, W_up, W_down)  # (T, C)
    changed = x.copy()
    changed[t] = x[(t + 1) % len(x)]
    after, _ = swiglu_forward(changed, W_gate, W_up, W_down)  # (T, C)
    return np.abs(after - before).max(axis=1)


def earlier_tokens_moved(states: np.ndarray, longer_states: np.ndarray) -> float:
    """max |difference| of the first T tokens' states (L+1, T, C) when words are added after
    them (longer_states: (L+1, T', C), T' > T). The causal mask makes it 0 up to rounding."""
    T = states.shape[1]
    return float(np.max(np.abs(longer_states[:, :T] - states)))

"""Softmax and its logarithm over the last axis: scores in, probabilities out.

    p_i = exp(z_i - max z) / sum_j exp(z_j - max z)      (..., n) -> (..., n)

Shifting by the maximum changes nothing mathematically and keeps exp from overflowing.
"""

from __future__ import annotations

import numpy as np


def log_softmax(z: np.ndarray) -> np.ndarray:
    """log p over the last axis, computed without forming p (accurate for tiny p)."""
    shifted = z - z.max(axis=-1, keepdims=True)  # (..., n)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def softmax(z: np.ndarray) -> np.ndarray:
    """p over the last axis: non-negative, summing to 1."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))  # (..., n)
    return e / e.sum(axis=-1, keepdims=True)

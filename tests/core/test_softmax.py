"""Softmax and log-softmax against the formula, written with the math module."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ffn_core.softmax import log_softmax, softmax


def reference(row: list[float]) -> list[float]:
    total = sum(math.exp(v) for v in row)
    return [math.exp(v) / total for v in row]


def test_softmax_of_each_row_is_the_formula(rng):
    z = rng.standard_normal((3, 4, 5))
    expected = [[reference(list(row)) for row in block] for block in z]
    np.testing.assert_allclose(softmax(z), expected, rtol=1e-12)
    np.testing.assert_allclose(np.exp(log_softmax(z)), expected, rtol=1e-12)


def test_huge_scores_neither_overflow_nor_lose_the_small_probabilities():
    z = np.array([[1000.0, 1000.0 - 50.0, -1000.0]])
    assert np.isfinite(softmax(z)).all()
    assert log_softmax(z)[0, 1] == pytest.approx(-50.0, abs=1e-9)  # p ≈ 2e-22, still exact
    assert log_softmax(z)[0, 2] == pytest.approx(-2000.0, abs=1e-9)

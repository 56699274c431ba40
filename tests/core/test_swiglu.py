"""One SwiGLU neuron on a two-number input, and its slices: against the formula."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ffn_core.swiglu import swiglu_slices, swiglu_unit


def silu(z: float) -> float:
    return z / (1.0 + math.exp(-z))


def test_the_unit_is_silu_of_the_gate_times_up_on_any_shape():
    gate = np.array([[-3.0, -0.5], [0.0, 2.5]])
    up = np.array([[1.0, -2.0], [4.0, 0.25]])
    expected = [
        [silu(g) * u for g, u in zip(gr, ur, strict=True)] for gr, ur in zip(gate, up, strict=True)
    ]
    np.testing.assert_allclose(swiglu_unit(gate, up), expected, rtol=1e-12)


def test_the_slices_are_silu_times_z_and_silu():
    z = np.linspace(-4, 4, 9)
    slices = swiglu_slices(z)
    np.testing.assert_allclose(
        slices["SwiGLU, gate = up = z"], [silu(v) * v for v in z], atol=1e-12
    )
    np.testing.assert_allclose(slices["SwiGLU, up = 1"], [silu(v) for v in z], atol=1e-12)


@pytest.mark.parametrize("name", ["SwiGLU, gate = up = z", "SwiGLU, up = 1"])
def test_the_slopes_of_the_slices_match_finite_differences(name):
    z = np.linspace(-3, 3, 13)
    eps = 1e-6
    numeric = (swiglu_slices(z + eps)[name] - swiglu_slices(z - eps)[name]) / (2 * eps)
    np.testing.assert_allclose(swiglu_slices(z, derivative=True)[name], numeric, atol=1e-8)

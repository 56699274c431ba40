"""The activation functions an FFN can put between its two linear layers.

Each one is elementwise: an array of any shape goes in and the same shape comes out, in
the same floating dtype. Each has its derivative beside it, for the backward pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, ndtr

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_TANH_CUBIC = 0.044715  # the cubic coefficient of the tanh approximation (Hendrycks & Gimpel)


def relu(z: np.ndarray) -> np.ndarray:
    """max(0, z)."""
    return np.maximum(z, 0)


def relu_grad(z: np.ndarray) -> np.ndarray:
    """1 where z > 0, else 0 (the kink at 0 takes the left slope, 0)."""
    return (z > 0).astype(z.dtype)


def gelu(z: np.ndarray) -> np.ndarray:
    """Exact GELU: z * Phi(z), Phi the standard normal CDF (computed with erf, not a fit)."""
    return z * ndtr(z)


def gelu_grad(z: np.ndarray) -> np.ndarray:
    """d/dz z * Phi(z) = Phi(z) + z * phi(z), phi the standard normal density."""
    return ndtr(z) + z * (np.exp(-0.5 * z * z) * _INV_SQRT_2PI)


def _tanh_inner(z: np.ndarray) -> np.ndarray:
    """u = sqrt(2/pi) (z + 0.044715 z^3), the argument of the tanh."""
    return _SQRT_2_OVER_PI * (z + _TANH_CUBIC * z * z * z)


def gelu_tanh(z: np.ndarray) -> np.ndarray:
    """GPT-2's approximation: 0.5 z (1 + tanh(u)), u = sqrt(2/pi) (z + 0.044715 z^3).

    Computed as z * sigmoid(2u), the same number, because 1 + tanh(u) cancels to 0 for
    u << 0 while sigmoid(2u) stays accurate there.
    """
    s = expit(2 * _tanh_inner(z))
    s *= z
    return s


def gelu_tanh_grad(z: np.ndarray) -> np.ndarray:
    """sigmoid(2u) + 2 z sigmoid(2u) (1 - sigmoid(2u)) du/dz, du/dz = sqrt(2/pi)(1 + 3c z^2)."""
    s = expit(2 * _tanh_inner(z))
    du = _SQRT_2_OVER_PI * (1 + 3 * _TANH_CUBIC * z * z)
    return s + 2 * z * s * (1 - s) * du


def silu(z: np.ndarray) -> np.ndarray:
    """SiLU, also called Swish: z * sigmoid(z)."""
    return z * expit(z)


def silu_grad(z: np.ndarray) -> np.ndarray:
    """d/dz z * s(z) = s(z) (1 + z (1 - s(z))), s the sigmoid."""
    s = expit(z)
    return s * (1 + z * (1 - s))


def identity(z: np.ndarray) -> np.ndarray:
    """z itself: no bend, so the two linear layers collapse into one."""
    return z


def identity_grad(z: np.ndarray) -> np.ndarray:
    """1 everywhere."""
    return np.ones_like(z)


@dataclass(frozen=True)
class Activation:
    """One entry of the registry: what the pages show and what the backward pass needs."""

    name: str  # the key in ACTIVATIONS and in URLs
    fn: Callable[[np.ndarray], np.ndarray]
    derivative: Callable[[np.ndarray], np.ndarray]
    label: str  # how a page names it
    formula: str  # one line a learner can read


ACTIVATIONS: dict[str, Activation] = {
    a.name: a
    for a in (
        Activation("relu", relu, relu_grad, "ReLU", "max(0, z)"),
        Activation("gelu", gelu, gelu_grad, "GELU (exact)", "z · Φ(z), Φ the normal CDF"),
        Activation(
            "gelu_tanh",
            gelu_tanh,
            gelu_tanh_grad,
            "GELU (tanh approx.)",
            "0.5 z (1 + tanh(√(2/π) (z + 0.044715 z³)))",
        ),
        Activation("silu", silu, silu_grad, "SiLU / Swish", "z · σ(z), σ the sigmoid"),
        Activation("identity", identity, identity_grad, "none (identity)", "z"),
    )
}


def get_activation(name: str) -> Activation:
    """Look an activation up by name; an unknown name raises ValueError listing the known ones."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        known = ", ".join(ACTIVATIONS)
        raise ValueError(f"unknown activation {name!r}; expected one of {known}") from None

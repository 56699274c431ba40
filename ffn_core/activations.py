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


def relu_squared(z: np.ndarray) -> np.ndarray:
    """max(0, z)², Squared ReLU (So et al., 2021, Primer)."""
    r = np.maximum(z, 0)
    return r * r


def relu_squared_grad(z: np.ndarray) -> np.ndarray:
    """2 max(0, z): 0 at and below 0, so no kink: the slope does not jump at 0."""
    return 2 * np.maximum(z, 0)


def identity(z: np.ndarray) -> np.ndarray:
    """z itself: no bend, so the two linear layers collapse into one."""
    return z


def identity_grad(z: np.ndarray) -> np.ndarray:
    """1 everywhere."""
    return np.ones_like(z)


@dataclass(frozen=True)
class Activation:
    """One activation and every fact a page says of it. Pages read these facts and never
    branch on a name: a new activation is one more record here (and its tests)."""

    name: str  # the core's name, the key in ACTIVATIONS
    fn: Callable[[np.ndarray], np.ndarray]
    derivative: Callable[[np.ndarray], np.ndarray]
    label: str  # its name on screen and in links (the sidebar's choice)
    formula: str  # one line a learner can read
    slope: str  # its derivative, one line a learner can read
    about: str  # what it is and who uses it, in a few words (the Glossary's entry)
    code: str  # `def act(z)` in plain NumPy, for a notebook
    slope_code: str  # `def act_slope(z)`, which may use what `code` defines
    zero_below: bool = False  # exactly 0, value and slope, for every z <= 0: a silent neuron
    kink: bool = False  # its slope jumps at z = 0: a gradient check must keep off it there
    gate: bool = False  # its slope is only ever 0 or 1: the backward pass gates dh
    bends: bool = True  # False for a straight line: the two layers collapse into one


_GELU_CODE = (
    "from math import erf\n\n_erf = np.vectorize(erf)\n\n\ndef act(z):\n"
    "    return 0.5 * z * (1.0 + _erf(z / np.sqrt(2.0)))"
)
ACTIVATIONS: dict[str, Activation] = {
    a.name: a
    for a in (
        Activation(
            "relu",
            relu,
            relu_grad,
            "ReLU",
            "max(0, z)",
            "1 where z > 0, else 0",
            "the original Transformer's bend (2017), exactly 0 at and below zero, with a kink at 0",
            "def act(z):\n    return np.maximum(z, 0.0)",
            "def act_slope(z):\n    return (z > 0).astype(float)",
            zero_below=True,
            kink=True,
            gate=True,
        ),
        Activation(
            "gelu",
            gelu,
            gelu_grad,
            "GELU",
            "z · Φ(z), Φ the standard normal CDF",
            "Φ(z) + z · φ(z), φ the standard normal density",
            "a smooth ReLU (BERT, GPT-2) that dips just below 0 for negative z",
            _GELU_CODE,
            "def act_slope(z):\n    phi = np.exp(-0.5 * z**2) / np.sqrt(2 * np.pi)\n"
            "    return 0.5 * (1.0 + _erf(z / np.sqrt(2.0))) + z * phi",
        ),
        Activation(
            "gelu_tanh",
            gelu_tanh,
            gelu_tanh_grad,
            "GELU-tanh",
            "0.5 z (1 + tanh(√(2/π) (z + 0.044715 z³)))",
            "the derivative of that formula, by the chain rule",
            "GPT-2's approximation of GELU, within 10⁻³ of it",
            "def act(z):\n    return 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * "
            "(z + 0.044715 * z**3)))",
            "def act_slope(z):\n    c = np.sqrt(2.0 / np.pi)\n"
            "    t = np.tanh(c * (z + 0.044715 * z**3))\n"
            "    return 0.5 * (1 + t) + 0.5 * z * (1 - t**2) * c * (1 + 3 * 0.044715 * z**2)",
        ),
        Activation(
            "silu",
            silu,
            silu_grad,
            "SiLU",
            "z · σ(z), σ the sigmoid 1 / (1 + e⁻ᶻ)",
            "σ(z) (1 + z (1 − σ(z)))",
            "also called Swish, another smooth ReLU, and the gate of Llama's SwiGLU",
            "def act(z):\n    return z / (1.0 + np.exp(-z))",
            "def act_slope(z):\n    s = 1.0 / (1.0 + np.exp(-z))\n    return s * (1 + z * (1 - s))",
        ),
        Activation(
            "relu_squared",
            relu_squared,
            relu_squared_grad,
            "Squared ReLU",
            "max(0, z)²",
            "2 · max(0, z)",
            "ReLU squared (Primer, So et al. 2021; the MLP of the modded-nanoGPT speedrun), "
            "exactly 0 at and below zero like ReLU, but its slope rises from 0 with no jump",
            "def act(z):\n    return np.maximum(z, 0.0) ** 2",
            "def act_slope(z):\n    return 2.0 * np.maximum(z, 0.0)",
            zero_below=True,
        ),
        Activation(
            "identity",
            identity,
            identity_grad,
            "none",
            "z",
            "1",
            "no activation: a straight line, so W1 and W2 collapse into one matrix",
            "def act(z):\n    return z",
            "def act_slope(z):\n    return np.ones_like(z)",
            bends=False,
        ),
    )
}
LABELS = {a.label: a.name for a in ACTIVATIONS.values()}  # on screen -> the core's name


def get_activation(name: str) -> Activation:
    """Look an activation up by name; an unknown name raises ValueError listing the known ones."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        known = ", ".join(ACTIVATIONS)
        raise ValueError(f"unknown activation {name!r}; expected one of {known}") from None

"""SwiGLU, the gated FFN of Llama: three matrices and no biases.

gate = x @ W_gate         (..., d_ff)
up   = x @ W_up           (..., d_ff)
a    = silu(gate) * up    (..., d_ff)    the gate decides how much of `up` gets through
out  = a @ W_down         (..., d_model)

With the SiLU taken out (`gate_fn="identity"`), a = gate * up: the FFN is then a bilinear
map of x, quadratic in it, and no single matrix (ffn_core.analysis.affine_fit_gap).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.activations import get_activation, silu, silu_grad
from ffn_core.ffn import weight_grad
from ffn_core.shapes import as_float_arrays, check_input, check_matrix, check_shape


@dataclass(frozen=True)
class SwiGLUCache:
    """What the forward pass keeps for the backward pass."""

    x: np.ndarray  # (N, d_model)
    gate: np.ndarray  # (N, d_ff)
    up: np.ndarray  # (N, d_ff)
    s: np.ndarray  # (N, d_ff): silu(gate)
    a: np.ndarray  # (N, d_ff): silu(gate) * up, the input of W_down
    W_gate: np.ndarray  # (d_model, d_ff)
    W_up: np.ndarray  # (d_model, d_ff)
    W_down: np.ndarray  # (d_ff, d_model)
    lead_shape: tuple[int, ...]
    gate_fn: str = "silu"  # what the gate goes through: "silu", or "identity" (bilinear)


def swiglu_forward(
    x: np.ndarray,
    W_gate: np.ndarray,
    W_up: np.ndarray,
    W_down: np.ndarray,
    gate_fn: str = "silu",
) -> tuple[np.ndarray, SwiGLUCache]:
    """(silu(x @ W_gate) * (x @ W_up)) @ W_down for every position independently.

    Shapes: x (..., d_model), W_gate and W_up (d_model, d_ff), W_down (d_ff, d_model).
    `gate_fn` names the function the gate goes through (an ffn_core.ACTIVATIONS key):
    "silu" for SwiGLU, "identity" for the bilinear map left when SiLU is taken out.
    Returns out (..., d_model) and the cache for `swiglu_backward`.
    """
    gate_act = get_activation(gate_fn)
    x, W_gate, W_up, W_down = as_float_arrays(x=x, W_gate=W_gate, W_up=W_up, W_down=W_down)
    check_matrix("W_gate", W_gate, "(d_model, d_ff)")
    d_model, d_ff = W_gate.shape
    check_input(x, d_model, "W_gate")
    check_shape("W_up", W_up, (d_model, d_ff), "(d_model, d_ff), the shape of W_gate")
    check_shape("W_down", W_down, (d_ff, d_model), "(d_ff, d_model)")
    lead_shape = x.shape[:-1]
    x2d = x.reshape(-1, d_model)  # (N, d_model)
    gate = x2d @ W_gate  # (N, d_ff)
    up = x2d @ W_up  # (N, d_ff)
    s = gate_act.fn(gate)  # (N, d_ff)
    a = s * up  # (N, d_ff)
    out = a @ W_down  # (N, d_model)
    cache = SwiGLUCache(x2d, gate, up, s, a, W_gate, W_up, W_down, lead_shape, gate_fn)
    return out.reshape(*lead_shape, d_model), cache


@dataclass(frozen=True)
class SwiGLUSteps:
    """SwiGLU's backward pass through its product, step by step (each (N, d_ff) but dx)."""

    dout2d: np.ndarray  # (N, d_model)
    da: np.ndarray  # dout @ W_down.T: the gradient at a
    slope: np.ndarray  # the gate function's slope at gate: silu'(gate)
    dup: np.ndarray  # da * silu(gate)
    dgate: np.ndarray  # da * up * silu'(gate)
    dx: np.ndarray  # (..., d_model)


def swiglu_backward(
    dout: np.ndarray, cache: SwiGLUCache
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gradients (dx, dW_gate, dW_up, dW_down) given dout = dL/dout of shape (..., d_model)."""
    steps = swiglu_steps(dout, cache)
    dW_down = weight_grad(cache.a, steps.dout2d)  # (d_ff, d_model)
    dW_gate = weight_grad(cache.x, steps.dgate)  # (d_model, d_ff)
    dW_up = weight_grad(cache.x, steps.dup)  # (d_model, d_ff)
    return steps.dx, dW_gate, dW_up, dW_down


def swiglu_input_grad(dout: np.ndarray, cache: SwiGLUCache) -> np.ndarray:
    """dx alone, for when the weights stay fixed (a fact edit): (..., d_model)."""
    return swiglu_steps(dout, cache).dx


def swiglu_steps(dout: np.ndarray, cache: SwiGLUCache) -> SwiGLUSteps:
    """The backward pass up to the weights' gradients: how dout splits at the product."""
    d_model = cache.W_down.shape[1]
    dout = np.asarray(dout, dtype=cache.a.dtype)
    check_shape("dout", dout, (*cache.lead_shape, d_model), "the shape of out")
    dout2d = dout.reshape(-1, d_model)  # (N, d_model)
    da = dout2d @ cache.W_down.T  # (N, d_ff)
    dup = da * cache.s  # (N, d_ff)
    slope = get_activation(cache.gate_fn).derivative(cache.gate)  # (N, d_ff)
    dgate = da * cache.up * slope  # (N, d_ff)
    dx = dgate @ cache.W_gate.T + dup @ cache.W_up.T  # (N, d_model)
    return SwiGLUSteps(dout2d, da, slope, dup, dgate, dx.reshape(*cache.lead_shape, d_model))


# One SwiGLU neuron whose gate reads the first input and whose up value reads the second:
# the same swiglu_forward every SwiGLU FFN runs, on a two-number input.
UNIT_GATE, UNIT_UP = np.array([[1.0], [0.0]]), np.array([[0.0], [1.0]])  # (2, 1) each
UNIT_DOWN = np.array([[1.0, 0.0]])  # (1, 2): the neuron writes into the first coordinate


def swiglu_unit(gate: np.ndarray, up: np.ndarray) -> np.ndarray:
    """silu(gate) · up, elementwise over arrays of one shape, through swiglu_forward."""
    gate, up = np.broadcast_arrays(np.asarray(gate, float), np.asarray(up, float))
    x = np.stack([gate, up], axis=-1)  # (..., 2)
    out, _ = swiglu_forward(x, UNIT_GATE, UNIT_UP, UNIT_DOWN)  # (..., 2)
    return out[..., 0]


def swiglu_slices(z: np.ndarray, derivative: bool = False) -> dict[str, np.ndarray]:
    """Two one-input slices of SwiGLU's surface, as curves over z (or their slopes):

    along the diagonal gate = up = z it is silu(z)·z, a steeper, one-sided bend; with up
    held at 1 it is silu(z) itself.
    """
    if derivative:
        # d/dz silu(z)·z = silu'(z)·z + silu(z); d/dz silu(z) = silu'(z)
        return {
            "SwiGLU, gate = up = z": silu_grad(z) * z + silu(z),
            "SwiGLU, up = 1": silu_grad(z),
        }
    return {"SwiGLU, gate = up = z": swiglu_unit(z, z), "SwiGLU, up = 1": swiglu_unit(z, 1.0)}

"""The two forms of FFN the toy runs, each behind the same few calls.

plain:  out = act(x @ W1 + b1) @ W2 + b2              weights W1, b1, W2, b2
gated:  out = (g(x @ W_gate) * (x @ W_up)) @ W_down   weights W_gate, W_up, W_down

The form follows from the FFN's name: an activation of ffn_core.ACTIVATIONS ("relu",
"gelu", …, "identity") makes the plain FFN; "swiglu" the gated one with g = SiLU, as in
Llama, Mistral, Qwen and Gemma; "bilinear" the gated one with the SiLU taken out (g the
identity), which is quadratic in x.

Either way, neuron j passes on one number for each position, its coefficient (h_j, or
g(gate_j) · up_j), and writes that many times its value row (row j of W2, or of W_down)
into the output: `writes` gives the three pieces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.ffn import FFNCache, ffn_backward, ffn_forward
from ffn_core.swiglu import SwiGLUCache, swiglu_backward, swiglu_forward

GATES = {"swiglu": "silu", "bilinear": "identity"}  # a gated FFN's name: its gate's function
PLAIN_NAMES = ("W1", "b1", "W2", "b2")
GATED_NAMES = ("W_gate", "W_up", "W_down")


def is_gated(ffn: str) -> bool:
    """Whether the FFN named `ffn` is the gated form (three matrices, no biases)."""
    return ffn in GATES


def weight_shapes(ffn: str, d_model: int, d_ff: int) -> dict[str, tuple[int, ...]]:
    """Each weight's shape: W1 and W_gate, W_up (d_model, d_ff); W2 and W_down (d_ff, d_model)."""
    if is_gated(ffn):
        return {"W_gate": (d_model, d_ff), "W_up": (d_model, d_ff), "W_down": (d_ff, d_model)}
    return {"W1": (d_model, d_ff), "b1": (d_ff,), "W2": (d_ff, d_model), "b2": (d_model,)}


def run(
    x: np.ndarray, weights: dict[str, np.ndarray], ffn: str
) -> tuple[np.ndarray, FFNCache | SwiGLUCache]:
    """out (..., d_model) and the cache for `run_backward`, for x (..., d_model)."""
    if is_gated(ffn):
        return swiglu_forward(
            x, weights["W_gate"], weights["W_up"], weights["W_down"], gate_fn=GATES[ffn]
        )
    return ffn_forward(x, weights["W1"], weights["b1"], weights["W2"], weights["b2"], ffn)


def run_backward(
    dout: np.ndarray, cache: FFNCache | SwiGLUCache
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(dx (..., d_model), each weight's gradient by name), given dout = dL/dout."""
    if isinstance(cache, SwiGLUCache):
        dx, dW_gate, dW_up, dW_down = swiglu_backward(dout, cache)
        return dx, {"W_gate": dW_gate, "W_up": dW_up, "W_down": dW_down}
    dx, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
    return dx, {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}


@dataclass(frozen=True)
class Writes:
    """One forward pass, neuron by neuron: out = coefficient @ values + bias."""

    out: np.ndarray  # (..., d_model)
    coefficient: np.ndarray  # (..., d_ff): h_j, or g(gate_j) · up_j
    values: np.ndarray  # (d_ff, d_model): W2, or W_down
    bias: np.ndarray  # (d_model,): b2, or zeros


def value_rows(weights: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(values (d_ff, d_model), bias (d_model,)): W2 and b2, or W_down and zeros."""
    if "W_down" in weights:
        values = weights["W_down"]
        return values, np.zeros(values.shape[1])
    return weights["W2"], weights["b2"]


def writes(x: np.ndarray, weights: dict[str, np.ndarray], ffn: str) -> Writes:
    """What each neuron passes on for x (..., d_model), and the value rows it writes with."""
    out, cache = run(x, weights, ffn)
    lead = np.shape(x)[:-1]
    passed = cache.a if isinstance(cache, SwiGLUCache) else cache.h  # (N, d_ff)
    values, bias = value_rows(weights)
    return Writes(out, passed.reshape(*lead, -1), values, bias)

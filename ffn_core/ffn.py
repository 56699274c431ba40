"""The position-wise feed-forward network, forward and backward, in the x @ W convention.

    h_pre = x @ W1 + b1      (..., d_ff)     the keys: how well x matches each neuron's pattern
    h     = act(h_pre)       (..., d_ff)     which neurons fire, and how hard
    out   = h @ W2 + b2      (..., d_model)  each neuron adds its row of W2, scaled by h

All leading axes (batch, time, ...) are flattened into one axis of positions, so every
matrix product is a single 2-D product, the shape BLAS runs fastest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.activations import get_activation
from ffn_core.shapes import as_float_arrays, check_input, check_matrix, check_shape


@dataclass(frozen=True)
class FFNCache:
    """What the forward pass keeps for the backward pass."""

    x: np.ndarray  # (N, d_model): the input, leading axes flattened into N positions
    h_pre: np.ndarray  # (N, d_ff): its sign gates the ReLU gradient
    h: np.ndarray  # (N, d_ff): the input of the second linear layer
    W1: np.ndarray  # (d_model, d_ff)
    W2: np.ndarray  # (d_ff, d_model)
    activation: str
    lead_shape: tuple[int, ...]  # the leading axes of x, restored on the way out


def check_weights(W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray) -> None:
    """Raise ValueError naming the offending weight unless the four shapes fit together."""
    check_matrix("W1", W1, "(d_model, d_ff)")
    d_model, d_ff = W1.shape
    check_shape("b1", b1, (d_ff,), "(d_ff,)")
    check_shape("W2", W2, (d_ff, d_model), "(d_ff, d_model)")
    check_shape("b2", b2, (d_model,), "(d_model,)")


def check_ffn_shapes(
    x: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray
) -> None:
    """x ends in d_model (the first axis of W1), and the weights fit together.

    x is checked first: a transposed W1 is then reported as a mismatch with x.
    """
    check_matrix("W1", W1, "(d_model, d_ff)")
    check_input(x, W1.shape[0], "W1")
    check_weights(W1, b1, W2, b2)


def weight_grad(inputs: np.ndarray, grads: np.ndarray) -> np.ndarray:
    """Sum over positions of outer(inputs[n], grads[n]): inputs.T @ grads, (A, N) @ (N, B).

    Shared weights collect one outer product per position. With a single position the
    product has inner dimension 1, which BLAS runs several times slower than np.outer.
    """
    if inputs.shape[0] == 1:
        return np.outer(inputs[0], grads[0])  # (A, B)
    return inputs.T @ grads  # (A, B)


def ffn_forward(
    x: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    activation: str = "relu",
) -> tuple[np.ndarray, FFNCache]:
    """FFN(x) = act(x @ W1 + b1) @ W2 + b2, applied to every position independently.

    Shapes: x (..., d_model), W1 (d_model, d_ff), b1 (d_ff,), W2 (d_ff, d_model),
    b2 (d_model,). Returns out (..., d_model) and the cache for `ffn_backward`.
    float32 in gives float32 out; mixed float32/float64 computes in float64.
    """
    act = get_activation(activation)
    x, W1, b1, W2, b2 = as_float_arrays(x=x, W1=W1, b1=b1, W2=W2, b2=b2)
    check_ffn_shapes(x, W1, b1, W2, b2)
    lead_shape = x.shape[:-1]
    x2d = x.reshape(-1, x.shape[-1])  # (N, d_model)
    h_pre = x2d @ W1  # (N, d_ff)
    h_pre += b1
    h = act.fn(h_pre)  # (N, d_ff)
    out = h @ W2  # (N, d_model)
    out += b2
    cache = FFNCache(x2d, h_pre, h, W1, W2, activation, lead_shape)
    return out.reshape(*lead_shape, out.shape[-1]), cache  # (..., d_model)


@dataclass(frozen=True)
class FFNSteps:
    """The backward pass, every step of it: the gradients, and on the way the gradient at
    h, the activation's slope at h_pre, and the gradient at h_pre (each (N, d_ff))."""

    dx: np.ndarray  # (..., d_model)
    dW1: np.ndarray  # noqa: N815 (d_model, d_ff), the lesson's name
    db1: np.ndarray  # (d_ff,)
    dW2: np.ndarray  # noqa: N815 (d_ff, d_model)
    db2: np.ndarray  # (d_model,)
    dh: np.ndarray | None  # dout @ W2.T; None when not kept (overwritten by dh_pre)
    slope: np.ndarray  # act'(h_pre): for ReLU the gate, 1 where h_pre > 0, else 0
    dh_pre: np.ndarray  # dh * slope

    def gradients(self) -> dict[str, np.ndarray]:
        """The five gradients by name: dx, dW1, db1, dW2, db2."""
        return {n: getattr(self, n) for n in ("dx", "dW1", "db1", "dW2", "db2")}


def ffn_backward_steps(dout: np.ndarray, cache: FFNCache, keep: bool = True) -> FFNSteps:
    """The backward pass with its steps, given dout = dL/dout of shape (..., d_model).
    The weights are shared by every position, so their gradients sum over all leading
    axes. keep=False reuses dh's memory for dh_pre (and leaves dh out): the fast path."""
    x2d, h_pre, h, W1, W2 = cache.x, cache.h_pre, cache.h, cache.W1, cache.W2
    expected = (*cache.lead_shape, W2.shape[1])
    dout = np.asarray(dout, dtype=h.dtype)
    check_shape("dout", dout, expected, "the shape of out")
    dout2d = dout.reshape(-1, expected[-1])  # (N, d_model)

    dW2 = weight_grad(h, dout2d)  # (d_ff, d_model)
    db2 = dout2d.sum(axis=0)  # (d_model,)
    dh = dout2d @ W2.T  # (N, d_ff)
    slope = get_activation(cache.activation).derivative(h_pre)  # (N, d_ff)
    dh_pre = dh * slope if keep else np.multiply(dh, slope, out=dh)  # (N, d_ff)

    dW1 = weight_grad(x2d, dh_pre)  # (d_model, d_ff)
    db1 = dh_pre.sum(axis=0)  # (d_ff,)
    dx = (dh_pre @ W1.T).reshape(*cache.lead_shape, W1.shape[0])  # (..., d_model)
    return FFNSteps(dx, dW1, db1, dW2, db2, dh if keep else None, slope, dh_pre)


def ffn_backward(
    dout: np.ndarray, cache: FFNCache
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of a scalar loss, given dout = dL/dout of shape (..., d_model).

    Returns (dx, dW1, db1, dW2, db2), each the shape of its quantity (ffn_backward_steps
    also keeps the steps between them).
    """
    steps = ffn_backward_steps(dout, cache, keep=False)
    return steps.dx, steps.dW1, steps.db1, steps.dW2, steps.db2

"""Check the analytic backward pass against centred finite differences.

The loss is L = sum(out * G) for a fixed random G, so dL/dout = G exactly. Each entry of
each quantity is nudged by +eps and -eps and the slope (L+ - L-) / (2 eps) is compared
with the analytic gradient. That costs two forward passes per entry, which is why it is a
check, not a training method.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ffn_core import forms
from ffn_core.ffn import FFNCache, ffn_backward, ffn_forward


def relative_error(analytic: np.ndarray, numeric: np.ndarray) -> np.ndarray:
    """|a - n| / (|a| + |n|), with the denominator floored at 1e-12 so 0 vs 0 gives 0."""
    return np.abs(analytic - numeric) / np.maximum(np.abs(analytic) + np.abs(numeric), 1e-12)


def gradient_check(
    x: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    activation: str = "relu",
    eps: float = 1e-6,
    seed: int = 0,
    dtype: type = np.float64,
    per_parameter: int | None = None,
) -> dict[str, float]:
    """Max relative error between analytic and numerical gradients, for W1, b1, W2, b2, x.

    Runs in `dtype` (float64 by default; float32 shows why the check needs float64).
    `seed` fixes the upstream gradient G, and the entries checked when `per_parameter`
    limits them: then at most that many entries of each quantity, drawn at random, are
    nudged (2 forward passes each) instead of every one. Shapes as in `ffn_forward`.
    """
    weights = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}
    return check_form(x, weights, activation, eps, seed, dtype, per_parameter)


def check_form(
    x: np.ndarray,
    weights: dict[str, np.ndarray],
    ffn: str,
    eps: float = 1e-6,
    seed: int = 0,
    dtype: type = np.float64,
    per_parameter: int | None = None,
) -> dict[str, float]:
    """gradient_check for either form of ffn_core.forms: the plain FFN's W1, b1, W2, b2, or
    SwiGLU's W_gate, W_up, W_down (ffn "swiglu" or "bilinear"); each weight's and x's max
    relative error, in that order."""
    params = {  # private copies: the check nudges them in place
        name: np.array(value, dtype=dtype) for name, value in {**weights, "x": x}.items()
    }

    def loss() -> float:
        out, _ = forms.run(params["x"], params, ffn)
        return float(np.sum(out * G))

    out, cache = forms.run(params["x"], params, ffn)
    G = np.random.default_rng(seed).standard_normal(out.shape).astype(dtype)
    dx, grads = forms.run_backward(G, cache)
    analytic = {**grads, "x": dx}

    picker = np.random.default_rng([seed, 1])
    errors = {}
    for name, param in params.items():
        flat = np.arange(param.size)
        if per_parameter is not None and param.size > per_parameter:
            flat = np.sort(picker.choice(param.size, per_parameter, replace=False))
        numeric = numerical_gradient(param, loss, eps, flat)
        checked = analytic[name].reshape(-1)[flat]
        errors[name] = float(relative_error(checked, numeric).max(initial=0.0))
    return errors


def numerical_gradient(
    param: np.ndarray, loss: Callable[[], float], eps: float, flat: np.ndarray
) -> np.ndarray:
    """Centred differences of `loss()` at the entries `flat` of `param`, which is nudged
    in place and restored: (L(p + ε) − L(p − ε)) / 2ε for each."""
    numeric = np.zeros(len(flat), dtype=param.dtype)
    for k, idx in enumerate(zip(*np.unravel_index(flat, param.shape), strict=True)):
        original = param[idx]
        param[idx] = original + eps
        loss_plus = loss()
        param[idx] = original - eps
        loss_minus = loss()
        param[idx] = original
        numeric[k] = (loss_plus - loss_minus) / (2 * eps)
    return numeric


def loss_along_score(
    x: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    g: np.ndarray,
    neuron: int,
    shifts: np.ndarray,
    activation: str = "relu",
) -> np.ndarray:
    """L = FFN(x) · g at one token x (d_model,), with neuron's key W1[:, neuron] moved along
    x so that its score x · W1[:, neuron] changes by each of `shifts`: shape (len(shifts),).

    Moving the key by s · x / (x · x) changes the score by exactly s and no other score.
    """
    direction = x / max(float(x @ x), 1e-12)  # (d_model,)
    losses = []
    for s in np.asarray(shifts, dtype=float):
        moved = W1.copy()
        moved[:, neuron] += s * direction
        out, _ = ffn_forward(x, moved, b1, W2, b2, activation)  # (d_model,)
        losses.append(float(out @ g))
    return np.array(losses)


def onto_kink(h_pre: np.ndarray, b1: np.ndarray, eps: float) -> tuple[np.ndarray, int, int]:
    """b1 moved so that the score nearest zero, h_pre[n, j] of h_pre (N, d_ff), becomes eps/2:
    a check that nudges by ±eps then straddles ReLU's kink. Returns (b1 (d_ff,), n, j)."""
    n, j = np.unravel_index(np.argmin(np.abs(h_pre)), h_pre.shape)
    moved = b1.copy()
    moved[j] += eps / 2 - h_pre[n, j]
    return moved, int(n), int(j)


def backward_ms(dout: np.ndarray, cache: FFNCache) -> float:
    """Wall time of one backward pass, in milliseconds: what gives every gradient at once."""
    start = time.perf_counter()
    ffn_backward(dout, cache)
    return (time.perf_counter() - start) * 1e3

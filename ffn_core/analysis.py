"""Reading an FFN: the collapse without a bend, what each neuron writes, and who fires.

Firing is judged on the activation h (shape (..., d_ff)): neuron j fires for a token when
h[..., j] > threshold. With ReLU the natural threshold is 0; GELU and SiLU are never
exactly 0, so a small positive threshold separates "fired" from "barely leaked".
"""

from __future__ import annotations

import numpy as np

from ffn_core.activations import get_activation
from ffn_core.ffn import check_ffn_shapes, check_weights
from ffn_core.shapes import as_float_arrays, check_input, check_matrix, check_shape


def collapse(
    W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(W_eff, b_eff) with (x @ W1 + b1) @ W2 + b2 == x @ W_eff + b_eff for every x.

    W_eff = W1 @ W2 is (d_model, d_model); b_eff = b1 @ W2 + b2 is (d_model,).
    """
    W1, b1, W2, b2 = as_float_arrays(W1=W1, b1=b1, W2=W2, b2=b2)
    check_weights(W1, b1, W2, b2)
    return W1 @ W2, b1 @ W2 + b2


def hidden(
    x: np.ndarray, W1: np.ndarray, b1: np.ndarray, activation: str = "relu"
) -> tuple[np.ndarray, np.ndarray]:
    """(h_pre, h): the pre-activation x @ W1 + b1 and the activation, both (..., d_ff)."""
    x, W1, b1 = as_float_arrays(x=x, W1=W1, b1=b1)
    check_matrix("W1", W1, "(d_model, d_ff)")
    check_input(x, W1.shape[0], "W1")
    check_shape("b1", b1, (W1.shape[1],), "(d_ff,)")
    h_pre = x @ W1 + b1  # (..., d_ff)
    return h_pre, get_activation(activation).fn(h_pre)


def contributions(
    x: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    activation: str = "relu",
) -> np.ndarray:
    """What each neuron writes into the output: h[..., j] * W2[j], shape (..., d_ff, d_model).

    Summed over the d_ff axis and added to b2, it is exactly the FFN's output.
    """
    x, W1, b1, W2, b2 = as_float_arrays(x=x, W1=W1, b1=b1, W2=W2, b2=b2)
    check_ffn_shapes(x, W1, b1, W2, b2)
    _, h = hidden(x, W1, b1, activation)
    return h[..., :, None] * W2  # (..., d_ff, d_model)


def firing_mask(h: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """True where a neuron fires: h > threshold, same shape as h."""
    return np.asarray(h) > threshold


def firing_count(h: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """How many neurons fire for each token: shape (...,) for h of shape (..., d_ff)."""
    return firing_mask(h, threshold).sum(axis=-1)


def firing_rate(h: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """For each neuron, the fraction of tokens it fires on, over all leading axes: (d_ff,)."""
    mask = firing_mask(h, threshold)
    return mask.reshape(-1, mask.shape[-1]).mean(axis=0)


def silent_neurons(h: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """Indices of the neurons that fire on no token of the batch, ascending."""
    return np.flatnonzero(firing_rate(h, threshold) == 0)


def dead_neurons(h_pre: np.ndarray, activation: str) -> np.ndarray:
    """Indices of the neurons whose activation has zero slope at every position, ascending.

    h_pre: (..., d_ff). No gradient reaches such a neuron's key or bias from this batch,
    so training cannot move it. With ReLU that is a neuron that scored ≤ 0 everywhere;
    GELU's slope is zero only at one score (about −0.75), so its neurons almost never are.
    """
    slope = get_activation(activation).derivative(np.asarray(h_pre))
    return np.flatnonzero(np.all(slope.reshape(-1, slope.shape[-1]) == 0, axis=0))


def bend_statistics(h_pre: np.ndarray, activation: str, near: float = 0.01) -> dict[str, float]:
    """What an activation makes of a batch of scores h_pre (..., d_ff): the shares of the
    hidden values that are positive, exactly 0, within `near` of 0, and negative, and the
    number of dead neurons (zero slope on every position, see dead_neurons)."""
    h = get_activation(activation).fn(np.asarray(h_pre))
    return {
        "positive (h > 0)": float(np.mean(h > 0)),
        "exactly 0": float(np.mean(h == 0)),
        f"near 0 (|h| < {near:g})": float(np.mean(np.abs(h) < near)),
        "negative (h < 0)": float(np.mean(h < 0)),
        "dead neurons": int(dead_neurons(h_pre, activation).size),
    }


def swiglu_statistics(gate: np.ndarray, up: np.ndarray, near: float = 0.01) -> dict[str, float]:
    """bend_statistics for SwiGLU's a = silu(gate) · up, gate and up (..., d_ff): a neuron is
    dead when a's slope is zero in both its inputs at every position, silu'(gate) · up = 0
    and silu(gate) = 0, which takes a gate of exactly 0 and an up of exactly 0."""
    silu = get_activation("silu")
    gate, up = np.asarray(gate), np.asarray(up)
    a = silu.fn(gate) * up
    flat = (silu.derivative(gate) * up == 0) & (silu.fn(gate) == 0)  # (..., d_ff)
    dead = np.all(flat.reshape(-1, flat.shape[-1]), axis=0)
    return {
        "positive (h > 0)": float(np.mean(a > 0)),
        "exactly 0": float(np.mean(a == 0)),
        f"near 0 (|h| < {near:g})": float(np.mean(np.abs(a) < near)),
        "negative (h < 0)": float(np.mean(a < 0)),
        "dead neurons": int(dead.sum()),
    }


def sparsity(h: np.ndarray, tol: float = 0.0) -> float:
    """Fraction of hidden activations that are (near) zero: |h| <= tol."""
    h = np.asarray(h)
    return float(np.mean(np.abs(h) <= tol)) if h.size else 0.0


def contribution_sizes(h: np.ndarray, W2: np.ndarray) -> np.ndarray:
    """Length of what each neuron writes, |h[..., j]| * ||W2[j]||: shape (..., d_ff).

    Equal to the norm of `contributions(...)` along its last axis, without building it.
    """
    return np.abs(h) * np.linalg.norm(W2, axis=1)


def neuron_order(h: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    """Neurons from most to least active: by firing rate, then by mean activation.

    h is (..., d_ff); returns a permutation of range(d_ff).
    """
    h2d = np.asarray(h).reshape(-1, np.shape(h)[-1])  # (N, d_ff)
    rate = firing_rate(h2d, threshold)
    mean = h2d.mean(axis=0) if h2d.shape[0] else np.zeros(h2d.shape[1])
    return np.lexsort((-mean, -rate))  # last key sorts first


def collapse_stack(blocks: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """L linear FFNs applied one after another, as one (W_eff, b_eff).

    blocks: [(W1, b1, W2, b2), ...], each block d_model -> d_model. Applying block i to
    x @ W + b gives x @ (W @ Wi) + (b @ Wi + bi), so the whole stack stays one matrix.
    """
    W, b = None, None
    for block in blocks:
        Wi, bi = collapse(*block)
        W, b = (Wi, bi) if W is None else (W @ Wi, b @ Wi + bi)
    if W is None:
        raise ValueError("collapse_stack needs at least one block")
    return W, b


def run_stack(x: np.ndarray, blocks: list[tuple[np.ndarray, ...]], activation: str) -> np.ndarray:
    """x (..., d_model) through the FFN blocks [(W1, b1, W2, b2), ...] one after another,
    each d_model -> d_model: (..., d_model)."""
    for W1, b1, W2, b2 in blocks:
        x = get_activation(activation).fn(x @ W1 + b1) @ W2 + b2  # (..., d_model)
    return x


def grouped_writes(
    h: np.ndarray, W2: np.ndarray, coords: np.ndarray, top: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """One token's output split into what each neuron writes, h_j × W2[j, coords], for h
    (d_ff,), W2 (d_ff, d_model) and the output coordinates `coords` (C,).

    Returns (rows (≤ top + 1, C), writers (≤ top,), rest): the `top` neurons that write the
    most (by the sum of |write| over coords), largest first, then one row with the sum of
    the other `rest` neurons that write anything (only if there are any). A silent neuron
    (h_j = 0) writes nothing and is left out. The rows plus b2[coords] add up to the output.
    """
    writing = np.flatnonzero(h != 0)  # (n,)
    parts = h[writing, None] * W2[np.ix_(writing, coords)]  # (n, C)
    order = np.argsort(-np.abs(parts).sum(axis=1), kind="stable")  # (n,)
    rows = list(parts[order[:top]])
    if len(order) > top:
        rows.append(parts[order[top:]].sum(axis=0))
    return np.array(rows).reshape(len(rows), len(coords)), writing[order[:top]], len(order[top:])


def affine_fit(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The single matrix and bias that come closest: A (d_in, d_out) and b (d_out,)
    minimising the squared error of X @ A + b against Y, for X (n, d_in), Y (n, d_out)."""
    design = np.column_stack([X, np.ones(len(X))])  # (n, d_in + 1)
    coef, *_ = np.linalg.lstsq(design, Y, rcond=None)  # (d_in + 1, d_out)
    return coef[:-1], coef[-1]


def affine_fit_gap(X: np.ndarray, Y: np.ndarray) -> float:
    """max |Y − (X @ A + b)| for the best-fitting A and b (affine_fit): 0, to rounding,
    when Y is an affine map of X; for a bilinear map of X scaled by s, s² times the gap at
    s = 1, since the fit can scale A by s and b by s² but not the quadratic part."""
    A, b = affine_fit(X, Y)
    return float(np.max(np.abs(Y - (X @ A + b)), initial=0.0))

"""The Backprop page's tables and heatmap lists: what each gradient is, where it comes from,
and its shape."""

from __future__ import annotations

import numpy as np
import pandas as pd

MAX_SHOWN = 64  # heatmap rows and columns drawn
EPSILON_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def power_of_ten(e: float) -> str:
    """1e-06 -> "10⁻⁶": how both the ε slider and the sweep's axis write ε."""
    exponent = round(np.log10(e))
    digits = "".join(EPSILON_DIGITS[int(d)] for d in str(abs(exponent)))
    return f"10{'⁻' if exponent < 0 else ''}{digits}"


def error_shade(value: float) -> str:
    """The background of a relative error: green ≤ 1e-6, amber ≤ 1e-4, red above."""
    shade = "#c8e6c9" if value <= 1e-6 else "#ffe0b2" if value <= 1e-4 else "#ffcdd2"
    return f"background-color: {shade}"


def position_labels(B: int, T: int) -> list[str]:
    """One label per (sequence, position), in the order the rows of (B·T, ·) arrays go."""
    return [f"seq {b + 1}, pos {t + 1}" for b in range(B) for t in range(T)]


def shapes_table(quantities: dict[str, np.ndarray]) -> pd.DataFrame:
    """Each quantity and its gradient with their shapes: the rule is that they match.

    quantities: name -> array, the gradients named with a leading d (dW1 for W1).
    """
    rows = []
    for name, arr in quantities.items():
        if name.startswith("d") and name[1:] in quantities:
            continue
        grad = quantities.get(f"d{name}")
        rows.append(
            {
                "quantity": name,
                "shape": str(tuple(arr.shape)),
                "its gradient": f"d{name}" if grad is not None else "(not a parameter)",
                "gradient shape": str(tuple(grad.shape)) if grad is not None else "—",
            }
        )
    return pd.DataFrame(rows).set_index("quantity")


def backward_steps(
    cache, dout2d, dh, deriv, dh_pre, grads: dict, B: int, T: int, activation_label: str
):
    """The heatmaps of the backward pass, as (title, values, row labels, column labels):
    first the four that show the gate at work, then the rest."""
    C, H = dout2d.shape[1], dh.shape[1]
    rows = position_labels(B, T)[:MAX_SHOWN]
    neurons = [f"n{j + 1}" for j in range(min(H, MAX_SHOWN))]
    coords = [f"c{c + 1}" for c in range(min(C, MAX_SHOWN))]
    n, k, c = len(rows), len(neurons), len(coords)
    gate = (
        "the gate: 1 where h_pre > 0"
        if activation_label == "ReLU"
        else (f"{activation_label}'(h_pre), the slope")
    )
    first = [
        ("dh = dout · W2ᵀ", dh[:n, :k], rows, neurons),
        (gate, deriv[:n, :k], rows, neurons),
        ("dh_pre = dh × gate", dh_pre[:n, :k], rows, neurons),
        ("dW1 = xᵀ · dh_pre, summed over positions", grads["dW1"][:c, :k], coords, neurons),
    ]
    rest = [
        ("dW2 = hᵀ · dout, summed over positions", grads["dW2"][:k, :c], neurons, coords),
        ("db2 = dout summed over positions", grads["db2"][None, :c], ["db2"], coords),
        ("db1 = dh_pre summed over positions", grads["db1"][None, :k], ["db1"], neurons),
        ("dx = dh_pre · W1ᵀ", grads["dx"].reshape(-1, C)[:n, :c], rows, coords),
    ]
    return first, rest

"""The FFN by hand: plain Python lists and loops, in the W @ x convention of the lesson.

    y = W2 @ relu(W1 @ x + b1) + b2

W1 is d_ff x d_model and W2 is d_model x d_ff, both stored flat and row-major, so row i
of W1 starts at i * d_model and row i of W2 starts at i * d_ff. Row j of W1 is neuron j's
key; column j of W2 is its value.
"""

from __future__ import annotations

from collections.abc import Sequence

Floats = Sequence[float]  # a plain list of numbers, as the lesson writes them


def check_flat_lengths(
    x: Floats, W1: Floats, b1: Floats, W2: Floats, b2: Floats
) -> tuple[int, int]:
    """Read D from x and H from b1, check every other length, return (D, H)."""
    D, H = len(x), len(b1)
    expected = {"W1": (len(W1), H * D), "W2": (len(W2), D * H), "b2": (len(b2), D)}
    for name, (got, want) in expected.items():
        if got != want:
            raise ValueError(
                f"{name} has {got} numbers, expected {want} for D = {D} (len(x)) "
                f"and H = {H} (len(b1)): W1 is H x D, W2 is D x H, b2 has D"
            )
    return D, H


def matvec_flat(W: Floats, rows: int, cols: int, v: Floats) -> list[float]:
    """W @ v for W stored flat and row-major as rows x cols: row i starts at i * cols."""
    return [sum(W[i * cols + j] * v[j] for j in range(cols)) for i in range(rows)]


def ffn_forward_flat(x: Floats, W1: Floats, b1: Floats, W2: Floats, b2: Floats) -> list[float]:
    """One FFN forward pass on plain lists; returns the D output floats."""
    D, H = check_flat_lengths(x, W1, b1, W2, b2)
    h_pre = [z + b for z, b in zip(matvec_flat(W1, H, D, x), b1, strict=True)]
    h = [max(0.0, z) for z in h_pre]
    return [y + b for y, b in zip(matvec_flat(W2, D, H, h), b2, strict=True)]

"""The two classic mistakes of the by-hand FFN, kept as named functions for the Traps page.

Each one is `ffn_forward_flat` with exactly one thing wrong, so a page can run it beside
the correct version and show when the mistake is visible and when it hides.
"""

from __future__ import annotations

from ffn_core.reference import Floats, check_flat_lengths, ffn_forward_flat, matvec_flat


def ffn_forward_flat_one_stride(
    x: Floats, W1: Floats, b1: Floats, W2: Floats, b2: Floats
) -> list[float]:
    """Mistake: W2 is read with W1's row stride D instead of its own stride H.

    When H == D the two strides agree and the answer is right. When H > D it reads the
    wrong numbers silently; when H < D it runs off the end of W2 and raises IndexError.
    """
    D, H = check_flat_lengths(x, W1, b1, W2, b2)
    h = [max(0.0, z + b) for z, b in zip(matvec_flat(W1, H, D, x), b1, strict=True)]
    wrong_rows = [sum(W2[i * D + j] * h[j] for j in range(H)) for i in range(D)]
    return [y + b for y, b in zip(wrong_rows, b2, strict=True)]


def ffn_forward_flat_relu_after_w2(
    x: Floats, W1: Floats, b1: Floats, W2: Floats, b2: Floats
) -> list[float]:
    """Mistake: a ReLU also clamps the output, so x + FFN(x) can never lower a coordinate."""
    return [max(0.0, y) for y in ffn_forward_flat(x, W1, b1, W2, b2)]

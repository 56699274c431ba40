"""Numbers a person types into a text box: "1, 0, -0.5" -> an array, or a clear refusal."""

from __future__ import annotations

import numpy as np

from ffn_core.weights_io import MAX_MAGNITUDE


def parse_row(text: str, n: int) -> np.ndarray:
    """The n numbers in `text`, separated by commas or spaces: shape (n,).

    ValueError says what is wrong in words of its own; it never repeats the text, which
    may have come from a link.
    """
    parts = text.replace(",", " ").split()
    if len(parts) != n:
        raise ValueError(f"expected {n} numbers, found {len(parts)}")
    try:
        row = np.array([float(part) for part in parts])
    except ValueError:
        raise ValueError(f"expected {n} numbers, and not all of them are numbers") from None
    if not np.all(np.abs(row) <= MAX_MAGNITUDE):  # NaN and infinities fail this too
        raise ValueError(f"expected {n} finite numbers within ±{MAX_MAGNITUDE:,.0f}")
    return row

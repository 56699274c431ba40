"""Numbers as text: typed into a box ("1, 0, -0.5"), or carried in a link ("1_0_-0.5"),
read back into arrays or refused with a clear reason."""

from __future__ import annotations

import numpy as np

MAX_MAGNITUDE = 1e6  # |w| and |x| larger than this overflow nothing, but teach nothing


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


def encode_numbers(arr: np.ndarray) -> str:
    """A compact URL-safe text form of an array's values: shortest exact decimals, '_'-joined."""
    return "_".join(repr(float(v)).removesuffix(".0") for v in np.ravel(arr))


def decode_numbers(text: str, shape: tuple[int, ...]) -> np.ndarray:
    """The inverse of encode_numbers, for an array of the given shape; ValueError if unfit."""
    parts = text.split("_") if text else []
    size = int(np.prod(shape))
    if len(parts) != size:
        raise ValueError(f"expected {size} numbers for shape {shape}, found {len(parts)}")
    try:
        values = np.array([float(p) for p in parts])
    except ValueError as err:
        raise ValueError("the numbers could not be read") from err
    if not np.all(np.isfinite(values)):
        raise ValueError("NaN or infinite values")
    if np.any(np.abs(values) > MAX_MAGNITUDE):
        raise ValueError(f"values beyond ±{MAX_MAGNITUDE:,.0f}")
    return values.reshape(shape)


def encode_arrays(arrays: list[np.ndarray]) -> str:
    """Several arrays in one URL value, separated by '~'."""
    return "~".join(encode_numbers(arr) for arr in arrays)


def decode_arrays(text: str, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """Arrays from encode_arrays' form, for the given shapes; ValueError if they do not fit."""
    parts = text.split("~")
    if len(parts) != len(shapes):
        raise ValueError(f"expected {len(shapes)} arrays, found {len(parts)}")
    return [decode_numbers(part, shape) for part, shape in zip(parts, shapes, strict=True)]

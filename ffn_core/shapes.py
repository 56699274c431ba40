"""Shape and dtype checks shared by the core's entry points.

Every public function validates at its edge, so a wrong shape fails with a message that
names what arrived and what was expected, instead of broadcasting into a wrong answer.
"""

from __future__ import annotations

import numpy as np


def as_float_arrays(**arrays: object) -> tuple[np.ndarray, ...]:
    """Convert the arrays to one common floating dtype, keeping float32 as float32.

    Integers and booleans become float64; float32 stays float32 unless another argument
    is float64. Anything that is not a real number raises ValueError.
    """
    converted = {}
    for name, value in arrays.items():
        arr = np.asarray(value)
        if arr.dtype.kind not in "fiub":
            raise ValueError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        converted[name] = arr
    dtype = np.result_type(*converted.values())
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    return tuple(arr.astype(dtype, copy=False) for arr in converted.values())


def check_shape(name: str, arr: np.ndarray, expected: tuple[int, ...], meaning: str) -> None:
    """Raise ValueError unless `arr.shape == expected`; `meaning` spells the shape out."""
    if arr.shape != expected:
        raise ValueError(f"{name} has shape {arr.shape}, expected {expected} = {meaning}")


def check_input(x: np.ndarray, d_model: int, weight: str) -> None:
    """x must have at least one axis, and d_model (the first axis of `weight`) as its last."""
    if x.ndim == 0 or x.shape[-1] != d_model:
        raise ValueError(
            f"x has shape {x.shape}, expected (..., d_model) with d_model = {d_model}, "
            f"the first axis of {weight}; a transposed {weight} or a wrong d_model gives this"
        )


def check_matrix(name: str, arr: np.ndarray, meaning: str) -> None:
    """A weight must be 2-D before its axes can be read as (rows, columns)."""
    if arr.ndim != 2:
        raise ValueError(f"{name} has shape {arr.shape}, expected a 2-D matrix {meaning}")

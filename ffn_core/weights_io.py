"""Weights in and out: NPZ and JSON files, and a compact text form for URLs.

Everything that arrives from outside is checked here before the app uses it: names,
shapes, dtypes, finiteness and size. Nothing is unpickled or executed.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np

from ffn_core.ffn import check_weights

WEIGHT_NAMES = ("W1", "b1", "W2", "b2")
MAX_FILE_BYTES = 50 * 2**20  # GPT-2 small's FFN in float64 is 36 MiB
MAX_D_MODEL, MAX_D_FF = 1024, 4096
# The largest arrays a file may hold once unpacked: W1 and W2 at the caps, in float64.
MAX_UNPACKED_BYTES = 2 * MAX_D_MODEL * MAX_D_FF * 8 + 2 * 2**20
JSON_EXTRA_KEYS = {"orientation"}  # written by weights_to_json as a note for people


def checked_weights(arrays: dict[str, object]) -> dict[str, np.ndarray]:
    """Float64 copies of W1, b1, W2, b2 after every check; ValueError says what failed."""
    missing = [name for name in WEIGHT_NAMES if name not in arrays]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}; a weights file holds {WEIGHT_NAMES}")
    extra = sorted(set(arrays) - set(WEIGHT_NAMES) - JSON_EXTRA_KEYS)
    if extra:
        raise ValueError(
            f"unexpected arrays {', '.join(extra)}; a weights file holds only "
            f"{', '.join(WEIGHT_NAMES)}"
        )
    weights = {}
    for name in WEIGHT_NAMES:
        try:
            arr = np.asarray(arrays[name])
        except ValueError as err:  # ragged nested lists
            raise ValueError(f"{name} is not a rectangular array of numbers") from err
        if arr.dtype.kind not in "iuf" or arr.dtype.itemsize > 8:
            raise ValueError(f"{name} must hold numbers, got {arr.dtype} values")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds NaN or infinite values")
        weights[name] = arr.astype(np.float64)
    check_weights(**weights)
    d_model, d_ff = weights["W1"].shape
    if not (1 <= d_model <= MAX_D_MODEL and 1 <= d_ff <= MAX_D_FF):
        raise ValueError(
            f"W1 is {d_model} x {d_ff}; the explorer takes d_model up to {MAX_D_MODEL} "
            f"and d_ff up to {MAX_D_FF}"
        )
    return weights


def read_npz(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an NPZ file, refusing pickles and anything too large once unpacked.

    The zip directory is read first, so a small file that would unpack to gigabytes (a
    zip bomb) is refused before any of it is decompressed.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError("not an NPZ (zip) file") from err
    if unpacked > MAX_UNPACKED_BYTES:
        raise ValueError(
            f"it would unpack to {unpacked / 2**20:.0f} MiB; at most "
            f"{MAX_UNPACKED_BYTES / 2**20:.0f} MiB fits the explorer's largest FFN"
        )
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(
            "not a plain NPZ file of numeric arrays (pickled objects are refused)"
        ) from err


def weights_to_npz(weights: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{name: weights[name] for name in WEIGHT_NAMES})
    return buffer.getvalue()


def weights_to_json(weights: dict[str, np.ndarray]) -> bytes:
    payload = {name: weights[name].tolist() for name in WEIGHT_NAMES}
    payload["orientation"] = "x @ W: W1 is (d_model, d_ff), W2 is (d_ff, d_model)"
    return json.dumps(payload).encode("utf-8")


def weights_from_file(data: bytes, filename: str) -> dict[str, np.ndarray]:
    """Read and check an uploaded .npz or .json file."""
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(
            f"the file is {len(data) / 2**20:.1f} MiB; the limit is {MAX_FILE_BYTES // 2**20} MiB"
        )
    if filename.lower().endswith(".npz"):
        arrays = read_npz(data)
    elif filename.lower().endswith(".json"):
        try:
            arrays = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"not valid JSON: {err}") from err
        if not isinstance(arrays, dict):
            raise ValueError("the JSON must be an object with keys W1, b1, W2, b2")
    else:
        raise ValueError("upload a .npz or .json file")
    return checked_weights(arrays)


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


def weight_shapes(d_model: int, d_ff: int) -> dict[str, tuple[int, ...]]:
    """The shape of each of W1, b1, W2, b2."""
    return {"W1": (d_model, d_ff), "b1": (d_ff,), "W2": (d_ff, d_model), "b2": (d_model,)}

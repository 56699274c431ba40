"""A decoded copy of a GGUF file's weights on disk, so that a new process maps them
instead of decoding them again.

    arrays = decoded_arrays(path, tensors)   # name -> read-only float32 array

Decoding SmolLM2's 4-bit weights to float32 takes one to two seconds in every new server
process. The first process writes each decoded tensor to a .npy file, in a folder named
after the GGUF file's SHA-256; later processes map those files read-only, in a fraction of
a second, and the system shares their pages between processes. A copy that cannot be read
is written again; where nothing can be written, the weights are decoded in memory as before.
"""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from pathlib import Path

import numpy as np

from ffn_core.gguf_file import GgufTensor
from ffn_core.smollm_files import CACHE_DIR, sha256_of

log = logging.getLogger(__name__)
CACHE_VAR = "FFN_CACHE_DIR"  # where the decoded copies go; default ~/.cache/ffn-explorer


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_VAR) or CACHE_DIR)


def copy_folder(path: Path, root: Path | None = None) -> Path:
    """Where the decoded copy of the GGUF file at `path` lives: named by its content."""
    return (root or cache_root()) / f"{path.stem}-{sha256_of(path)[:32]}"


def decoded_arrays(
    path: Path, tensors: dict[str, GgufTensor], root: Path | None = None
) -> dict[str, np.ndarray]:
    """Every tensor of the file at `path` as read-only float32 in `GgufTensor.shape`,
    mapped from the decoded copy, which is written first when it is missing or damaged."""
    folder = copy_folder(path, root)
    try:
        return mapped(folder, tensors)
    except (OSError, ValueError):
        pass  # no copy yet, or one that does not match the file: write it
    try:
        write_copy(folder, tensors)
        return mapped(folder, tensors)
    except (OSError, ValueError) as err:
        log.warning("decoding in memory: no usable copy in %s (%s)", folder, err)
    arrays = {name: tensor.array() for name, tensor in tensors.items()}
    for array in arrays.values():
        array.flags.writeable = False
    return arrays


def mapped(folder: Path, tensors: dict[str, GgufTensor]) -> dict[str, np.ndarray]:
    """The copy's arrays, mapped read-only; ValueError when one does not match its tensor."""
    arrays = {}
    for name, tensor in tensors.items():
        array = np.asarray(np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False))
        if array.dtype != np.float32 or array.shape != tensor.shape:
            raise ValueError(f"{name}: {array.dtype} {array.shape}, not float32 {tensor.shape}")
        arrays[name] = array
    return arrays


def write_copy(folder: Path, tensors: dict[str, GgufTensor]) -> None:
    """Decode one tensor at a time into a new folder, then put it in place in one rename,
    so that no process ever maps a half-written copy."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    building = folder.with_name(f"{folder.name}.{uuid.uuid4().hex}.partial")
    building.mkdir()
    try:
        for name, tensor in tensors.items():
            np.save(building / f"{name}.npy", tensor.array())
        shutil.rmtree(folder, ignore_errors=True)  # a damaged copy
        building.rename(folder)
    except OSError:
        if not folder.is_dir():  # another process may have put its copy in place first
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)

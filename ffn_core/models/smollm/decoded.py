"""A decoded copy of a GGUF file's weights on disk, so that a new process maps them
instead of decoding them again.

    arrays = decoded_arrays(path, tensors)   # name -> read-only float32 array

Decoding SmolLM2's 4-bit weights to float32 takes one to two seconds in every new server
process. The first process writes each decoded tensor to a .npy file, in a folder named
after the GGUF file's SHA-256; later processes map those files read-only, and the system
shares their pages between processes.

The copy is written safely and checked before it is used:

- One process writes at a time: a writer holds an exclusive lock on `<folder>.lock`, and a
  process that finds no copy waits for that lock, then maps what the writer put in place.
  The system releases the lock of a process that is killed.
- A copy is built in `<folder>.partial` and put in place in one rename. The lock holder
  first removes any `.partial` folder a killed writer left behind.
- `manifest.json` records the SHA-256 of every decoded array when the copy is written. A
  copy is used only if every file is a plain file (no symlink is followed), every array has
  its tensor's dtype and shape, and every digest matches (about 0.4 s for SmolLM2's 515 MB);
  otherwise it is removed and written again.
- Where nothing can be written, the weights are decoded in memory as before.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np
from filelock import FileLock

from ffn_core.models.smollm.files import CACHE_DIR, sha256_of
from ffn_core.models.smollm.gguf import GgufTensor

log = logging.getLogger(__name__)
CACHE_VAR = "FFN_CACHE_DIR"  # where the decoded copies go; default ~/.cache/ffn-explorer
MANIFEST = "manifest.json"


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_VAR) or CACHE_DIR)


def copy_folder(path: Path, root: Path | None = None) -> Path:
    """Where the decoded copy of the GGUF file at `path` lives: named by its content."""
    return (root or cache_root()) / f"{path.stem}-{sha256_of(path)[:32]}"


def decoded_arrays(
    path: Path, tensors: dict[str, GgufTensor], root: Path | None = None
) -> dict[str, np.ndarray]:
    """Every tensor of the file at `path` as read-only float32 in `GgufTensor.shape`,
    mapped from the checked decoded copy, which is written first when it is missing or
    does not pass its checks."""
    folder = copy_folder(path, root)
    try:
        return checked(folder, tensors)
    except (OSError, ValueError):
        pass  # no copy yet, or one that does not pass: write it, one process at a time
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with writer_lock(folder):
            try:  # another process may have written it while this one waited
                return checked(folder, tensors)
            except (OSError, ValueError):
                write_copy(folder, tensors)
            return checked(folder, tensors)
    except (OSError, ValueError) as err:
        log.warning("decoding in memory: no usable copy in %s (%s)", folder, err)
    arrays = {name: tensor.array() for name, tensor in tensors.items()}
    for array in arrays.values():
        array.flags.writeable = False
    return arrays


def writer_lock(folder: Path) -> FileLock:
    """An exclusive lock on `<folder>.lock`, held while one process writes the copy: the
    operating system's own lock (fcntl on Linux and macOS, msvcrt on Windows), which a
    killed writer lets go of."""
    return FileLock(folder.with_name(f"{folder.name}.lock"))


def digest(array: np.ndarray) -> str:
    return hashlib.sha256(memoryview(np.ascontiguousarray(array)).cast("B")).hexdigest()


def checked(folder: Path, tensors: dict[str, GgufTensor]) -> dict[str, np.ndarray]:
    """The copy's arrays, mapped read-only, after every check; OSError when there is no
    copy, ValueError when it does not pass."""
    if folder.is_symlink():
        raise ValueError(f"{folder} is a symlink")
    manifest = read_plain(folder / MANIFEST)
    try:
        digests = json.loads(manifest)["sha256"]
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{folder / MANIFEST} is not a manifest") from err
    arrays = {}
    for name, tensor in tensors.items():
        file = folder / f"{name}.npy"
        if file.is_symlink():
            raise ValueError(f"{file} is a symlink")
        array = np.asarray(np.load(file, mmap_mode="r", allow_pickle=False))
        if array.dtype != np.float32 or array.shape != tensor.shape:
            raise ValueError(f"{name}: {array.dtype} {array.shape}, not float32 {tensor.shape}")
        if not isinstance(digests, dict) or digests.get(name) != digest(array):
            raise ValueError(f"{name}: its numbers are not those recorded when it was written")
        arrays[name] = array
    return arrays


def read_plain(file: Path) -> str:
    """A file's text, refusing to follow a symlink."""
    fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, encoding="utf-8") as handle:
        return handle.read()


def remove(path: Path) -> None:
    """Remove a folder, or a file or symlink in its place, without following a link."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def write_copy(folder: Path, tensors: dict[str, GgufTensor]) -> None:
    """Decode one tensor at a time into `<folder>.partial`, record their digests, then put
    it in place in one rename, so that no process ever maps a half-written copy. Called
    with the writer lock held, so a `.partial` folder found here is a killed writer's."""
    building = folder.with_name(f"{folder.name}.partial")
    remove(building)
    building.mkdir()
    try:
        digests = {}
        for name, tensor in tensors.items():
            array = np.ascontiguousarray(tensor.array(), dtype=np.float32)
            np.save(building / f"{name}.npy", array)
            digests[name] = digest(array)
        (building / MANIFEST).write_text(json.dumps({"sha256": digests}), encoding="utf-8")
        remove(folder)  # a copy that did not pass its checks
        building.rename(folder)
    finally:
        remove(building)

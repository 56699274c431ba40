"""Read a GGUF file: its metadata, and each tensor dequantised to float32.

    meta, tensors = read_gguf(path)
    meta["llama.block_count"]              # 30
    tensors["blk.0.ffn_down.weight"]       # a GgufTensor; .array() gives (576, 1536) float32

GGUF (llama.cpp's format) is a header of typed key/value pairs, a table of tensors, then the
raw tensor bytes. `gguf.GGUFReader` reads it too, but builds one NumPy view per value, and a
49,152-word vocabulary has about 100,000 of them; walking the header with `struct` is
quicker. The weights are decoded by the `gguf` package's own block formulas, and the tests
check this reader against `GGUFReader` and `gguf.quants.dequantize`.

Shapes: GGUF lists a tensor's sizes fastest-varying first, so a PyTorch (out, in) weight
appears as [in, out]. `GgufTensor.shape` is NumPy's order: (out, in).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, quants
from gguf.quants import dequantize

MAGIC = b"GGUF"
SCALARS = {  # GGUF value type -> struct format
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
STRING, ARRAY = 8, 9
# The two block formats SmolLM2's file uses, decoded many rows at a time: `dequantize`
# works through a tensor a few rows per call, and took 1.9 s of the model's 2.4 s load.
BLOCKS = {GGMLQuantizationType.Q8_0: quants.Q8_0, GGMLQuantizationType.Q4_1: quants.Q4_1}
ROWS_AT_ONCE = 4096  # at most 4096 × 576 float32 (9 MB) in flight per step


@dataclass(frozen=True)
class GgufTensor:
    """One tensor's place in the file; `array()` decodes it."""

    name: str
    shape: tuple[int, ...]  # NumPy order: slowest-varying first
    kind: GGMLQuantizationType
    raw: np.ndarray  # (rows, bytes per row) uint8, a view of the mapped file

    def array(self) -> np.ndarray:
        """The weights as float32, `shape`: a new array, so the file can be closed."""
        if self.kind == GGMLQuantizationType.F32:
            return self.raw.view(np.float32).reshape(self.shape).copy()
        if self.kind not in BLOCKS:
            return dequantize(self.raw, self.kind).reshape(self.shape)
        block_size, block_bytes = GGML_QUANT_SIZES[self.kind]
        rows, row_bytes = self.raw.shape
        out = np.empty((rows, row_bytes // block_bytes * block_size), dtype=np.float32)
        for start in range(0, rows, ROWS_AT_ONCE):
            blocks = self.raw[start : start + ROWS_AT_ONCE].reshape(-1, block_bytes)
            decoded = BLOCKS[self.kind].dequantize_blocks(blocks)  # (blocks, block_size)
            out[start : start + ROWS_AT_ONCE] = decoded.reshape(-1, out.shape[1])
        return out.reshape(self.shape)


class _Cursor:
    """Reads little-endian values one after another from a buffer."""

    def __init__(self, buffer: Any) -> None:
        self.buffer, self.at = buffer, 0

    def scalar(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self.buffer, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        size = self.scalar("<Q")
        text = bytes(self.buffer[self.at : self.at + size]).decode("utf-8", errors="replace")
        self.at += size
        return text

    def value(self, kind: int) -> Any:
        if kind == STRING:
            return self.string()
        if kind == ARRAY:
            item, count = self.scalar("<I"), self.scalar("<Q")
            if item == STRING:
                return [self.string() for _ in range(count)]
            fmt = SCALARS[item]
            values = struct.unpack_from(f"<{count}{fmt[1]}", self.buffer, self.at)
            self.at += count * struct.calcsize(fmt)
            return list(values)
        return self.scalar(SCALARS[kind])


def read_gguf(path: str | Path) -> tuple[dict[str, Any], dict[str, GgufTensor]]:
    """The file's metadata (key -> value) and its tensors (name -> GgufTensor).

    The tensors are views of a read-only memory map: nothing is decoded until `array()`.
    Raises ValueError if the file is not GGUF version 2 or 3.
    """
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    cursor = _Cursor(mapped)
    if bytes(mapped[:4]) != MAGIC:
        raise ValueError(f"{path} is not a GGUF file (it does not start with {MAGIC!r})")
    cursor.at = 4
    version = cursor.scalar("<I")
    if version not in (2, 3):
        raise ValueError(f"{path} is GGUF version {version}; this reader knows 2 and 3")
    n_tensors, n_keys = cursor.scalar("<Q"), cursor.scalar("<Q")
    meta = {}
    for _ in range(n_keys):
        key = cursor.string()
        meta[key] = cursor.value(cursor.scalar("<I"))
    table = []
    for _ in range(n_tensors):
        name = cursor.string()
        dims = [cursor.scalar("<Q") for _ in range(cursor.scalar("<I"))]
        table.append((name, tuple(reversed(dims)), cursor.scalar("<I"), cursor.scalar("<Q")))
    alignment = meta.get("general.alignment", 32)
    start = -(-cursor.at // alignment) * alignment
    data = np.frombuffer(mapped, dtype=np.uint8)
    tensors = {}
    for name, shape, kind_id, offset in table:
        kind = GGMLQuantizationType(kind_id)
        block, block_bytes = GGML_QUANT_SIZES[kind]
        row_bytes = shape[-1] // block * block_bytes
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        raw = data[start + offset : start + offset + rows * row_bytes].reshape(rows, row_bytes)
        tensors[name] = GgufTensor(name, shape, kind, raw)
    return meta, tensors

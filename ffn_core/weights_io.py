"""Weights in and out as files: NPZ and JSON.

A file holds the plain FFN's W1, b1, W2, b2, or SwiGLU's W_gate, W_up, W_down. Everything
that arrives from outside is checked here before the app uses it: names, shapes, dtypes,
finiteness and size. Nothing is unpickled or executed.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile

import numpy as np

from ffn_core.ffn import check_weights
from ffn_core.forms import GATED_NAMES, PLAIN_NAMES
from ffn_core.shapes import check_matrix, check_shape
from ffn_core.typed_numbers import MAX_MAGNITUDE

BOTH = "W1, b1, W2, b2 or W_gate, W_up, W_down"  # the plain FFN's, or SwiGLU's
MAX_D_MODEL, MAX_D_FF = 1024, 4096
# Each session keeps its uploaded weights, so their size is set from a class on one small
# server: the weight matrices together hold at most 2^18 numbers (W1 and W2 at d_model 256
# x d_ff 512, or 128 x 1024), 2.1 MB in float64, 63 MB for a class of 30.
MAX_UPLOAD_WEIGHTS = 2**18
# The largest accepted model as JSON, at up to 24 characters a number, is 6.3 MB; the
# server's own upload limit (.streamlit/config.toml, maxUploadSize, in MB of 10^6 bytes)
# is the same number, so the browser and the app refuse the same files.
MAX_FILE_BYTES = 8_000_000
# What an NPZ may unpack to: as much as a file may weigh. The largest accepted model takes
# 2.2 MB in float64, so a zip bomb is refused before it is unpacked, and a slightly too
# large model gets to hear the reason (check_upload_size) rather than this limit.
MAX_UNPACKED_BYTES = MAX_FILE_BYTES
# A weights file holds four arrays (three for SwiGLU). Reading a zip's directory costs time
# per member, so the members are counted in the directory's own bytes before zipfile reads it.
MAX_MEMBERS = 8
# An entry of a zip's directory is 46 bytes, then its name, extra fields and comment. NumPy's
# entries name an array in a few characters and carry no extras (other zip tools add a few
# dozen bytes: ZIP64 sizes, timestamps), so 512 bytes an entry leaves room for a long name,
# and a directory of MAX_MEMBERS entries is at most a few KB, walked without zipfile.
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 512
NAMED_EXTRAS = 5  # a refusal names at most this many unexpected arrays
JSON_EXTRA_KEYS = {"orientation"}  # written by weights_to_json as a note for people
JSON_DEPTH = 3  # {"W1": [[...]]}: an object of arrays of arrays


def checked_weights(arrays: dict[str, object]) -> dict[str, np.ndarray]:
    """Float64 copies of W1, b1, W2, b2 (or W_gate, W_up, W_down) after every check;
    ValueError says what failed."""
    names = GATED_NAMES if any(name in arrays for name in GATED_NAMES) else PLAIN_NAMES
    missing = [name for name in names if name not in arrays]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}; a file holds {BOTH}")
    extra = sorted(set(arrays) - set(names) - JSON_EXTRA_KEYS, key=str)
    if extra:
        named = sorted({safe_name(name) for name in extra[:NAMED_EXTRAS]})
        more = f" and {len(extra) - NAMED_EXTRAS:,} more" if len(extra) > NAMED_EXTRAS else ""
        raise ValueError(f"unexpected arrays {', '.join(named)}{more}; a file holds only {BOTH}")
    weights = {}
    for name in names:
        try:
            arr = np.asarray(arrays[name])
        except ValueError as err:  # ragged nested lists
            raise ValueError(f"{name} is not a rectangular array of numbers") from err
        if arr.dtype.kind not in "iuf" or arr.dtype.itemsize > 8:
            raise ValueError(f"{name} must hold numbers, got {arr.dtype} values")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds NaN or infinite values")
        if np.any(np.abs(arr) > MAX_MAGNITUDE):
            raise ValueError(f"{name} holds values beyond ±{MAX_MAGNITUDE:,.0f}")
        weights[name] = arr.astype(np.float64)
    if names == GATED_NAMES:
        check_gated_weights(**weights)
    else:
        check_weights(**weights)
    first = names[0]
    d_model, d_ff = weights[first].shape
    if not (1 <= d_model <= MAX_D_MODEL and 1 <= d_ff <= MAX_D_FF):
        raise ValueError(
            f"{first} is {d_model} x {d_ff}; the explorer takes d_model up to {MAX_D_MODEL} "
            f"and d_ff up to {MAX_D_FF}"
        )
    check_upload_size(d_model, d_ff, matrices=3 if names == GATED_NAMES else 2)
    return weights


def check_gated_weights(W_gate: np.ndarray, W_up: np.ndarray, W_down: np.ndarray) -> None:
    """Raise ValueError naming the offending weight unless SwiGLU's three shapes fit."""
    check_matrix("W_gate", W_gate, "(d_model, d_ff)")
    d_model, d_ff = W_gate.shape
    check_shape("W_up", W_up, (d_model, d_ff), "(d_model, d_ff), the shape of W_gate")
    check_shape("W_down", W_down, (d_ff, d_model), "(d_ff, d_model)")


def safe_name(name: object) -> str:
    """A name from a visitor's file, fit to repeat in a message: short letters and digits.

    Anything else (a link, Markdown, a long string) becomes a description instead, so a
    message never carries text a visitor wrote.
    """
    text = str(name)
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,15}", text):
        return text
    return "one with an unusual name"


def check_upload_size(d_model: int, d_ff: int, matrices: int = 2) -> None:
    """Refuse a model whose weight matrices (W1 and W2, or SwiGLU's three) hold more than
    MAX_UPLOAD_WEIGHTS numbers."""
    held = matrices * d_model * d_ff
    if held > MAX_UPLOAD_WEIGHTS:
        which = "W1 and W2" if matrices == 2 else "W_gate, W_up and W_down"
        raise ValueError(
            f"{which} hold {held:,} numbers ({d_model} x {d_ff}); an upload holds at most "
            f"{MAX_UPLOAD_WEIGHTS:,} (for example W1 and W2 at d_model 256, d_ff 512), so "
            "that every student's model fits in one classroom server"
        )


def read_npz(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of an NPZ file, refusing pickles and anything too large once unpacked.

    Before zipfile reads anything, check_zip_directory walks the zip's directory in the
    file's own bytes: zipfile reads a whole directory, however many members the end record
    claims, so a directory of thousands of tiny members, or one that lies about itself, is
    refused before it costs time. Then the directory's sizes are read, so a small file that
    would unpack to gigabytes (a zip bomb) is refused before any of it is decompressed.
    """
    check_zip_directory(data)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as err:
        # ValueError: a name that is not the UTF-8 its flag claims; NotImplementedError:
        # an entry that asks for a zip version zipfile does not read.
        raise ValueError("not an NPZ (zip) file") from err
    if unpacked > MAX_UNPACKED_BYTES:
        raise ValueError(
            f"it would unpack to {unpacked / 2**20:.1f} MiB; at most "
            f"{MAX_UNPACKED_BYTES / 2**20:.1f} MiB fits the largest model an upload may hold"
        )
    check_npy_headers(data)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, NotImplementedError) as err:
        raise ValueError(
            "not a plain NPZ file of numeric arrays (pickled objects are refused)"
        ) from err


EOCD = b"PK\x05\x06"  # the signature of a zip's end-of-central-directory record
EOCD_BYTES = 22  # the record's fixed part; a comment of up to 65,535 bytes may follow
ZIP64_LOCATOR = b"PK\x06\x07"  # 20 bytes just before the end record of a ZIP64 file
ENTRY = b"PK\x01\x02"  # the signature of an entry of the central directory
ENTRY_BYTES = 46  # an entry's fixed part; its name, extra fields and comment follow
LOCAL_BYTES = 30  # a member's local header before its name and extra field
# Flag bits 0 and 6 mark encryption, bit 5 patched data: zipfile refuses each with an error
# of its own (RuntimeError, NotImplementedError), and NumPy writes none of them.
ENCRYPTED_OR_PATCHED = 0x0001 | 0x0020 | 0x0040
NUMPY_METHODS = frozenset({0, 8})  # stored and deflated: np.savez and np.savez_compressed
NOT_A_ZIP = "not an NPZ (zip) file"


def end_record(data: bytes) -> int:
    """Where the zip's end record starts, found as zipfile finds it.

    zipfile takes the last 22 bytes when they are a record without a comment, or else the
    last record signature in the final 64 KB; checking any other record would let a file
    pass one check and be read by another. Refuses a file without one, and a record whose
    comment does not end exactly where the file does (a record forged inside a comment).
    """
    tail = len(data) - EOCD_BYTES
    if tail >= 0 and data[tail : tail + 4] == EOCD and data[-2:] == b"\0\0":
        return tail
    start = data.rfind(EOCD, max(0, tail - (1 << 16)))  # zipfile's window, to the byte
    if start < 0 or start > tail:
        raise ValueError(NOT_A_ZIP)
    (comment,) = struct.unpack_from("<H", data, start + 20)
    if start + EOCD_BYTES + comment != len(data):
        raise ValueError(f"{NOT_A_ZIP}: its zip end record does not match the file's length")
    return start


def check_zip_directory(data: bytes) -> int:
    """How many members the zip's directory holds, counted by walking the directory's own
    bytes, never by the count its end record claims (the sender writes both).

    Refuses, each before zipfile reads the directory: a ZIP64 file (a format for zips over
    4 GB, which a weights file never needs; its records would move the directory elsewhere);
    a directory larger than MAX_DIRECTORY_BYTES, or not exactly between the members and the
    end record (zipfile would read it from somewhere else); an entry that runs past the
    directory or points past it; encrypted members and compression NumPy does not write
    (zipfile raises other errors for them); more than MAX_MEMBERS members; and a count in
    the end record that differs from the entries there.
    """
    start = end_record(data)
    if data[max(0, start - 20) : start].startswith(ZIP64_LOCATOR):
        raise ValueError(
            f"it is a ZIP64 file, a zip format for files over 4 GB; a weights file is at most "
            f"{MAX_FILE_BYTES / 1e6:.0f} MB"
        )
    _, disk, disk_of_directory, on_disk, claimed, size, offset, _ = struct.unpack_from(
        "<4s4H2LH", data, start
    )
    if size > MAX_DIRECTORY_BYTES:
        raise ValueError(
            f"its zip directory is {size:,} bytes, larger than a weights file's (at most "
            f"{MAX_DIRECTORY_BYTES:,} for {MAX_MEMBERS} arrays)"
        )
    if disk or disk_of_directory or offset + size != start:
        raise ValueError(f"{NOT_A_ZIP}: its zip directory is not where its end record says")
    count, at = 0, offset
    while at < start:
        if at + ENTRY_BYTES > start or data[at : at + 4] != ENTRY:
            raise ValueError(f"{NOT_A_ZIP}: its zip directory is damaged")
        flags, method = struct.unpack_from("<HH", data, at + 8)
        name, extra, comment = struct.unpack_from("<3H", data, at + 28)
        (local,) = struct.unpack_from("<L", data, at + 42)
        at += ENTRY_BYTES + name + extra + comment
        count += 1
        if at > start or local + LOCAL_BYTES > offset:
            raise ValueError(f"{NOT_A_ZIP}: its zip directory is damaged")
        if flags & ENCRYPTED_OR_PATCHED:
            raise ValueError("its arrays are encrypted or patched; a weights file's are plain")
        if method not in NUMPY_METHODS:
            raise ValueError(
                f"its arrays are compressed in a way NumPy does not write (zip method "
                f"{method}); save them with np.savez or np.savez_compressed"
            )
    if count > MAX_MEMBERS:
        raise ValueError(f"it holds {count:,} arrays; a file holds {BOTH}")
    if on_disk != count or claimed != count:
        raise ValueError(
            f"{NOT_A_ZIP}: its zip directory lists {count:,} arrays where its end record "
            f"says {claimed:,}"
        )
    return count


def check_npy_headers(data: bytes) -> None:
    """Read each array's header (its dtype and shape) before any of its data.

    A header may claim any shape: a 181-byte file that says (10**12,) would make NumPy
    try to allocate 8 TB. So the claimed size is checked against what an upload may hold,
    and against the member's own unpacked size, so that all the arrays together never ask
    for more memory than the file unpacks to. A member whose local header lies (another
    name, a size that stops inside its data) is refused as not an array. Each member's
    local header, whose extra field may take 64 KB, is read once, for at most MAX_MEMBERS
    members.
    """
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name = safe_name(info.filename.removesuffix(".npy"))
            try:
                with archive.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    read_header = {
                        (1, 0): np.lib.format.read_array_header_1_0,
                        (2, 0): np.lib.format.read_array_header_2_0,
                    }.get(version)
                    if read_header is None:
                        raise ValueError(f"unknown .npy version {version}")
                    shape, _, dtype = read_header(member, max_header_size=10_000)
            except (
                ValueError,
                OSError,
                EOFError,
                zipfile.BadZipFile,
                NotImplementedError,
            ) as err:
                raise ValueError(f"array {name} is not a plain .npy array") from err
            if dtype.hasobject:
                raise ValueError("pickled objects are refused")
            claimed = np.prod(shape, dtype=np.float64) * dtype.itemsize
            if claimed > MAX_UNPACKED_BYTES:
                raise ValueError(f"array {name} claims shape {shape}, more than an upload holds")
            if claimed > info.file_size:
                raise ValueError(
                    f"array {name} claims shape {shape}, more than its {info.file_size:,} "
                    "bytes hold"
                )


def file_names(weights: dict[str, np.ndarray]) -> tuple[str, ...]:
    """The names a file of these weights holds, in their order."""
    return GATED_NAMES if "W_gate" in weights else PLAIN_NAMES


def weights_to_npz(weights: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{name: weights[name] for name in file_names(weights)})
    return buffer.getvalue()


ORIENTATION = {
    PLAIN_NAMES: "x @ W: W1 is (d_model, d_ff), W2 is (d_ff, d_model)",
    GATED_NAMES: "x @ W: W_gate and W_up are (d_model, d_ff), W_down is (d_ff, d_model)",
}


def weights_to_json(weights: dict[str, np.ndarray]) -> bytes:
    names = file_names(weights)
    payload = {name: weights[name].tolist() for name in names}
    payload["orientation"] = ORIENTATION[names]
    return json.dumps(payload).encode("utf-8")


def weights_from_file(data: bytes, filename: str) -> dict[str, np.ndarray]:
    """Read and check an uploaded .npz or .json file."""
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(
            f"the file is {len(data) / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB"
        )
    if filename.lower().endswith(".npz"):
        arrays = read_npz(data)
    elif filename.lower().endswith(".json"):
        arrays = read_json(data)
    else:
        raise ValueError("upload a .npz or .json file")
    return checked_weights(arrays)


def read_json(data: bytes) -> dict:
    """The object of a JSON weights file, refusing what would cost far more than it holds.

    Two checks run on the raw bytes before parsing: the nesting depth (100,000 nested
    lists exhaust Python's recursion) and the count of commas (12 million one-element
    lists took 1.6 GB as Python objects), so that parsing holds memory in proportion to
    the numbers an upload may contain. Integers are read as floats, as the weights become
    float64 anyway: Python's exact integers take time quadratic in their digits and refuse
    more than 4,300 with a message about Python, where a float of any length is read in
    one pass, and one beyond float64's range is infinite and refused as such.
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    values = int(np.count_nonzero(raw == ord(",")))
    if values > MAX_UPLOAD_WEIGHTS + 2 * (MAX_D_MODEL + MAX_D_FF) + 16:
        raise ValueError(
            f"the JSON lists about {values:,} values; an upload holds at most "
            f"{MAX_UPLOAD_WEIGHTS:,} weights and their biases"
        )
    opens = (raw == ord("[")) | (raw == ord("{"))
    closes = (raw == ord("]")) | (raw == ord("}"))
    step = opens.view(np.int8) - closes.view(np.int8)  # +1, -1 or 0 per byte
    # In int8 the running depth wraps past 127, but it passes JSON_DEPTH + 1 first.
    depth = np.cumsum(step, dtype=np.int8)  # (len(data),)
    if raw.size and depth.max() > JSON_DEPTH:
        raise ValueError(f"the JSON nests deeper than the {JSON_DEPTH} levels of a weights file")
    try:
        arrays = json.loads(data.decode("utf-8"), parse_int=float)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"not valid JSON: {err}") from err
    if not isinstance(arrays, dict):
        raise ValueError(f"the JSON must be an object with keys {BOTH}")
    return arrays

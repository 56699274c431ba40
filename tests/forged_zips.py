"""NPZ files whose zip records lie, as a hostile visitor would send them (issue 45).

Each is built with zipfile or np.savez and then patched with struct, so the lie is the only
thing wrong with it. FORGED are the files an upload must refuse, with the words of the
refusal; READ are odd but honest zips an upload reads, at a cost bounded by what it reads.
Shared by tests/core/test_weights_io.py, tests/ui/test_upload.py,
tests/pages/test_hostile_visitors.py and benchmarks/forged_uploads.py, so this module needs
nothing but NumPy and the core.
"""

from __future__ import annotations

import functools
import io
import struct
import zipfile
from collections.abc import Callable

import numpy as np

from ffn_core.init import init_weights

FORGED_COUNT = 30_067  # the file: this many members, its end record saying 4
EOCD = b"PK\x05\x06"
EOCD_FORMAT = "<4s4H2LH"  # signature, 2 disk numbers, 2 entry counts, size, offset, comment
ENTRY_FORMAT = "<4s6H3L5H2L"  # a central directory entry's fixed 46 bytes
WEIGHTS = init_weights(3, 5, "normal", seed=1)


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


EMPTY_NPY = npy(np.zeros(0))  # a valid array of no numbers: 128 bytes


def savez(compressed: bool = False, **arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **(arrays or WEIGHTS))
    return buffer.getvalue()


@functools.cache
def many_arrays(count: int = FORGED_COUNT, last: tuple[str, ...] = ()) -> bytes:
    """A zip of `count` empty arrays a0.npy, a1.npy ..., then WEIGHTS' arrays named in
    `last`; honest until patched."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for k in range(count):
            archive.writestr(f"a{k}.npy", EMPTY_NPY)
        for name in last:
            archive.writestr(f"{name}.npy", npy(WEIGHTS[name]))
    return buffer.getvalue()


def end_at(data: bytes) -> int:
    """Where the end record of a zip without a comment starts."""
    return len(data) - 22


def end_record(data: bytes) -> list:
    return list(struct.unpack_from(EOCD_FORMAT, data, end_at(data)))


def patched_end(data: bytes, **fields: int) -> bytes:
    """`data`, a zip without a comment, with fields of its end record replaced: entries
    (both counts), size, offset."""
    record = end_record(data)
    if "entries" in fields:
        record[3] = record[4] = fields["entries"]
    if "size" in fields:
        record[5] = fields["size"]
    if "offset" in fields:
        record[6] = fields["offset"]
    at = end_at(data)
    return data[:at] + struct.pack(EOCD_FORMAT, *record)


def entry_starts(data: bytes) -> list[int]:
    """Where each central directory entry starts, walking an honest directory."""
    _, _, _, _, _, size, offset, _ = end_record(data)
    starts, at = [], offset
    while at < offset + size:
        starts.append(at)
        name, extra, comment = struct.unpack_from("<3H", data, at + 28)
        at += 46 + name + extra + comment
    return starts


def patched_entry(data: bytes, index: int, field: int, value: int) -> bytes:
    """`data` with one field (its index in ENTRY_FORMAT) of a directory entry replaced."""
    at = entry_starts(data)[index]
    entry = list(struct.unpack_from(ENTRY_FORMAT, data, at))
    entry[field] = value
    return data[:at] + struct.pack(ENTRY_FORMAT, *entry) + data[at + 46 :]


FLAGS, METHOD, COMPRESSED, UNPACKED, LOCAL = 3, 4, 8, 9, 16  # fields of ENTRY_FORMAT
VERSION_NEEDED = 2


def with_comment(data: bytes, comment: bytes) -> bytes:
    """`data`, a zip without a comment, given `comment`."""
    record = end_record(data)
    record[7] = len(comment)
    return data[:-22] + struct.pack(EOCD_FORMAT, *record) + comment


# --- the directory lies ----------------------------------------------------------------


def lying_count() -> bytes:
    """The issue's file: 30,067 members, the end record saying 4."""
    return patched_end(many_arrays(), entries=4)


def count_65535() -> bytes:
    """The count ZIP64 files write in the end record, here without a ZIP64 record."""
    return patched_end(many_arrays(), entries=0xFFFF)


def small_size() -> bytes:
    """The end record's directory size that of the last four entries, its offset the real
    directory's: zipfile would read the directory from where the size says it starts."""
    data = many_arrays()
    size = end_at(data) - entry_starts(data)[-4]
    return patched_end(data, entries=4, size=size)


def zip64_locator() -> bytes:
    """A ZIP64 end record and locator before an end record saying 4: zipfile believes the
    ZIP64 record, which lists all 30,067 members."""
    data = many_arrays()
    _, _, _, _, _, size, offset, _ = end_record(data)
    at = end_at(data)
    record64 = struct.pack(
        "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, FORGED_COUNT, FORGED_COUNT, size, offset
    )
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, at, 1)
    end = struct.pack(EOCD_FORMAT, EOCD, 0, 0, 4, 4, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:at] + record64 + locator + end


def offset_outside(data: bytes | None = None) -> bytes:
    """The directory's offset past the end of the file (the 30,067 members, or a good
    file), the count saying 4."""
    return patched_end(data or many_arrays(), entries=4, offset=0xFFFFFF00)


def long_comment() -> bytes:
    """The issue's file with a comment of 65,535 bytes, the most a zip comment holds."""
    return with_comment(lying_count(), b"#" * 0xFFFF)


def end_record_in_comment() -> bytes:
    """An honest end record of 30,067 members, then a comment that is a second end record
    saying 4, whose directory starts where the real one does. zipfile reads the last one."""
    data = many_arrays()
    _, _, _, _, _, size, offset, _ = end_record(data)
    note = b"note "
    fake = struct.pack(EOCD_FORMAT, EOCD, 0, 0, 4, 4, size + 22 + len(note), offset, 0)
    return with_comment(data, note + fake)


def stray_end_record_in_comment() -> bytes:
    """A good file whose comment holds an end record signature followed by junk."""
    return with_comment(savez(), EOCD + b"\0" * 30)


# --- the entries or the members lie ----------------------------------------------------


def local_name_differs() -> bytes:
    data = savez()
    at = data.index(b"W1.npy")  # the first local header's name
    return data[:at] + b"X1.npy" + data[at + 6 :]


def local_offset_past_directory() -> bytes:
    data = savez()
    return patched_entry(data, 0, LOCAL, end_record(data)[6] + 10)


def encrypted() -> bytes:
    return patched_entry(savez(), 0, FLAGS, 0x0001)


def unknown_method() -> bytes:
    return patched_entry(savez(), 0, METHOD, 99)


def bzip2_method() -> bytes:
    """Compressed as zipfile can read but NumPy never writes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as archive:
        for name, array in WEIGHTS.items():
            archive.writestr(f"{name}.npy", npy(array))
    return buffer.getvalue()


def unknown_version() -> bytes:
    return patched_entry(savez(), 0, VERSION_NEEDED, 99)


def bad_utf8_name() -> bytes:
    """A name flagged UTF-8 that is not: zipfile's decoding fails."""
    data = patched_entry(savez(), 0, FLAGS, 0x0800)
    at = entry_starts(data)[0] + 46
    return data[:at] + b"\xff" + data[at + 1 :]


def compressed_size_too_small() -> bytes:
    """A deflated member whose recorded compressed size stops inside its data."""
    return patched_entry(savez(compressed=True), 0, COMPRESSED, 10)


def unpacked_size_too_small() -> bytes:
    """A stored member whose recorded size stops inside its data (zipfile finds its
    checksum wrong on reading the header, as it reads ahead)."""
    return patched_entry(savez(), 0, UNPACKED, 140)


def header_claims_more_than_member() -> bytes:
    """W1's header claims 1,000 numbers; its member holds 1."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (1000,)}
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("W1.npy", header.getvalue() + b"\0" * 8)
    return buffer.getvalue()


def nine_members() -> bytes:
    return savez(**WEIGHTS, **{f"x{k}": np.zeros(1) for k in range(5)})


def moved_directory() -> bytes:
    """30,063 empty arrays no entry lists, then a directory of W1, b1, W2, b2 only."""
    data = many_arrays(FORGED_COUNT - 4, last=("W1", "b1", "W2", "b2"))
    size = end_at(data) - entry_starts(data)[-4]
    return patched_end(data, entries=4, size=size, offset=end_at(data) - size)


def huge_local_extra() -> bytes:
    """W1's local header carries a 65,535-byte extra field (the most it can); every offset
    after it is moved to match, so the zip is honest."""
    data = savez()
    name, extra = struct.unpack_from("<2H", data, 26)  # W1's local header comes first
    grown = 0xFFFF - extra
    for index in range(1, len(entry_starts(data))):
        local = struct.unpack_from(ENTRY_FORMAT, data, entry_starts(data)[index])[LOCAL]
        data = patched_entry(data, index, LOCAL, local + grown)
    offset = end_record(data)[6]
    at = 30 + name + extra
    data = data[:26] + struct.pack("<2H", name, 0xFFFF) + data[30:at] + b"\0" * grown + data[at:]
    return patched_end(data, offset=offset + grown)


# (case, builder, the refusal's words as a regular expression)
FORGED: list[tuple[str, Callable[[], bytes], str]] = [
    (
        "30,067 members, the end record saying 4",
        lying_count,
        r"^its zip directory is [\d,]+ bytes, larger than a weights file's \(at most 4,096",
    ),
    ("the end record saying 65,535", count_65535, r"^its zip directory is [\d,]+ bytes"),
    (
        "a good file, the end record saying 65,535",
        lambda: patched_end(savez(), entries=0xFFFF),
        r"^not an NPZ \(zip\) file: its zip directory lists 4 arrays where its end record "
        r"says 65,535$",
    ),
    (
        "the directory's size that of 4 entries",
        small_size,
        r"^not an NPZ \(zip\) file: its zip directory is not where its end record says",
    ),
    ("a ZIP64 locator", zip64_locator, r"^it is a ZIP64 file, .* a weights file is at most 8 MB"),
    ("the directory's offset outside the file", offset_outside, r"^its zip directory is [\d,]+"),
    (
        "a good file, the directory's offset outside it",
        lambda: offset_outside(savez()),
        r"^not an NPZ \(zip\) file: its zip directory is not where its end record says",
    ),
    ("a comment of 65,535 bytes", long_comment, r"^its zip directory is [\d,]+ bytes"),
    ("an end record inside the comment", end_record_in_comment, r"^its zip directory is [\d,]+"),
    (
        "a stray end record signature in the comment",
        stray_end_record_in_comment,
        r"^not an NPZ \(zip\) file: its zip end record does not match the file's length",
    ),
    ("9 arrays", nine_members, r"^it holds 9 arrays; a file holds W1, b1, W2, b2"),
    (
        "the directory points past itself",
        local_offset_past_directory,
        r"^not an NPZ \(zip\) file: its zip directory is damaged",
    ),
    (
        "an encrypted array",
        encrypted,
        r"^its arrays are encrypted or patched; a weights file's are plain",
    ),
    ("zip method 99", unknown_method, r"compressed in a way NumPy does not write \(zip method 99"),
    ("bzip2", bzip2_method, r"compressed in a way NumPy does not write \(zip method 12\)"),
    ("zip version 9.9", unknown_version, r"^not an NPZ \(zip\) file$"),
    ("a name flagged UTF-8 that is not", bad_utf8_name, r"^not an NPZ \(zip\) file$"),
    ("a local name unlike the directory's", local_name_differs, r"^array W1 is not a plain"),
    (
        "a compressed size that stops inside the data",
        compressed_size_too_small,
        r"^array W1 is not a plain \.npy array",
    ),
    (
        "an unpacked size that stops inside the data",
        unpacked_size_too_small,
        r"^array W1 is not a plain \.npy array",
    ),
    (
        "a header claiming more than its member holds",
        header_claims_more_than_member,
        r"^array W1 claims shape \(1000,\), more than its 136 bytes hold",
    ),
]

# (case, builder): odd but honest zips that are read, costing only the entries listed.
READ: list[tuple[str, Callable[[], bytes]]] = [
    ("np.savez", savez),
    ("np.savez_compressed", lambda: savez(compressed=True)),
    ("SwiGLU's three, compressed", lambda: savez(True, **init_weights(3, 5, gated=True))),
    ("a comment of 65,535 bytes", lambda: with_comment(savez(), b"#" * 0xFFFF)),
    ("30,063 unlisted arrays before a directory of four", moved_directory),
    ("a local extra field of 65,535 bytes", huge_local_extra),
]

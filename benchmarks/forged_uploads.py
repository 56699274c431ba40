"""What a forged weights file costs to refuse (issue 45): every NPZ whose zip records lie,
and the JSON numbers no weight is, next to good files at the limits, in one run.

    python -m benchmarks.forged_uploads

For each file: the CPU milliseconds of weights_from_file (process time, the median of 5),
its ratio to the largest good NPZ's, and the outcome's first words. The forged files are built
by tests/forged_zips.py, as the tests build them. The target: each refused in about 0.1 s.
"""

from __future__ import annotations

import io
import json
import statistics
import time
import zipfile
from collections.abc import Callable
from datetime import date

import numpy as np

from ffn_core.init import init_weights
from ffn_core.weights_io import weights_from_file, weights_to_json
from tests.forged_zips import FORGED, FORGED_COUNT, READ, WEIGHTS, many_arrays, patched_end

REPEATS = 5


def cpu_seconds(data: bytes, name: str) -> tuple[float, str]:
    """(median CPU seconds, outcome) of reading `data` as an upload called `name`."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        try:
            weights_from_file(data, name)
            outcome = "read"
        except ValueError as err:
            outcome = f"refused: {err}"
        times.append(time.process_time() - start)
    return statistics.median(times), outcome


def npz(compressed: bool, **arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def json_with(numbers: str) -> bytes:
    """A weights file whose b2 starts with `numbers`, written as they are."""
    text = json.dumps({name: array.tolist() for name, array in WEIGHTS.items()})
    return text.replace('"b2": [', f'"b2": [{numbers}, ', 1).encode()


def files() -> list[tuple[str, str, Callable[[], bytes]]]:
    """(case, upload name, builder): the good files first, the largest one the reference."""
    largest = init_weights(256, 512, "normal", seed=0)  # the most weights an upload holds
    extras = {f"x{k}": np.zeros(1) for k in range(4)}
    return [
        ("good: the largest model, np.savez", "w.npz", lambda: npz(False, **largest)),
        ("good: the largest model, compressed", "w.npz", lambda: npz(True, **largest)),
        ("good: the largest model, JSON", "w.json", lambda: weights_to_json(largest)),
        (
            "8 arrays, the most a directory may list",
            "w.npz",
            lambda: npz(False, **WEIGHTS, **extras),
        ),
        ("30,067 empty arrays, an honest end record", "w.npz", many_arrays),
        (
            "30,067 zero-byte members, the end record saying 4",
            "w.npz",
            lambda: patched_end(zero_byte_members(), entries=4),
        ),
        *[(f"forged: {case}", "w.npz", make) for case, make, _ in FORGED],
        *[(f"odd, read: {case}", "w.npz", make) for case, make in READ],
        ("JSON: 5,000 digits", "w.json", lambda: json_with("9" * 5000)),
        (
            "JSON: 8 MB of 4,299-digit integers",
            "w.json",
            lambda: json_with(", ".join(["9" * 4299] * 1800)),
        ),
        ("JSON: 1e999", "w.json", lambda: json_with("1e999")),
    ]


def zero_byte_members() -> bytes:
    """FORGED_COUNT members of no bytes at all: the old check refused the first one."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for k in range(FORGED_COUNT):
            archive.writestr(f"a{k}.npy", b"")
    return buffer.getvalue()


def main() -> None:
    rows = []
    for case, name, make in files():
        data = make()
        seconds, outcome = cpu_seconds(data, name)
        rows.append((case, len(data), seconds, outcome))
    reference = rows[0][2]
    print(f"{date.today()}: weights_from_file, CPU ms (median of {REPEATS}), and its ratio to")
    print(f"the first file's; {len(rows)} files")
    print(f"{'file':60} {'bytes':>10} {'CPU ms':>9} {'ratio':>8}  outcome")
    for case, size, seconds, outcome in rows:
        ratio = seconds / reference
        print(f"{case[:60]:60} {size:>10,} {seconds * 1e3:>9.3f} {ratio:>8.3f}  {outcome[:70]}")
    worst = max(rows[3:], key=lambda row: row[2])
    print(f"the worst of the others: {worst[2] * 1e3:.3f} ms, {worst[0]!r}")


if __name__ == "__main__":
    main()

"""A small timer for the benchmarks: best of several repeats, each long enough to trust."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], min_seconds: float = 0.2, repeats: int = 5) -> float:
    """Seconds per call: calls are batched until a batch takes min_seconds; best of repeats."""
    fn()  # warm caches and lazy imports
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            break
        loops *= 2
    best = elapsed / loops
    for _ in range(repeats - 1):
        start = time.perf_counter()
        for _ in range(loops):
            fn()
        best = min(best, (time.perf_counter() - start) / loops)
    return best

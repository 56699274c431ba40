"""What a typed line can cost: every line of the hostile corpus, and the exercise's right
answers for a baseline, each graded as Build it grades it (both sets of shapes).

    python -m benchmarks.hostile_lines

For each line: the CPU milliseconds of one grading (the median of 5, process time) and
the peak memory it allocated (tracemalloc). The target (issue 36): every line at most
50 ms of CPU and a few MB.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from datetime import date

from ffn_core.exercise.build_ffn import STEPS, check_line
from harness.hostile_lines import HOSTILE

REPEATS = 5


def cost(step: str, text: str) -> tuple[float, float]:
    """(median CPU ms, peak MB) of grading `text` as the line `step`."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        check_line(step, text)
        times.append((time.process_time() - start) * 1000)
    tracemalloc.start()
    check_line(step, text)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return statistics.median(times), peak


def main() -> None:
    right = [cost(step.name, step.answer) for step in STEPS]
    hostile = [(text, *cost("dx", text)) for text in HOSTILE]
    worst_cpu = max(hostile, key=lambda row: row[1])
    worst_mem = max(hostile, key=lambda row: row[2])
    print(f"{date.today()}: grading a line on both sets of shapes")
    print(f"  the 10 right answers: median {statistics.median(r[0] for r in right):.2f} ms")
    print(
        f"  {len(hostile)} hostile lines: median {statistics.median(h[1] for h in hostile):.2f} ms"
    )
    print(f"  worst CPU {worst_cpu[1]:.2f} ms: {worst_cpu[0][:60]!r}")
    print(f"  worst peak memory {worst_mem[2]:.2f} MB: {worst_mem[0][:60]!r}")


if __name__ == "__main__":
    main()

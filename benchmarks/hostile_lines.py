"""What a typed line can cost: every line of the hostile corpus, and the exercise's right
answers for a baseline, each graded as Build it grades it (both sets of shapes); then what
one rerun of the Build it page, and one opening of a shared link, cost with costly lines in
their boxes, against the right answers in the same run.

    python -m benchmarks.hostile_lines

For each line: the CPU milliseconds of one grading (the median of 5, process time) and
the peak memory it allocated (tracemalloc). The target (issue 36): every line at most
50 ms of CPU and a few MB.

For the page (issue 45), in AppTest, process CPU time (the script runs in AppTest's own
thread), the median of a few fresh sessions with the caches cleared:
- a rerun: the page open, then lines typed into its boxes and the page run once (every
  line graded on each case, the learner's own gradient check once all ten are right, and
  each by-hand index line run at every index of both its cases);
- a link: a fresh session's first run of `?lines=` holding seven lines, and of one
  holding every box's line.
Each with the lesson's shapes (two cases per line) and with the sidebar's toy at the
exercise's caps (three), for the right answers; the right answers with issue 45's modulo
terms added (graded right before % was priced); the right answers with the costliest
term that still grades right on every case now (the most work the prices allow, in % of
huge numbers by subnormal ones); and those with the by-hand lines at their longest.
Ratios are against the right answers in the same run. Target: at most 300 ms.
"""

from __future__ import annotations

import functools
import statistics
import time
import tracemalloc
from datetime import date
from pathlib import Path

from ffn_core.exercise import by_hand
from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN, Case, check_line
from ffn_core.exercise.safe_eval import MAX_CHARS, RefusedError, parse
from harness.hostile_lines import COSTLY, HOSTILE

REPEATS = 5
PAGE_REPEATS = 3
ROOT = Path(__file__).resolve().parent.parent
BUILD_IT = "app_pages/Build_it.py"
TOY_AT_CAPS = {  # the sidebar's toy, as large as the exercise takes it (T 8, C 16, H 64)
    "build_case": "the sidebar's toy",
    "d_model": "16",
    "d_ff": "64",
    "tokens": "random",
    "T": "8",
}
TOY = Case("the sidebar's toy", 1, 8, 16, 64, seed=0)  # its shapes, for choosing lines
SETTINGS = {  # the page's query, and the cases it grades each line on
    "the lesson's shapes": ({}, (LESSON, UNEVEN)),
    "the sidebar's toy at its caps": (TOY_AT_CAPS, (LESSON, UNEVEN, TOY)),
}
LINK_LINES = 7


def cost(step: str, text: str, cases: tuple[Case, ...] = (LESSON, UNEVEN)) -> tuple[float, float]:
    """(median CPU ms, peak MB) of grading `text` as the line `step`."""
    times = []
    for _ in range(REPEATS):
        start = time.process_time()
        check_line(step, text, cases)
        times.append((time.process_time() - start) * 1000)
    tracemalloc.start()
    check_line(step, text, cases)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return statistics.median(times), peak


def costliest_priced(step: str, answer: str, cases: tuple[Case, ...]) -> str:
    """`answer` plus the largest term of % (huge numbers by subnormal ones, 36·k·m
    entries) with which the line still grades right on every one of `cases`."""
    sizes = sorted(((k * m, k, m) for k in range(1, 11) for m in range(1, 11)), reverse=True)
    for _, k, m in sizes:
        text = f"{answer}+0*(W1[:6,:{k},None,None]*1e306%(W1[:6,:{m}]*1e-310))[0,0,0,0]"
        if check_line(step, text, cases).right:
            return text
    return answer


def fits(text: str) -> bool:
    """Whether `text` passes the checks made before a line runs (the parts cap, say)."""
    try:
        parse(text)
    except RefusedError:
        return False
    return True


def lines_costing_most(cases: tuple[Case, ...]) -> dict[str, str]:
    return {step.name: costliest_priced(step.name, step.answer, cases) for step in STEPS}


def by_hand_costing_most(chars: int) -> dict[str, str]:
    """The by-hand lines, each its answer plus as many zero terms as `chars` characters and
    the parts cap allow: no array can be made from their numbers, so their cost is their
    parts, and the index lines run 19 times each."""
    lines = {}
    for name, (_, _, answer) in by_hand.FIELDS.items():
        term = "+0*np.maximum(s,s)" if name == "output" else "+0*np.maximum(D,H)"
        text = answer
        while len(text + term) <= chars and fits(text + term):
            text += term
        lines[name] = text
    return lines


def quiet_app_test() -> None:
    """AppTest as the tests use it: one scan for components per process (as a server
    does at start-up), one BLAS thread, and no warnings about clearing caches without one."""
    from streamlit import logger as streamlit_logger
    from streamlit.components.v2 import manifest_scanner
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests
    )
    for name in ("caching.cache_data_api", "scriptrunner_utils.script_run_context"):
        streamlit_logger.get_logger(f"streamlit.runtime.{name}").disabled = True  # bare mode


def session(query: dict[str, str]):
    """A fresh session on Build it, as a link with `query` opens it, not yet run."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from harness.caps import as_link

    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    as_link(at, query)
    at.switch_page(BUILD_IT)
    return at


def cpu_ms(at) -> float:
    start = time.process_time()
    at.run()
    spent = (time.process_time() - start) * 1000
    assert not at.exception, at.exception
    return spent


def rerun_ms(lines: dict[str, str], query: dict[str, str]) -> float:
    """One run of the page right after `lines` were typed into their boxes."""
    times = []
    for _ in range(PAGE_REPEATS):
        at = session(query)
        at.run()
        for name, text in lines.items():
            at.text_input(key=f"typed_{name}").input(text)
        times.append(cpu_ms(at))
    return statistics.median(times)


def link_ms(lines: dict[str, str], query: dict[str, str]) -> float:
    """A fresh session's first run of a link that holds `lines`."""
    from ffn_ui.parts.build_it import LINK_KEY, MAX_LINK_CHARS, encode

    encoded = encode(lines)
    assert len(encoded) <= MAX_LINK_CHARS, len(encoded)
    return statistics.median(
        cpu_ms(session({**query, LINK_KEY: encoded})) for _ in range(PAGE_REPEATS)
    )


def page_costs() -> None:
    quiet_app_test()
    from ffn_ui.parts.build_it import MAX_LINK_CHARS, encode

    cpu_ms(session({}))  # imports and the page's first run, not counted
    right = {step.name: step.answer for step in STEPS}
    print()
    print(f"Build it, CPU ms (process time, median of {PAGE_REPEATS} fresh sessions)")
    print("| shapes | lines | rerun, lines typed | × right | link, 7 lines | × right |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name, (query, cases) in SETTINGS.items():
        costliest = lines_costing_most(cases)
        sets = {
            "the 10 right answers": right,
            "the 10 with issue 45's modulo terms added": COSTLY,
            "the 10 with the costliest terms that still grade right": costliest,
            "those 10, and the 3 by-hand lines at their longest": costliest
            | by_hand_costing_most(120),  # a by-hand box takes 120 characters
        }
        base_rerun = rerun_ms(right, query)
        base_link = link_ms(dict(list(right.items())[:LINK_LINES]), query)
        for label, lines in sets.items():
            rerun, link = base_rerun, base_link
            if lines is not right:
                rerun = rerun_ms(lines, query)
                link = link_ms(dict(list(lines.items())[:LINK_LINES]), query)
            print(
                f"| {name} | {label} | {rerun:.0f} | {rerun / base_rerun:.1f} | "
                f"{link:.0f} | {link / base_link:.1f} |"
            )
        every = costliest | by_hand_costing_most(MAX_CHARS)  # a link takes 300 a line
        if len(encode(every)) <= MAX_LINK_CHARS:
            link = link_ms(every, query)
            print(
                f"| {name} | a link holding all 13, by-hand lines of up to {MAX_CHARS} "
                f"characters | | | {link:.0f} | {link / base_link:.1f} |"
            )
        worst = max(cost(step, text, cases)[0] for step, text in costliest.items())
        print(f"| {name} | the costliest of those lines, graded alone | {worst:.2f} | | | |")


def main() -> None:
    right = [cost(step.name, step.answer) for step in STEPS]
    hostile = [(text, *cost("dx", text)) for text in HOSTILE]
    costly = [(text, *cost(step, text)) for step, text in COSTLY.items()]
    worst_cpu = max(hostile, key=lambda row: row[1])
    worst_mem = max(hostile, key=lambda row: row[2])
    print(f"{date.today()}: grading a line on both sets of shapes")
    print(f"  the 10 right answers: median {statistics.median(r[0] for r in right):.2f} ms")
    print(
        f"  {len(hostile)} hostile lines: median {statistics.median(h[1] for h in hostile):.2f} ms"
    )
    print(f"  worst CPU {worst_cpu[1]:.2f} ms: {worst_cpu[0][:60]!r}")
    print(f"  worst peak memory {worst_mem[2]:.2f} MB: {worst_mem[0][:60]!r}")
    print(
        f"  the 10 right answers with issue 45's modulo terms: worst "
        f"{max(c[1] for c in costly):.2f} ms"
    )
    page_costs()


if __name__ == "__main__":
    main()

"""How soon a student following a class sees the teacher's change.

    python -m benchmarks.class_follow            # 8 changes, one teacher, one student
    python -m benchmarks.class_follow --changes 20 --students 3

One app server (the in-process room store) and Debian's Chromium: the teacher starts a
class on Neurons, each student opens the join link, then the teacher types a new d_ff
again and again. For each change, the time from the teacher's Enter until every student's
d_ff box shows the new value (polled every 50 ms). The promise is 2 s: the teacher's page
publishes every 0.5 s and a student's page looks every 1 s (ffn_ui/classroom/follow.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from harness.server import AppServer

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "browser")]  # the browser tests' own helpers
from browser import (  # noqa: E402 (after the path)
    CHROMIUM,
    CHROMIUM_ARGS,
    DESKTOP,
    Browser,
    new_context,
    open_page,
    start_class,
)


def d_ff(page):
    return page.get_by_role("spinbutton", name="d_ff", exact=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=8)
    parser.add_argument("--students", type=int, default=1)
    args = parser.parse_args()
    app = AppServer()
    app.start()
    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            browser = Browser(chromium, new_context(chromium, DESKTOP))
            teacher, _ = open_page(browser, f"{app.url}/Neurons", None)
            code, _ = start_class(teacher)
            students = [
                open_page(browser, f"{app.url}/?room={code}", None, own=True)[0]
                for _ in range(args.students)
            ]
            for student in students:
                expect(d_ff(student)).to_have_value("16", timeout=20_000)
            seen = []
            for k in range(args.changes):
                value = str(20 + 4 * k)
                d_ff(teacher).fill(value)
                d_ff(teacher).press("Enter")
                start = time.monotonic()
                for student in students:
                    while d_ff(student).input_value() != value and time.monotonic() - start < 15:
                        student.wait_for_timeout(50)
                seen.append(time.monotonic() - start)
                teacher.wait_for_timeout(700)
    finally:
        app.stop()
    print(f"{date.today()} | {args.students} student(s), {args.changes} changes of d_ff")
    print("each change, s:", ", ".join(f"{s:.2f}" for s in seen))
    print(f"median {statistics.median(seen):.2f} s, largest {max(seen):.2f} s")


if __name__ == "__main__":
    main()

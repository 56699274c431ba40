"""What one student in a class costs the server: a poll, and a catch-up.

    python -m benchmarks.class_costs

One app server (the in-process room store), a teacher who started a class on Home, and
one student. Server CPU (from /proc) is averaged over 100 of the student's 1 s polls
(its watch fragment, nothing new to catch up) and over 30 whole runs of Home in the
class, against 30 runs of Home with no class, and 30 runs of the floor page
(benchmarks/floor_page.py: one slider and one small chart, the least a Streamlit page with
a chart can be) on a server of its own. Each server is otherwise idle.
"""

from __future__ import annotations

from datetime import date

from harness.class_protocol import Participant
from harness.server import AppServer

POLLS, RUNS = 100, 30


def main() -> None:
    app = AppServer("class-costs")
    app.start()
    try:
        teacher = Participant(app.port)
        student = Participant(app.port, f"room={teacher.start_class()}")
        alone = Participant(app.port)
        (watch,) = student.due
        for _ in range(5):  # warm
            student.due[watch] = 0
            student.tick()
        before = app.cpu_seconds()
        for _ in range(POLLS):
            student.due[watch] = 0  # due now
            student.tick()
        poll = (app.cpu_seconds() - before) / POLLS
        costs = []
        for session in (student, alone):
            before = app.cpu_seconds()
            for i in range(RUNS):
                session.set("x1", (0.5, 1.0)[i % 2])
            costs.append((app.cpu_seconds() - before) / RUNS)
    finally:
        app.stop()
    floor = AppServer("class-costs-floor", "benchmarks/floor_page.py")
    floor.start()
    try:
        visitor = Participant(floor.port)
        before = floor.cpu_seconds()
        for i in range(RUNS):
            visitor.set("size", (4.0, 8.0)[i % 2])
        costs.append((floor.cpu_seconds() - before) / RUNS)
    finally:
        floor.stop()
    print(f"{date.today()} | server CPU per request, ms")
    print(f"a student's poll: {poll * 1e3:.1f}")
    print(f"a run of Home, in a class: {costs[0] * 1e3:.1f}; with no class: {costs[1] * 1e3:.1f}")
    print(f"a run of the floor page: {costs[2] * 1e3:.1f}")


if __name__ == "__main__":
    main()

"""What one student in a class costs the server: a poll, and a run of the page (a catch-up).

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


def cpu_per_move(server: AppServer, session: Participant, key: str, values) -> float:
    """Server CPU seconds per run, over RUNS moves of the slider `key` between `values`."""
    before = server.cpu_seconds()
    for i in range(RUNS):
        session.set(key, values[i % 2])
    return (server.cpu_seconds() - before) / RUNS


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
        in_class = cpu_per_move(app, student, "x1", (0.5, 1.0))
        no_class = cpu_per_move(app, alone, "x1", (0.5, 1.0))
    finally:
        app.stop()
    floor = AppServer("class-costs-floor", "benchmarks/floor_page.py")
    floor.start()
    try:
        floor_page = cpu_per_move(floor, Participant(floor.port), "size", (4.0, 8.0))
    finally:
        floor.stop()
    print(f"{date.today()} | server CPU per request, ms")
    print(f"a student's poll: {poll * 1e3:.1f}")
    print(f"a run of Home, in a class: {in_class * 1e3:.1f}; with no class: {no_class * 1e3:.1f}")
    print(f"a run of the floor page: {floor_page * 1e3:.1f}")


if __name__ == "__main__":
    main()

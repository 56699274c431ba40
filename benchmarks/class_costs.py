"""What a following student costs the server when the teacher changes something.

    python -m benchmarks.class_costs                   # Home, Key–value memory, Language model
    python -m benchmarks.class_costs --students 4 --changes 6 --pages home

One app server (the in-process room store). A teacher starts a class and opens a page;
STUDENTS students join by the link and catch up. Then the teacher moves one of the
page's controls between two values, CHANGES times, and after each the teacher's own
timers run (their page publishes), then each student's poll runs once, as its 1 s timer
would: it sees the new version and the student's page catches up. Server CPU (from
/proc) over the students' catch-ups, divided by students × changes, is what one
following student costs per teacher change, its poll included. Every catch-up is checked:
the student's page draws the teacher's figures (the same traces) and the same title.

Beside it, in the same run: a student's poll when nothing changed, and a run of the floor
page (benchmarks/floor_page.py: one slider, one small chart) on a server of its own.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date

from harness.class_protocol import Participant
from harness.server import AppServer

PAGES = {  # name: (URL path, the control the teacher moves, its two values)
    "home": ("", "x1", (0.5, 1.0)),
    "key-value": ("Key_value_memory", "scale", (0.5, 1.5)),
    "language": ("Language_model", "lm_layer", (3.0, 4.0)),
}
POLLS = 100


def drawn(seen) -> tuple[str, list]:
    """A page's title and its figures' traces (their values, not their styling)."""
    traces = [
        [{k: t.get(k) for k in ("type", "name", "x", "y", "z")} for t in json.loads(c)["data"]]
        for c in seen.charts
    ]
    return seen.title, traces


def due_now(person: Participant) -> list:
    for fragment in person.due:
        person.due[fragment] = 0
    return person.tick()


def follow_cost(app: AppServer, page: str, students: int, changes: int) -> tuple[float, int, int]:
    """Server CPU seconds per student per teacher change on `page`; the catch-ups that
    needed more than the one poll; and those that never drew the teacher's figures (a
    control in a fragment changes only the teacher's fragment, which the teacher's last
    whole run does not show: the app before the class view never reran it)."""
    path, key, values = PAGES[page]
    teacher = Participant(app.port)
    code = teacher.start_class()
    teacher.go(path)
    due_now(teacher)
    class_ = [Participant(app.port, f"room={code}") for _ in range(students)]
    for student in class_:  # warm: each on the teacher's page, at its settings
        for _ in range(3):
            due_now(student)
    late, unmatched, spent = 0, 0, 0.0
    for change in range(changes):
        teacher.set(key, values[change % 2])
        time.sleep(0.05)
        due_now(teacher)  # its publishing (a control in a fragment reruns the page here)
        before = app.cpu_seconds()
        for student in class_:
            due_now(student)
        spent += app.cpu_seconds() - before
        for student in class_:
            tries = 0
            while drawn(student.shown) != drawn(teacher.shown) and tries <= 20:
                tries += 1
                time.sleep(0.1)
                due_now(teacher)
                due_now(student)
            late += tries > 0
            unmatched += drawn(student.shown) != drawn(teacher.shown)
    teacher.press("End the class")
    return spent / (students * changes), late, unmatched


def poll_cost(app: AppServer) -> float:
    teacher = Participant(app.port)
    student = Participant(app.port, f"room={teacher.start_class()}")
    for _ in range(5):
        due_now(student)
    before = app.cpu_seconds()
    for _ in range(POLLS):
        due_now(student)
    cost = (app.cpu_seconds() - before) / POLLS
    teacher.press("End the class")
    return cost


def floor_cost(runs: int = 30) -> float:
    floor = AppServer("class-costs-floor", "benchmarks/floor_page.py")
    floor.start()
    try:
        visitor = Participant(floor.port)
        before = floor.cpu_seconds()
        for i in range(runs):
            visitor.set("size", (4.0, 8.0)[i % 2])
        return (floor.cpu_seconds() - before) / runs
    finally:
        floor.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES))
    args = parser.parse_args()
    app = AppServer("class-costs")
    app.start()
    try:
        costs = {p: follow_cost(app, p, args.students, args.changes) for p in args.pages}
        poll = poll_cost(app)
    finally:
        app.stop()
    floor = floor_cost()
    print(f"{date.today()} | server CPU, ms | {args.students} students, {args.changes} changes")
    for page, (cost, late, unmatched) in costs.items():
        print(
            f"a following student, per teacher change, {page}: {cost * 1e3:.1f} "
            f"({late} late, {unmatched} not the teacher's figures)"
        )
    print(f"a student's poll, nothing new: {poll * 1e3:.1f}")
    print(f"a run of the floor page: {floor * 1e3:.1f}")


if __name__ == "__main__":
    main()

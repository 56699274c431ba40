"""Rooms held by many addresses, then two new teachers and a lecture behind one address.

    python -m benchmarks.load_rooms

The attack of issue 45, item 5, on a fresh server: 40 addresses (127.0.0.10 to .49, each
a loopback address the server sees as a visitor's own) each start 5 classes from 5
sessions that stay open, 200 live rooms. Then a teacher from a new address and one from
an attacker's address each press "Start a class", and 60 students behind one address
(each a browser with its own cookie) join the new teacher's class and answer Home's
question. Printed: what each new teacher's page said, how many answers the teacher's
page counted, and the server's CPU and memory for the 200 rooms.
"""

from __future__ import annotations

import time
from datetime import date

from harness.class_protocol import Participant, xsrf_cookie
from harness.server import AppServer

ADDRESSES, ROOMS_EACH, STUDENTS = 40, 5, 60
QUESTION = "guess_home"


def teacher_from(port: int, address: str) -> tuple[Participant, str]:
    """A teacher's session from `address` after "Start a class": (session, outcome)."""
    teacher = Participant(port, source=address)
    teacher.press("Start a class")
    line = [t for t in teacher.shown.texts if t.startswith("**Class `")]
    return teacher, (line[0] if line else " | ".join(teacher.notes))


def counted(teacher: Participant) -> str:
    """The teacher's live line about Home's question, as its fragment last drew it."""
    texts = [*(t for s in teacher.fragments.values() for t in s.texts), *teacher.shown.texts]
    return next((t for t in texts if t.startswith("**The class's answers:**")), "")


def main() -> None:
    app = AppServer("load-rooms")
    app.start()
    held: list[Participant] = []
    try:
        before_cpu, before_mb = app.cpu_seconds(), app.memory_mb()
        for a in range(ADDRESSES):
            for _ in range(ROOMS_EACH):
                teacher, said = teacher_from(app.port, f"127.0.0.{10 + a}")
                assert said.startswith("**Class"), said
                held.append(teacher)
        cpu, grown = app.cpu_seconds() - before_cpu, app.memory_mb() - before_mb
        fresh, fresh_said = teacher_from(app.port, "127.0.0.200")
        neighbour, neighbour_said = teacher_from(app.port, "127.0.0.10")
        held += [fresh, neighbour]
        print(f"{date.today()}: {ADDRESSES} addresses x {ROOMS_EACH} live rooms")
        print(f"  {ADDRESSES * ROOMS_EACH} rooms: {cpu:.1f} s of server CPU, {grown:+.0f} MB")
        print(f"  a teacher from a new address: {fresh_said[:90]}")
        print(f"  a teacher from an attacker's address: {neighbour_said[:90]}")
        if not fresh_said.startswith("**Class"):
            return
        code = fresh_said.split("`")[1]
        students = [
            Participant(
                app.port,
                f"room={code}",
                source="127.0.0.201",
                cookie=xsrf_cookie(s.to_bytes(16, "big"), b"abcd"),
            )
            for s in range(1, STUDENTS + 1)
        ]
        held += students
        for s, student in enumerate(students):
            (radio,) = [c for c in student.shown.controls if c.key == QUESTION]
            options = [o for o in radio.options if o != "not sure yet"]
            student.use(radio, options[s % len(options)])
        began = time.monotonic()
        while f"{STUDENTS} of {STUDENTS}" not in counted(fresh) and time.monotonic() - began < 30:
            time.sleep(0.5)
            fresh.tick()
        print(f"  {STUDENTS} students behind one address voted: {counted(fresh)[:90]}")
    finally:
        for person in held:
            person.close()
        app.stop()


if __name__ == "__main__":
    main()

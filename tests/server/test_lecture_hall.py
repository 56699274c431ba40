"""The lecture hall of deploy/: nginx in front of two app processes sharing Redis.

Each test speaks Streamlit's protocol, as a browser does, either through nginx or
straight to one replica, so a teacher and a student can be put on different processes.
"""

from __future__ import annotations

import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from helpers import require

from deploy.lecture_hall import LectureHall
from ffn_ui.classroom.redis_store import RedisRoomStore
from harness.class_protocol import Participant, bar_counts, token_x1
from harness.server import ROOT, answers, children_of, free_port

# How long a test waits for a follower before it calls the follow lost: a liveness bound,
# not a speed (python -m benchmarks.load_classroom --replicas 2 measures the follows).
FOLLOW_SECONDS = 15.0


def replica_of(hall: LectureHall, cookie: str | None) -> str:
    """The replica nginx sent one request to, read from its access log."""
    marker = secrets.token_hex(8)  # finds this request's line among every other's
    headers = {"Cookie": cookie} if cookie else {}
    request = urllib.request.Request(f"{hall.url}/?probe={marker}", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        given = response.headers.get("Set-Cookie")
    assert (given is None) == (cookie is not None)  # the cookie is given once
    for _ in range(100):  # nginx writes the line as the response ends
        lines = (hall.run / "nginx-access.log").read_text().splitlines()
        (line,) = [line for line in lines if marker in line] or [None]
        if line:
            assert cookie is None or f"replica_cookie={cookie.split('=')[1]}" in line
            return re.search(r"upstream=(\S+)", line)[1]
        time.sleep(0.05)
    raise AssertionError("nginx did not log the request")


def test_nginx_spreads_new_browsers_and_keeps_each_on_its_replica(hall):
    replicas = {f"127.0.0.1:{r.port}" for r in hall.replicas}
    first_visits = {replica_of(hall, None) for _ in range(24)}
    assert first_visits == replicas  # both used (all 24 on one: a chance of 1 in 8 million)
    for cookie in ("ffn_replica=a1", "ffn_replica=b2", "ffn_replica=c3"):
        assert len({replica_of(hall, cookie) for _ in range(6)}) == 1


def test_websockets_pass_through_nginx(hall):
    with Participant(hall.port) as visitor:
        assert visitor.shown.charts and not visitor.shown.exceptions
        assert "FFN Explorer" in visitor.shown.headings


def scores(participant: Participant) -> str:
    """Neuron 1's score, from x₁ as Home's plane names the token (x₂ stays −1), in the
    words of the page's story caption: "Neuron 1 scores 1.5"."""
    return f"Neuron 1 scores {float(token_x1(participant.shown)) - 1:g}"


def follow(student: Participant, teacher: Participant, said: str) -> float:
    """Run the student's timers until its page says `said`; the seconds it took."""
    began = time.monotonic()
    while time.monotonic() - began < FOLLOW_SECONDS:
        time.sleep(max(0.0, min(student.next_due(), teacher.next_due()) - time.monotonic()))
        teacher.tick()
        student.tick()
        if scores(student) == said:
            return time.monotonic() - began
    raise AssertionError(f"the student still shows {scores(student)!r}, not {said!r}")


def answered(teacher: Participant, said: str) -> None:
    """Run the teacher's timers until its line about the answers says `said`."""
    for _ in range(8):
        time.sleep(max(0.0, teacher.next_due() - time.monotonic()))
        for run in teacher.tick():
            if any(said in text for text in run.texts):
                return
    raise AssertionError(f"the teacher's page never said {said!r}")


def test_a_class_spans_both_replicas(hall):
    """The teacher on one process, students on the other and through nginx: they follow
    the teacher's slider, and the teacher's chart counts every guess once."""
    a, b = hall.replicas
    teacher = Participant(a.port)
    code = teacher.start_class()
    students = [Participant(port, f"room={code}") for port in (b.port, b.port, hall.port)]
    for student in students:
        assert scores(student) == "Neuron 1 scores -1"  # x = [0, −1], the teacher's
    teacher.set("x1", 2.5)
    assert scores(teacher) == "Neuron 1 scores 1.5"
    for student in students:
        follow(student, teacher, "Neuron 1 scores 1.5")  # raises if it never arrives
    students[0].choose("guess_home", "neuron 2")
    students[1].choose("guess_home", "neither")
    students[1].choose("guess_home", "both")  # a changed guess replaces the first
    answered(teacher, "2 of 3 students answered, 1 not yet")
    teacher.press("Reveal to the class")
    (chart,) = [k for k in teacher.shown.keyed_charts if k.startswith("tally_guess_home:")]
    counts = bar_counts(teacher.shown.keyed_charts[chart])
    assert counts == {"neuron 1": 0, "neuron 2": 1, "both": 1, "neither (the answer)": 0}
    for participant in (teacher, *students):
        participant.close()


def test_a_student_replaying_the_teachers_messages_changes_nothing(hall):
    """A student's session sends, byte for byte, everything teachers' sessions sent: its
    own teacher's, and another teacher's who pressed "Reveal to the class" (widget ids
    are the same in every session). It does so on the teacher's process and on the other
    one. Without the teacher's key in its session, the room shows what it showed and
    reveals nothing; then the teacher's own press reveals, as the proof that a replay
    that worked would have been seen."""
    a, b = hall.replicas
    store = RedisRoomStore(hall.redis_url)
    elsewhere = Participant(a.port)  # another class, whose teacher reveals
    elsewhere.start_class()
    elsewhere.set("x1", 2.5)
    elsewhere.press("Reveal to the class")
    reveal = elsewhere.sent[-1]
    teacher = Participant(a.port)
    code = teacher.start_class()
    teacher.set("x1", 0.5)
    room = store.view(code)
    assert room[1]["settings"]["x1"] == 0.5 and not store.look(code).revealed

    for port in (a.port, b.port):
        student = Participant(port, f"room={code}")
        assert scores(student) == "Neuron 1 scores -0.5"
        for message in elsewhere.sent + teacher.sent:
            seen = student.replay(message)
            assert seen is None or not seen.exceptions
        assert student.replay(reveal) is None  # the student's page has no such button
        assert store.view(code) == room
        assert not store.look(code).revealed
        student.close()

    watcher = Participant(b.port, f"room={code}")
    assert scores(watcher) == "Neuron 1 scores -0.5"  # the teacher's, not a replayer's
    teacher.press("Reveal to the class")
    assert store.look(code).revealed
    for participant in (elsewhere, teacher, watcher):
        participant.close()


def test_the_command_starts_the_hall_and_stops_it_all(tmp_path):
    """`python -m deploy.lecture_hall`, as the README says, then `kill`: nothing is left."""
    for program in ("nginx", "redis-server"):
        require(shutil.which(program) is not None, f"no {program}: apt-get install {program}")
    port = free_port()
    command = [sys.executable, "-m", "deploy.lecture_hall", "--replicas", "1",
               "--port", str(port), "--host", "127.0.0.1"]  # fmt: skip
    hall = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert answers(f"http://127.0.0.1:{port}", timeout=60)
        assert hall.stdout.readline().startswith(f"Students open http://127.0.0.1:{port} ")
        started = set(children_of(hall.pid))
        assert len(started) >= 3  # Redis, a replica, nginx
    finally:
        hall.send_signal(signal.SIGTERM)
        assert hall.wait(timeout=30) == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in started)
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)


def test_a_hall_that_fails_to_start_leaves_nothing_running(tmp_path, monkeypatch):
    for program in ("nginx", "redis-server"):
        require(shutil.which(program) is not None, f"no {program}: apt-get install {program}")
    hall = LectureHall(2, run=tmp_path)

    def refuse() -> None:
        raise RuntimeError("the second replica did not start")

    monkeypatch.setattr(hall.replicas[1], "start", refuse)
    with pytest.raises(RuntimeError, match="the second replica"):
        hall.start()
    (redis,) = hall.processes  # nginx was never started
    assert redis.poll() is not None  # Redis stopped
    assert hall.replicas[0].process.poll() is not None  # and the first replica


def test_behind_nginx_a_class_counts_the_address_nginx_saw_not_one_a_client_wrote(hall):
    """A client once wrote its own X-Real-IP, which the app trusted behind the proxy, and
    started 12 rooms where its address may start 5. nginx now writes the address it saw
    into X-Forwarded-For, which Streamlit's server reads only from nginx: a client's own
    headers change nothing."""
    from ffn_ui.classroom.store import ROOMS_PER_ADDRESS

    teachers = []
    try:
        for k in range(ROOMS_PER_ADDRESS):
            forged = {"X-Forwarded-For": f"203.0.113.{k}", "X-Real-IP": f"198.51.100.{k}"}
            teachers.append(Participant(hall.port, source="127.0.0.5", headers=forged))
            teachers[-1].start_class()
        forged = {"X-Forwarded-For": "203.0.113.200", "X-Real-IP": "198.51.100.200"}
        one_more = Participant(hall.port, source="127.0.0.5", headers=forged)
        teachers.append(one_more)
        one_more.press("Start a class")
        assert any(f"already runs {ROOMS_PER_ADDRESS} classes" in n for n in one_more.notes)
        elsewhere = Participant(hall.port, source="127.0.0.6")  # another address is not held up
        teachers.append(elsewhere)
        elsewhere.start_class()
    finally:
        for teacher in teachers:
            teacher.close()

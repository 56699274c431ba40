"""A lecture: one teacher and many students in a class, through nginx, replicas and Redis.

    python -m benchmarks.load_classroom --replicas 2        # 120 sessions, one the teacher
    python -m benchmarks.load_classroom --replicas 1        # the same class on one replica
    python -m benchmarks.load_classroom --replicas 2 --students 30 --moves 3

deploy/lecture_hall.py starts Redis, the replicas and nginx. Every participant is one
websocket through nginx speaking Streamlit's protocol (harness/class_protocol.py), and
reruns its polling fragments on the browser's timers: the teacher's publish (0.5 s) and
line of answers (1 s), each student's watch (1 s). The teacher starts a class on Home
and moves the x₁ slider every 8 s (`--every`); each student follows, and now and then
changes their guess to Home's question.

Reported (counted, not asserted): exceptions and failed requests; how many of the
teacher's moves each student's page showed (the plane's words name the token's new x₁)
within 2 s; whether the count in Redis, and the teacher's own line (how many answered),
equal the students' last guesses at the end. Measured:
every request's time to its finished run (moves, guesses, timer runs, a catch-up rerun
included in the timer run that caused it), the server CPU per second of class, memory.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from math import inf
from pathlib import Path

from deploy.lecture_hall import LectureHall
from ffn_ui.classroom.redis_store import RedisRoomStore
from ffn_ui.classroom.votes import question_id
from ffn_ui.page.predict import NOT_SURE
from harness.class_protocol import Participant, token_x1
from harness.protocol import Visitor
from harness.server import children_of, cpu_seconds

GUESSES = [NOT_SURE, "neuron 1", "neuron 2", "both", "neither"]  # Home's question
X1 = [v / 2 for v in range(-6, 7)]  # the teacher's slider, x₁ from −3 to 3
FOLLOW_SECONDS = 2.0
TARGET_P95 = 0.5
ANSWERS = "**The class's answers:** "  # the teacher's line about a question (votes.tally)


def says(participant: Participant) -> str:
    return token_x1(participant.shown)


def caption_for(x1: float) -> str:
    return f"{x1:g}"


@dataclass
class Log:
    """What one participant saw: each request's seconds, when each caption first showed."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    shown: list[tuple[float, str]] = field(default_factory=list)  # (when, a new caption)
    last_guess: str = NOT_SURE
    answered: int = -1  # how many answered, as the teacher's line last said (before a reveal)

    def timed(self, participant: Participant, call, *args) -> None:
        began = time.monotonic()
        try:
            runs = call(*args)
        except Exception as err:  # every failure is counted, then reported
            self.errors.append(f"{type(err).__name__}: {err}")
            return
        self.latencies.append(time.monotonic() - began)
        for run in runs if isinstance(runs, list) else [runs]:
            self.errors += run.exceptions
            for text in run.texts:  # the teacher's line: "… 12 of 30 students answered, …"
                if text.startswith(ANSWERS):
                    self.answered = int(text.removeprefix(ANSWERS).split()[0])
        self.saw(participant)

    def saw(self, participant: Participant) -> None:
        caption = says(participant)
        if not self.shown or self.shown[-1][1] != caption:
            self.shown.append((time.monotonic(), caption))

    def delay(self, sent: float, caption: str) -> float:
        """Seconds from the teacher's move to this page showing it (inf: never)."""
        return min((t - sent for t, c in self.shown if c == caption and t >= sent), default=inf)


@dataclass
class Lecture:
    code: str
    hall: LectureHall
    moves: list[tuple[float, str]] = field(default_factory=list)  # (when, the caption)
    over: threading.Event = field(default_factory=threading.Event)


def teach(lecture: Lecture, teacher: Participant, log: Log, moves: int, every: float) -> None:
    rng = random.Random(0)
    x1 = 1.0
    for _ in range(moves):
        deadline = time.monotonic() + every
        while time.monotonic() < deadline:
            time.sleep(max(0.0, min(teacher.next_due(), deadline) - time.monotonic()))
            log.timed(teacher, teacher.tick)
        x1 = rng.choice([v for v in X1 if v != x1])
        lecture.moves.append((time.monotonic(), caption_for(x1)))
        log.timed(teacher, teacher.set, "x1", x1)
    end = time.monotonic() + 2 * FOLLOW_SECONDS  # the class catches up with the last move
    while time.monotonic() < end:
        time.sleep(max(0.0, teacher.next_due() - time.monotonic()))
        log.timed(teacher, teacher.tick)
    lecture.over.set()


def attend(lecture: Lecture, log: Log, seed: int, guess_every: float) -> None:
    rng = random.Random(seed)
    time.sleep(rng.uniform(0, 3))  # students arrive over a few seconds
    try:
        student = Participant(lecture.hall.port, f"room={lecture.code}")
    except Exception as err:  # counted, then reported
        log.errors.append(f"joining: {type(err).__name__}: {err}")
        return
    log.saw(student)
    next_guess = time.monotonic() + rng.uniform(1, guess_every)
    while not lecture.over.is_set():
        time.sleep(max(0.0, min(student.next_due(), next_guess) - time.monotonic()))
        if time.monotonic() >= next_guess:
            log.last_guess = rng.choice(GUESSES[1:])
            log.timed(student, student.choose, "guess_home", log.last_guess)
            next_guess = time.monotonic() + rng.uniform(0.5, 1.5) * guess_every
        else:
            log.timed(student, student.tick)
    student.close()


def peak_mb(pid: int) -> float:
    """A process's resident memory at its highest (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise KeyError("VmHWM")


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its direct children (nginx's workers)."""
    return cpu_seconds(pid) + sum(cpu_seconds(child) for child in children_of(pid))


def run(students: int, replicas: int, moves: int, every: float, guess_every: float = 8.0) -> None:
    with LectureHall(replicas) as hall:
        for replica in hall.replicas:  # each process's first visitor pays its start-up
            with Visitor(replica.port) as visitor:
                visitor.open("")
        teacher = Participant(hall.port)
        lecture = Lecture(teacher.start_class(), hall)
        helpers = [p.pid for p in hall.processes]  # Redis and nginx
        replicas_ = [r.process.pid for r in hall.replicas]
        cpu_before = [cpu_seconds(p) for p in replicas_] + [tree_cpu(p) for p in helpers]
        logs = [Log() for _ in range(students)]
        threads = [
            threading.Thread(target=attend, args=(lecture, log, i + 1, guess_every))
            for i, log in enumerate(logs)
        ]
        teacher_log = Log()
        began, own_cpu = time.monotonic(), time.process_time()
        for thread in threads:
            thread.start()
        time.sleep(4)  # everyone has joined before the first move
        teach(lecture, teacher, teacher_log, moves, every)
        for thread in threads:
            thread.join()
        elapsed, own_cpu = time.monotonic() - began, time.process_time() - own_cpu
        cpu = [cpu_seconds(p) for p in replicas_] + [tree_cpu(p) for p in helpers]
        memory = [peak_mb(p) for p in replicas_]
        store = RedisRoomStore(hall.redis_url)
        counted = store.tally(lecture.code, question_id("guess_home", None))
        end = time.monotonic() + 2.5  # the teacher's line catches up with the last guesses
        while time.monotonic() < end:
            time.sleep(max(0.0, teacher.next_due() - time.monotonic()))
            teacher_log.timed(teacher, teacher.tick)
        teacher.close()

    answers = [log.last_guess for log in logs if log.last_guess != NOT_SURE]  # not an answer
    expected = dict.fromkeys(GUESSES[1:], 0) | Counter(answers)
    delays = [log.delay(sent, caption) for log in logs for sent, caption in lecture.moves]
    latencies = sorted(lat for log in [*logs, teacher_log] for lat in log.latencies)
    errors = [e for log in [*logs, teacher_log] for e in log.errors]
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"{date.today()} | {students} students + 1 teacher, {replicas} replica(s), "
        f"{moves} moves every {every:g} s | {elapsed:.0f} s"
    )
    print(
        f"requests: {len(latencies)} ({len(latencies) / elapsed:.1f}/s), errors: {len(errors)}"
        + (f" (first: {errors[0]})" if errors else "")
    )
    print(
        f"latency ms: p50 {statistics.median(latencies) * 1e3:.0f}, p95 {p95 * 1e3:.0f}, "
        f"max {latencies[-1] * 1e3:.0f} (target p95 < {TARGET_P95 * 1e3:.0f})"
    )
    print(
        f"teacher's move -> a student's page shows it, s: median {statistics.median(delays):.2f}, "
        f"max {max(delays):.2f}; within {FOLLOW_SECONDS:g} s: "
        f"{sum(d <= FOLLOW_SECONDS for d in delays)} of {len(delays)}"
    )
    print(
        f"votes: students' last guesses {expected}; counted in Redis: "
        f"{'the same' if counted == expected else counted}; answered, on the teacher's "
        f"line: {teacher_log.answered} of {len(answers)}"
    )
    used = [after - before for before, after in zip(cpu_before, cpu, strict=True)]
    print(
        "server CPU, % of one core: replicas "
        + ", ".join(f"{u / elapsed:.0%}" for u in used[:replicas])
        + f"; Redis {used[replicas] / elapsed:.0%}; nginx {used[replicas + 1] / elapsed:.0%}"
        + f"; this benchmark's own sessions {own_cpu / elapsed:.0%} (the 2 cores are shared)"
    )
    print("replica memory peak MB: " + ", ".join(f"{m:.0f}" for m in memory))

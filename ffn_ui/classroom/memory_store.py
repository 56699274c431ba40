"""Rooms in this server process, behind one lock: the store Streamlit Community Cloud
uses, where one process serves everyone. It keeps the promises of ffn_ui/classroom/store.py
(tests/ui/test_room_store.py runs the same tests on it and on the Redis store)."""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ffn_ui.classroom import store as rules


@dataclass
class Room:
    key: str
    address: str
    heard: float  # when the teacher was last heard from
    version: int = 0
    view: str = "{}"
    content: str = ""  # what the teacher's page draws, for students' class views
    questions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)  # question -> voter -> answer
    revealed: set[str] = field(default_factory=set)
    present: dict[str, tuple[float, bool]] = field(default_factory=dict)  # voter -> (when, follows)
    recent: dict[str, deque] = field(default_factory=dict)  # voter -> times of their votes
    origin: dict[str, str] = field(default_factory=dict)  # voter in `recent` -> their address


class MemoryRoomStore:
    """Rooms in this server process, behind one lock."""

    def __init__(
        self, durations: rules.Durations = rules.USUAL, clock: Callable[[], float] = time.time
    ):
        self.times, self.clock = durations, clock
        self.rooms: dict[str, Room] = {}
        self.lock = threading.Lock()

    def create(self, address: str = "") -> tuple[str, str]:
        address = address[: rules.MAX_ADDRESS_CHARS]
        with self.lock:
            now = self.clock()
            self.forget_ended(now)
            live = [r for r in self.rooms.values() if now - r.heard <= self.times.away]
            if address and sum(r.address == address for r in live) >= rules.ROOMS_PER_ADDRESS:
                raise rules.RoomError(rules.FULL_ADDRESS)
            if len(live) >= rules.MAX_ROOMS or len(self.rooms) >= rules.MAX_HELD:
                raise rules.RoomError(rules.full_server(self.times.away))
            code, key = rules.new_code(), secrets.token_urlsafe(rules.KEY_BYTES)
            self.rooms[code] = Room(key=key, address=address, heard=now)
            return code, key

    def forget_ended(self, now: float) -> None:
        for code in [c for c, r in self.rooms.items() if now - r.heard > self.times.gone]:
            del self.rooms[code]

    def room(self, code: str, key: str | None = None) -> Room:
        """The held room, checking the teacher's key when one is needed (and then noting
        that the teacher was heard from)."""
        rules.check_code(code)
        now = self.clock()
        self.forget_ended(now)
        room = self.rooms.get(code)
        if room is None:
            raise rules.RoomGoneError(rules.GONE)
        if key is not None:
            if not isinstance(key, str) or not hmac.compare_digest(room.key, key):
                raise rules.NotTeacherError(rules.NOT_TEACHER)
            room.heard = now
        return room

    def exists(self, code: str) -> bool:
        try:
            with self.lock:
                self.room(code)
            return True
        except rules.RoomGoneError:
            return False

    def show(self, code: str, key: str, view: dict | None = None) -> rules.Seen:
        text = None if view is None else rules.view_json(view)
        with self.lock:
            room = self.room(code, key)
            if text is not None and text != room.view:
                room.version, room.view = room.version + 1, text
            now = self.clock()
            here = [f for when, f in room.present.values() if now - when <= self.times.present]
            return rules.Seen(room.version, len(here), sum(here), frozenset(room.revealed))

    def look(self, code: str, who: str = "", following: bool = True) -> rules.Look:
        with self.lock:
            room = self.room(code)
            if who:
                rules.check_voter(who)
                now = self.clock()
                present = self.times.present
                for gone in [v for v, (t, _) in room.present.items() if now - t > present]:
                    del room.present[gone]
                if who in room.present or len(room.present) < rules.MAX_VOTERS:
                    room.present[who] = (now, bool(following))
            return rules.Look(room.version, json.loads(room.view), frozenset(room.revealed))

    def share(self, code: str, key: str, text: str) -> None:
        rules.check_content(text)
        with self.lock:
            self.room(code, key).content = text

    def content(self, code: str) -> str:
        with self.lock:
            return self.room(code).content

    def view(self, code: str) -> tuple[int, dict]:
        look = self.look(code)
        return look.version, look.view

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        rules.check_question(question, answers)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions and len(room.questions) >= rules.MAX_QUESTIONS:
                raise rules.RoomError(f"A class asks at most {rules.MAX_QUESTIONS} questions.")
            room.questions[question] = tuple(answers)
            room.votes.setdefault(question, {})

    def vote(
        self, code: str, question: str, voter: str, answer: str | None, address: str = ""
    ) -> None:
        """The voter's answer to the question; None takes their answer back. `address`
        is where the voter's browser connects from, as far as the server can tell."""
        rules.check_question(question, [] if answer is None else [answer])
        rules.check_voter(voter)
        address = address[: rules.MAX_ADDRESS_CHARS]
        with self.lock:
            room = self.room(code)
            if question not in room.questions or (
                answer is not None and answer not in room.questions[question]
            ):
                raise rules.RoomError(rules.UNKNOWN)
            if question in room.revealed:
                raise rules.RoomError(rules.CLOSED)
            now = self.clock()
            rate = self.times.rate
            for who in [w for w, t in room.recent.items() if now - t[-1] > rate]:
                del room.recent[who]  # nobody is kept who has not voted within the window
                room.origin.pop(who, None)
            if voter not in room.recent and len(room.recent) >= rules.MAX_VOTERS:
                raise rules.RoomError(rules.FULL_ROOM)
            if (
                address
                and voter not in room.recent
                and sum(a == address for a in room.origin.values()) >= rules.VOTERS_PER_ADDRESS
            ):
                raise rules.RoomError(rules.CROWD)
            recent = room.recent.get(voter, deque())
            while recent and now - recent[0] > rate:
                recent.popleft()
            if len(recent) >= rules.VOTES_PER_MINUTE:
                raise rules.RoomError(rules.RATE)
            votes = room.votes[question]
            if voter not in votes and answer is not None and len(votes) >= rules.MAX_VOTERS:
                raise rules.RoomError(rules.FULL_QUESTION)
            recent.append(now)  # kept only once the vote is taken: never an empty record
            room.recent[voter] = recent
            room.origin.setdefault(voter, address)
            if answer is None:
                votes.pop(voter, None)
            else:
                votes[voter] = answer

    def tally(self, code: str, question: str) -> dict[str, int]:
        with self.lock:
            room = self.room(code)
            counts = dict.fromkeys(room.questions.get(question, ()), 0)
            for answer in room.votes.get(question, {}).values():
                counts[answer] += 1
            return counts

    def reveal(self, code: str, key: str, question: str) -> None:
        rules.check_question(question)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions:
                raise rules.RoomError("The class has not been asked that question.")
            room.revealed.add(question)

    def end(self, code: str, key: str) -> None:
        with self.lock:
            self.room(code, key)
            del self.rooms[code]

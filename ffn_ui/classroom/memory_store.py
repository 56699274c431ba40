"""Rooms in this server process, behind one lock: the store Streamlit Community Cloud
uses, where one process serves everyone. It keeps the promises of ffn_ui/classroom/store.py
(tests/ui/test_room_store.py runs the same tests on it and on the Redis store).

Its memory is counted as it grows (`Room.weight`: the texts' characters, and ENTRY_BYTES
for each vote, student and question) and held under MAX_STORE_BYTES: what would pass it
first ends the rooms no student has used for a while, then is refused."""

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
    used: float  # when it was made, or a student last polled it
    version: int = 0
    view: str = "{}"
    content: str = ""  # what the teacher's page draws, for students' class views
    questions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)  # question -> voter -> answer
    revealed: set[str] = field(default_factory=set)
    present: dict[str, tuple[float, bool]] = field(default_factory=dict)  # voter -> (when, follows)
    recent: dict[str, deque] = field(default_factory=dict)  # voter -> times of their votes
    origin: dict[str, str] = field(default_factory=dict)  # voter in `recent` -> their address

    def weight(self) -> int:
        """What the room holds, as MAX_STORE_BYTES counts it."""
        entries = len(self.questions) + len(self.present) + len(self.recent)
        entries += sum(len(votes) for votes in self.votes.values())
        return len(self.view) + len(self.content) + rules.ENTRY_BYTES * entries


class MemoryRoomStore:
    """Rooms in this server process, behind one lock."""

    def __init__(
        self, durations: rules.Durations = rules.USUAL, clock: Callable[[], float] = time.time
    ):
        self.times, self.clock = durations, clock
        self.rooms: dict[str, Room] = {}
        self.weights: dict[str, int] = {}  # each room's weight when it last changed
        self.held = 0  # their sum
        self.lock = threading.Lock()

    def create(self, address: str = "") -> tuple[str, str]:
        address = address[: rules.MAX_ADDRESS_CHARS]
        with self.lock:
            now = self.clock()
            self.forget_ended(now)
            live = [c for c, r in self.rooms.items() if now - r.heard <= self.times.away]
            if address:
                mine = [c for c in live if self.rooms[c].address == address]
                if len(mine) >= rules.ROOMS_PER_ADDRESS and not self.end_idle(mine, now):
                    raise rules.RoomError(rules.full_address(self.times.away))
            if len(live) >= rules.MAX_ROOMS and not self.end_idle(live, now):
                raise rules.RoomError(rules.full_server(self.times.away))
            if len(self.rooms) >= rules.MAX_HELD and not self.end_idle(list(self.rooms), now):
                raise rules.RoomError(rules.full_server(self.times.away))
            self.make_way(rules.ENTRY_BYTES, now)
            code, key = rules.new_code(), secrets.token_urlsafe(rules.KEY_BYTES)
            self.rooms[code] = Room(key=key, address=address, heard=now, used=now)
            self.weigh(code)
            return code, key

    def forget_ended(self, now: float) -> None:
        for code in [c for c, r in self.rooms.items() if now - r.heard > self.times.gone]:
            self.forget(code)

    def forget(self, code: str) -> None:
        del self.rooms[code]
        self.held -= self.weights.pop(code, 0)

    def weigh(self, code: str) -> None:
        """Count the room's weight again, after a change."""
        weight = self.rooms[code].weight()
        self.held += weight - self.weights.get(code, 0)
        self.weights[code] = weight

    def end_idle(self, codes: list[str], now: float) -> bool:
        """End the room among `codes` that students have left alone longest, if none has
        used it for the idle time; whether one ended."""
        idle = [c for c in codes if now - self.rooms[c].used > self.times.idle]
        if not idle:
            return False
        self.forget(min(idle, key=lambda c: self.rooms[c].used))
        return True

    def make_way(self, more: int, now: float, keep: str = "") -> None:
        """Make room for `more` counted bytes, ending idle rooms (never `keep`) if need be;
        RoomError when that is not enough."""
        while self.held + more > rules.MAX_STORE_BYTES:
            if not self.end_idle([c for c in self.rooms if c != keep], now):
                raise rules.RoomError(rules.FULL_STORE)

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
            now = self.clock()
            if text is not None and text != room.view:
                self.make_way(len(text) - len(room.view), now, keep=code)
                room.version, room.view = room.version + 1, text
                self.weigh(code)
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
                room.used = now
                counted = who in room.present or len(room.present) < rules.MAX_STUDENTS
                if counted and who not in room.present:
                    try:
                        self.make_way(rules.ENTRY_BYTES, now, keep=code)
                    except rules.RoomError:
                        counted = False  # the student still sees the class, uncounted
                if counted:
                    room.present[who] = (now, bool(following))
                self.weigh(code)
            return rules.Look(room.version, json.loads(room.view), frozenset(room.revealed))

    def share(self, code: str, key: str, text: str) -> None:
        rules.check_content(text)
        with self.lock:
            room = self.room(code, key)
            self.make_way(len(text) - len(room.content), self.clock(), keep=code)
            room.content = text
            self.weigh(code)

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
            if question not in room.questions:
                if len(room.questions) >= rules.MAX_QUESTIONS:
                    raise rules.RoomError(f"A class asks at most {rules.MAX_QUESTIONS} questions.")
                self.make_way(rules.ENTRY_BYTES, self.clock(), keep=code)
            room.questions[question] = tuple(answers)
            room.votes.setdefault(question, {})
            self.weigh(code)

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
            if voter not in room.recent and len(room.recent) >= rules.MAX_STUDENTS:
                raise rules.RoomError(rules.full_room())
            if (
                address
                and voter not in room.recent
                and sum(a == address for a in room.origin.values()) >= rules.VOTERS_PER_ADDRESS
            ):
                raise rules.RoomError(rules.crowd())
            recent = room.recent.get(voter, deque())
            while recent and now - recent[0] > rate:
                recent.popleft()
            if len(recent) >= rules.VOTES_PER_MINUTE:
                raise rules.RoomError(rules.RATE)
            votes = room.votes[question]
            if voter not in votes and answer is not None and len(votes) >= rules.MAX_VOTERS:
                raise rules.RoomError(rules.full_question())
            self.make_way(2 * rules.ENTRY_BYTES, now, keep=code)  # the vote, and its voter
            recent.append(now)  # kept only once the vote is taken: never an empty record
            room.recent[voter] = recent
            room.origin.setdefault(voter, address)
            if answer is None:
                votes.pop(voter, None)
            else:
                votes[voter] = answer
            self.weigh(code)

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
            self.forget(code)

"""Where a class lives: its room. A teacher's session creates one and shows the room what
to look at; students' sessions read it and vote on its questions.

    code, key = store.create()                     # the join code, and the teacher's key
    store.show(code, key, {"page": "Neurons", "d_ff": "8"})
    version, view = store.view(code)               # what every follower loads
    version, view, revealed = store.look(code)     # and the question revealed, at once
    store.ask(code, key, "guess_rows:3f2a", ("not sure yet", "yes, exactly", "no"))
    store.vote(code, "guess_rows:3f2a", voter, "no")
    store.tally(code, "guess_rows:3f2a")  # {"not sure yet": 0, "yes, exactly": 0, "no": 1}
    store.end(code, key)                           # the class is over

Two stores keep the same promises (tests/ui/test_room_store.py runs one set of tests on
both): MemoryRoomStore, in this server process (Streamlit Community Cloud runs one), and
RedisRoomStore, when FFN_REDIS_URL names a Redis that several server processes share.

Only the teacher's key changes what a room shows or asks, or ends it. A vote is one per
voter and question (a new vote replaces the voter's last), only for a question the teacher
asked and one of its answers, and at most VOTES_PER_MINUTE from one voter. A room ends when
its teacher ends it, or ROOM_SECONDS after its last activity. Every size is capped, so no
visitor can grow the server's memory without bound.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

ROOM_SECONDS = 3 * 3600  # a room ends 3 hours after its last activity
MAX_ROOMS = 200  # rooms a store holds at once
CODE_BYTES = 12  # 96 bits of randomness in a room's code (16 URL-safe characters)
KEY_BYTES = 24  # 192 bits in the teacher's key
MAX_VIEW_CHARS = 4000  # the teacher's page and settings, as JSON
MAX_QUESTION_CHARS = 120  # a question's id
MAX_ANSWER_CHARS = 80  # one answer
MAX_ANSWERS = 12  # answers of one question
MAX_QUESTIONS = 100  # questions one room has asked
MAX_VOTERS = 1000  # voters counted on one question, and voters one room keeps track of
MAX_VOTER_CHARS = 64  # a voter's id (a session's, made by the server)
VOTES_PER_MINUTE = 20  # from one voter in one room
RATE_SECONDS = 60  # the window VOTES_PER_MINUTE counts in
CODE_PATTERN = re.compile(r"[A-Za-z0-9_-]{16}")
ROOMS = "ffn:rooms"  # Redis: every live room's code, scored by when it ends


class RoomError(ValueError):
    """A request the room does not take; the message says why, in the user's words."""


class NotTeacherError(RoomError):
    """A change to the room without its teacher's key."""


class RoomGoneError(RoomError):
    """An unknown, expired or malformed room code."""


class ClassConnectionError(RuntimeError):
    """The store cannot be reached (Redis went away); the class waits for it to return."""


def new_code() -> str:
    return secrets.token_urlsafe(CODE_BYTES)


def check_code(code: str) -> None:
    if not isinstance(code, str) or not CODE_PATTERN.fullmatch(code):
        raise RoomGoneError("That class code is not one this app makes.")


def check_question(question: str, answers: Sequence[str] = ()) -> None:
    if not isinstance(question, str) or not 0 < len(question) <= MAX_QUESTION_CHARS:
        raise RoomError(f"A question's name has 1 to {MAX_QUESTION_CHARS} characters.")
    if len(answers) > MAX_ANSWERS or any(
        not isinstance(a, str) or not 0 < len(a) <= MAX_ANSWER_CHARS for a in answers
    ):
        raise RoomError(
            f"A question has at most {MAX_ANSWERS} answers, of 1 to {MAX_ANSWER_CHARS} "
            "characters each."
        )


def check_voter(voter: str) -> None:
    if not isinstance(voter, str) or not 0 < len(voter) <= MAX_VOTER_CHARS:
        raise RoomError(f"A voter's id has 1 to {MAX_VOTER_CHARS} characters.")


def view_json(view: dict[str, str]) -> str:
    text = json.dumps(view, sort_keys=True)
    if len(text) > MAX_VIEW_CHARS:
        raise RoomError(f"The page's settings are longer than {MAX_VIEW_CHARS:,} characters.")
    return text


@dataclass
class Room:
    key: str
    active: float  # when anything last happened
    version: int = 0
    view: str = "{}"
    questions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)  # question -> voter -> answer
    revealed: str = ""
    recent: dict[str, deque] = field(default_factory=dict)  # voter -> times of their votes


class Reads:
    """What both stores read through their `look`: the version, view and revealed
    question, in one lock or one round trip (a student's page asks every second)."""

    def look(self, code: str) -> tuple[int, dict[str, str], str]:
        raise NotImplementedError

    def view(self, code: str) -> tuple[int, dict[str, str]]:
        version, view, _ = self.look(code)
        return version, view

    def revealed(self, code: str) -> str:
        return self.look(code)[2]


class MemoryRoomStore(Reads):
    """Rooms in this server process, behind one lock."""

    def __init__(
        self,
        room_seconds: float = ROOM_SECONDS,
        rate_seconds: float = RATE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.room_seconds, self.rate_seconds, self.clock = room_seconds, rate_seconds, clock
        self.rooms: dict[str, Room] = {}
        self.lock = threading.Lock()

    def create(self) -> tuple[str, str]:
        with self.lock:
            self.forget_ended()
            if len(self.rooms) >= MAX_ROOMS:
                raise RoomError("This server holds as many classes as it can; try again later.")
            code, key = new_code(), secrets.token_urlsafe(KEY_BYTES)
            self.rooms[code] = Room(key=key, active=self.clock())
            return code, key

    def forget_ended(self) -> None:
        now = self.clock()
        for code in [c for c, r in self.rooms.items() if now - r.active > self.room_seconds]:
            del self.rooms[code]

    def room(self, code: str, key: str | None = None) -> Room:
        """The live room (touched), checking the teacher's key when one is needed."""
        check_code(code)
        self.forget_ended()
        room = self.rooms.get(code)
        if room is None:
            raise RoomGoneError("That class has ended, or its code is wrong.")
        if key is not None and not hmac.compare_digest(room.key, key):
            raise NotTeacherError("Only the teacher's session can change what the class sees.")
        room.active = self.clock()
        return room

    def exists(self, code: str) -> bool:
        try:
            with self.lock:
                self.room(code)
            return True
        except RoomGoneError:
            return False

    def show(self, code: str, key: str, view: dict[str, str]) -> int:
        text = view_json(view)
        with self.lock:
            room = self.room(code, key)
            if text != room.view:
                room.version, room.view = room.version + 1, text
            return room.version

    def look(self, code: str) -> tuple[int, dict[str, str], str]:
        with self.lock:
            room = self.room(code)
            return room.version, json.loads(room.view), room.revealed

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        check_question(question, answers)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions and len(room.questions) >= MAX_QUESTIONS:
                raise RoomError(f"A class asks at most {MAX_QUESTIONS} questions.")
            room.questions[question] = tuple(answers)
            room.votes.setdefault(question, {})

    def vote(self, code: str, question: str, voter: str, answer: str) -> None:
        check_question(question, [answer])
        check_voter(voter)
        with self.lock:
            room = self.room(code)
            if answer not in room.questions.get(question, ()):
                raise RoomError(
                    "The teacher has not asked that question, or that is not one of its answers."
                )
            now = self.clock()
            for who in [
                w for w, times in room.recent.items() if now - times[-1] > self.rate_seconds
            ]:
                del room.recent[who]  # nobody is kept who has not voted within the window
            if voter not in room.recent and len(room.recent) >= MAX_VOTERS:
                raise RoomError(f"This class has {MAX_VOTERS:,} voters, its most.")
            recent = room.recent.setdefault(voter, deque())
            while recent and now - recent[0] > self.rate_seconds:
                recent.popleft()
            if len(recent) >= VOTES_PER_MINUTE:
                raise RoomError("Too many votes in a minute; wait a moment, then vote again.")
            votes = room.votes[question]
            if voter not in votes and len(votes) >= MAX_VOTERS:
                raise RoomError(f"This question has counted {MAX_VOTERS:,} voters, its most.")
            recent.append(now)
            votes[voter] = answer

    def tally(self, code: str, question: str) -> dict[str, int]:
        with self.lock:
            room = self.room(code)
            counts = dict.fromkeys(room.questions.get(question, ()), 0)
            for answer in room.votes.get(question, {}).values():
                counts[answer] += 1
            return counts

    def reveal(self, code: str, key: str, question: str) -> None:
        check_question(question)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions:
                raise RoomError("The class has not been asked that question.")
            room.revealed = question

    def end(self, code: str, key: str) -> None:
        with self.lock:
            self.room(code, key)
            del self.rooms[code]


# One vote, atomically: the room is live, the question was asked and has that answer, the
# voter is under the rate and the question under its voters' cap; then the vote is set.
# KEYS: room, questions, votes, rate. ARGV: question, voter, answer, room and rate seconds,
# votes per window, most voters.
VOTE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local answers = redis.call('HGET', KEYS[2], ARGV[1])
if not answers then return 'unknown' end
local known = false
for _, answer in ipairs(cjson.decode(answers)) do
    if answer == ARGV[3] then known = true end
end
if not known then return 'unknown' end
local n = redis.call('INCR', KEYS[4])
if n == 1 then redis.call('EXPIRE', KEYS[4], ARGV[5]) end
if n > tonumber(ARGV[6]) then return 'rate' end
if redis.call('HEXISTS', KEYS[3], ARGV[2]) == 0
    and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[7]) then return 'full' end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return 'ok'
"""

# A new room, unless MAX_ROOMS are live. KEYS: the rooms' index (code -> when it ends),
# the room. ARGV: now, room seconds, most rooms, code, teacher's key.
CREATE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('ZADD', KEYS[1], ARGV[1] + ARGV[2], ARGV[4])
redis.call('HSET', KEYS[2], 'key', ARGV[5], 'version', 0, 'view', '{}', 'revealed', '')
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 'ok'
"""

# What the room shows, atomically: a new view bumps the version. KEYS: room. ARGV: view,
# room seconds. (The teacher's key is checked before, in Python, in constant time.)
SHOW_SCRIPT = """
if redis.call('HGET', KEYS[1], 'view') ~= ARGV[1] then
    redis.call('HSET', KEYS[1], 'view', ARGV[1])
    redis.call('HINCRBY', KEYS[1], 'version', 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return tonumber(redis.call('HGET', KEYS[1], 'version'))
"""

VOTE_REFUSALS = {  # what the vote script answers -> what the voter is told
    "gone": (RoomGoneError, "That class has ended, or its code is wrong."),
    "unknown": (
        RoomError,
        "The teacher has not asked that question, or that is not one of its answers.",
    ),
    "rate": (RoomError, "Too many votes in a minute; wait a moment, then vote again."),
    "full": (RoomError, f"This question has counted {MAX_VOTERS:,} voters, its most."),
}


class RedisRoomStore(Reads):
    """Rooms in Redis, shared by every server process that reaches it. A room's keys start
    with ffn:room:<code>: the room itself, which expires ROOM_SECONDS after anyone last
    used it; its questions and each question's votes, ROOM_SECONDS after the last question
    or vote; each voter's rate, RATE_SECONDS after their first vote in the window. An
    index, ffn:rooms, holds each live room's code and when it ends, so that at most
    MAX_ROOMS live at once; a room's end moves on whenever its teacher or a student uses it."""

    def __init__(
        self, url: str, room_seconds: int = ROOM_SECONDS, rate_seconds: int = RATE_SECONDS
    ):
        import redis  # only a deployment with FFN_REDIS_URL needs it

        self.redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2
        )
        self.lost = (redis.ConnectionError, redis.TimeoutError)
        self.room_seconds, self.rate_seconds = int(room_seconds), int(rate_seconds)
        self.create_script = self.redis.register_script(CREATE_SCRIPT)
        self.vote_script = self.redis.register_script(VOTE_SCRIPT)
        self.show_script = self.redis.register_script(SHOW_SCRIPT)

    def reaching(self, call: Callable, *args):
        """call(*args), with Redis going away said as the class's connection being lost."""
        try:
            return call(*args)
        except self.lost as err:
            raise ClassConnectionError("Class connection lost; the class waits for it.") from err

    @staticmethod
    def keys(code: str, question: str = "", voter: str = "") -> list[str]:
        room = f"ffn:room:{code}"
        return [room, f"{room}:questions", f"{room}:votes:{question}", f"{room}:rate:{voter}"]

    def create(self) -> tuple[str, str]:
        code, key = new_code(), secrets.token_urlsafe(KEY_BYTES)
        keys = [ROOMS, self.keys(code)[0]]
        made = self.reaching(
            self.create_script, keys, [time.time(), self.room_seconds, MAX_ROOMS, code, key]
        )
        if made == "full":
            raise RoomError("This server holds as many classes as it can; try again later.")
        return code, key

    def ended(self, code: str) -> None:
        """Raises RoomGoneError, once the code is out of the rooms' index."""
        self.reaching(self.redis.zrem, ROOMS, code)
        raise RoomGoneError("That class has ended, or its code is wrong.")

    def touching(self, code: str, pipe) -> None:
        """Add to `pipe`: the room's end moves on in the rooms' index."""
        pipe.zadd(ROOMS, {code: time.time() + self.room_seconds}, xx=True)
        pipe.expire(ROOMS, self.room_seconds)

    def teacher(self, code: str, key: str) -> None:
        """Raises unless the room is live and `key` is its teacher's."""
        check_code(code)
        with self.redis.pipeline() as pipe:
            pipe.hget(self.keys(code)[0], "key")
            self.touching(code, pipe)
            held, *_ = self.reaching(pipe.execute)
        if held is None:
            self.ended(code)
        if not hmac.compare_digest(held, key):
            raise NotTeacherError("Only the teacher's session can change what the class sees.")

    def fields(self, code: str, *names: str) -> list[str]:
        """The room's fields, touching it; raises if it has ended."""
        check_code(code)
        room = self.keys(code)[0]
        with self.redis.pipeline() as pipe:
            pipe.hmget(room, names).expire(room, self.room_seconds)
            self.touching(code, pipe)
            values, live, *_ = self.reaching(pipe.execute)
        if not live:
            self.ended(code)
        return values

    def exists(self, code: str) -> bool:
        try:
            self.fields(code, "version")
            return True
        except RoomGoneError:
            return False

    def show(self, code: str, key: str, view: dict[str, str]) -> int:
        text = view_json(view)
        self.teacher(code, key)
        return self.reaching(self.show_script, self.keys(code)[:1], [text, self.room_seconds])

    def look(self, code: str) -> tuple[int, dict[str, str], str]:
        version, view, revealed = self.fields(code, "version", "view", "revealed")
        return int(version), json.loads(view), revealed

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        check_question(question, answers)
        self.teacher(code, key)
        room, questions, votes, _ = self.keys(code, question)
        asked = self.reaching(self.redis.hlen, questions)
        if asked >= MAX_QUESTIONS and not self.reaching(self.redis.hexists, questions, question):
            raise RoomError(f"A class asks at most {MAX_QUESTIONS} questions.")
        with self.redis.pipeline() as pipe:
            pipe.hset(questions, question, json.dumps(list(answers)))
            for name in (room, questions, votes):
                pipe.expire(name, self.room_seconds)
            self.reaching(pipe.execute)

    def vote(self, code: str, question: str, voter: str, answer: str) -> None:
        check_code(code)
        check_question(question, [answer])
        check_voter(voter)
        limits = [self.room_seconds, self.rate_seconds, VOTES_PER_MINUTE, MAX_VOTERS]
        result = self.reaching(
            self.vote_script, self.keys(code, question, voter), [question, voter, answer, *limits]
        )
        if result != "ok":
            error, message = VOTE_REFUSALS[result]
            raise error(message)

    def tally(self, code: str, question: str) -> dict[str, int]:
        self.fields(code, "version")
        _, questions, votes, _ = self.keys(code, question)
        with self.redis.pipeline() as pipe:
            pipe.hget(questions, question).hvals(votes)
            answers, cast = self.reaching(pipe.execute)
        counts = dict.fromkeys(json.loads(answers) if answers else [], 0)
        for answer in cast:
            counts[answer] = counts.get(answer, 0) + 1
        return counts

    def reveal(self, code: str, key: str, question: str) -> None:
        check_question(question)
        self.teacher(code, key)
        room, questions, _, _ = self.keys(code)
        if not self.reaching(self.redis.hexists, questions, question):
            raise RoomError("The class has not been asked that question.")
        self.reaching(self.redis.hset, room, "revealed", question)

    def end(self, code: str, key: str) -> None:
        self.teacher(code, key)
        pattern = f"{self.keys(code)[0]}*"  # the room and its questions, votes and rates
        names = self.reaching(lambda: list(self.redis.scan_iter(match=pattern, count=1000)))
        with self.redis.pipeline() as pipe:
            pipe.delete(*names).zrem(ROOMS, code)
            self.reaching(pipe.execute)

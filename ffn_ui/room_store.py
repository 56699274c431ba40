"""Where a class lives: its room. A teacher's session creates one and shows the room what
to look at; students' sessions read it, and answer its questions.

    code, key = store.create("203.0.113.7")         # the join code, the teacher's key
    seen = store.show(code, key, {"page": "Neurons", "settings": {"d_ff": 8}})
    seen.version, seen.students, seen.following    # what the teacher's line says
    look = store.look(code, "voter-id", following=True)  # a student's poll, every second
    look.version, look.view, look.revealed
    store.ask(code, key, "guess_rows:3f2a", ("yes, exactly", "no"))
    store.vote(code, "guess_rows:3f2a", "voter-id", "no", "198.51.100.4")
    store.tally(code, "guess_rows:3f2a")           # {"yes, exactly": 0, "no": 1}
    store.reveal(code, key, "guess_rows:3f2a")     # answers close; every page shows it
    store.end(code, key)                           # the class is over

Two stores keep the same promises (tests/ui/test_room_store.py runs one set of tests on
both): MemoryRoomStore, in this server process (Streamlit Community Cloud runs one), and
RedisRoomStore, when FFN_REDIS_URL names a Redis that several server processes share.

The rules, the same in both:
- A code is 12 characters of Crockford's base32 (60 random bits), written in three groups
  for reading aloud: `k7m2-x9qp-4hzt`. `read_code` takes it typed in any case, with or
  without dashes and spaces.
- Only the teacher's key changes what a room shows or asks, reveals, or ends it.
- A room lives while its teacher's page is open: it ends TEACHER_GONE_SECONDS after the
  teacher was last heard from (their page publishes twice a second), or when they end it.
  Students' polls do not keep it alive.
- At most MAX_ROOMS rooms whose teacher was heard within TEACHER_AWAY_SECONDS are live at
  once, at most ROOMS_PER_ADDRESS of them started from one address, and at most
  MAX_HELD rooms are held in all.
- A student counts as present for PRESENT_SECONDS after their last poll.
- A vote is one per voter and question (a new one replaces the last), only for a question
  the teacher asked, only one of its answers, only until the teacher reveals it, and at
  most VOTES_PER_MINUTE from one voter; at most VOTERS_PER_ADDRESS voters vote within a
  minute from one address (a script that invents voters is slowed, a class behind one
  school address is not). Every size is capped, so no visitor can grow the server's
  memory without bound.
"""

from __future__ import annotations

import hmac
import json
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford's base32: no i, l, o or u
CODE_GROUPS = 3  # of 4 characters: 12 × 5 = 60 random bits
CODE_PATTERN = re.compile(rf"[{CODE_ALPHABET}]{{4}}(-[{CODE_ALPHABET}]{{4}}){{{CODE_GROUPS - 1}}}")
LOOK_ALIKES = str.maketrans("ilo", "110")  # Crockford: I and L are read as 1, O as 0
KEY_BYTES = 24  # 192 bits in the teacher's key
TEACHER_GONE_SECONDS = 600  # a room ends 10 minutes after its teacher was last heard from
TEACHER_AWAY_SECONDS = 90  # a room counts against MAX_ROOMS while its teacher is this recent
PRESENT_SECONDS = 5.0  # a student is in the room this long after their last poll
ROOM_SECONDS = 3 * 3600  # how long a room's questions and votes are kept at most
MAX_ROOMS = 200  # rooms live at once
ROOMS_PER_ADDRESS = 5  # live rooms started from one address
MAX_HELD = 2 * MAX_ROOMS  # rooms held at once, live or waiting to end
MAX_VIEW_CHARS = 16_000  # the teacher's page and settings, as JSON (edited weights included)
MAX_QUESTION_CHARS = 120  # a question's id
MAX_ANSWER_CHARS = 80  # one answer
MAX_ANSWERS = 12  # answers of one question
MAX_QUESTIONS = 100  # questions one room has asked
MAX_VOTERS = 1000  # voters counted on one question, and students one room keeps track of
MAX_VOTER_CHARS = 64  # a voter's id (a session's, made by the server)
MAX_ADDRESS_CHARS = 64  # an address, as the server saw it
VOTES_PER_MINUTE = 20  # from one voter in one room
VOTERS_PER_ADDRESS = 150  # voters voting within RATE_SECONDS from one address: a lecture fits
RATE_SECONDS = 60  # the window VOTES_PER_MINUTE and VOTERS_PER_ADDRESS count in
ROOMS = "ffn:rooms"  # Redis: every held room's code, scored by when its teacher was heard


class RoomError(ValueError):
    """A request the room does not take; the message says why, in the user's words."""


class NotTeacherError(RoomError):
    """A change to the room without its teacher's key."""


class RoomGoneError(RoomError):
    """An unknown, ended or malformed room code."""


class ClassConnectionError(RuntimeError):
    """The store cannot be used (Redis went away, or is full); the class waits for it."""


LOST = "Class connection lost; the class waits for it."
GONE = "That class has ended, or its code is wrong."
NOT_TEACHER = "Only the teacher's session can change what the class sees."
UNKNOWN = "The teacher has not asked that question, or that is not one of its answers."
CLOSED = "The teacher has revealed this answer; answers to it are closed."
RATE = "Too many votes in a minute; wait a moment, then vote again."
CROWD = (
    f"{VOTERS_PER_ADDRESS} students from your network voted in the last minute, its most; "
    "wait a moment, then vote again."
)
FULL_QUESTION = f"This question has counted {MAX_VOTERS:,} voters, its most."
FULL_ROOM = f"This class keeps track of {MAX_VOTERS:,} students, its most."


def full_server(seconds: float) -> str:
    """The refusal of a new room, and when one will be free at the latest."""
    return (
        "This server holds as many classes as it can. A room is free as soon as a teacher "
        f"ends a class, or within {max(1, round(seconds / 60))} min of a teacher's page closing."
    )


FULL_ADDRESS = (
    f"Your address already runs {ROOMS_PER_ADDRESS} classes, its most. End one of them (its "
    f"page's “End the class”), or close its page: its room frees within "
    f"{round(TEACHER_AWAY_SECONDS / 60 + 0.5)} min."
)


def new_code() -> str:
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(4 * CODE_GROUPS))
    return "-".join(chars[k : k + 4] for k in range(0, len(chars), 4))


def read_code(typed: object) -> str | None:
    """A class code as a person types or reads it, in its one written form, or None.

    Any case, with or without dashes and spaces; I and L read as 1 and O as 0."""
    if not isinstance(typed, str) or len(typed) > 40:
        return None
    chars = "".join(typed.lower().split()).replace("-", "").translate(LOOK_ALIKES)
    if len(chars) != 4 * CODE_GROUPS or any(c not in CODE_ALPHABET for c in chars):
        return None
    return "-".join(chars[k : k + 4] for k in range(0, len(chars), 4))


def check_code(code: object) -> None:
    if not isinstance(code, str) or not CODE_PATTERN.fullmatch(code):
        raise RoomGoneError(GONE)


def check_question(question: object, answers: Sequence[object] = ()) -> None:
    if not isinstance(question, str) or not 0 < len(question) <= MAX_QUESTION_CHARS:
        raise RoomError(f"A question's name has 1 to {MAX_QUESTION_CHARS} characters.")
    if len(answers) > MAX_ANSWERS or any(
        not isinstance(a, str) or not 0 < len(a) <= MAX_ANSWER_CHARS for a in answers
    ):
        raise RoomError(
            f"A question has at most {MAX_ANSWERS} answers, of 1 to {MAX_ANSWER_CHARS} "
            "characters each."
        )


def check_voter(voter: object) -> None:
    if not isinstance(voter, str) or not 0 < len(voter) <= MAX_VOTER_CHARS:
        raise RoomError(f"A voter's id has 1 to {MAX_VOTER_CHARS} characters.")


def view_json(view: dict) -> str:
    text = json.dumps(view, sort_keys=True)
    if len(text) > MAX_VIEW_CHARS:
        raise RoomError(f"The page's settings are longer than {MAX_VIEW_CHARS:,} characters.")
    return text


@dataclass(frozen=True)
class Durations:
    """How long things last in a room, in seconds (tests shorten them)."""

    gone: float = TEACHER_GONE_SECONDS  # after the teacher was last heard from, the room ends
    away: float = TEACHER_AWAY_SECONDS  # within this, the room counts against MAX_ROOMS
    present: float = PRESENT_SECONDS  # after a student's last poll, they still count
    rate: float = RATE_SECONDS  # the window VOTES_PER_MINUTE counts in
    votes: float = ROOM_SECONDS  # Redis keeps a question's votes this long after the last


@dataclass(frozen=True)
class Look:
    """What a student's page reads from the room: the teacher's page and settings (a new
    version when they change) and the questions the teacher has revealed."""

    version: int
    view: dict
    revealed: frozenset[str]


@dataclass(frozen=True)
class Seen:
    """What the teacher's page reads back when it publishes: the room's version, and how
    many students are in the room now, and how many of them follow."""

    version: int
    students: int
    following: int
    revealed: frozenset[str]


@dataclass
class Room:
    key: str
    address: str
    heard: float  # when the teacher was last heard from
    version: int = 0
    view: str = "{}"
    questions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    votes: dict[str, dict[str, str]] = field(default_factory=dict)  # question -> voter -> answer
    revealed: set[str] = field(default_factory=set)
    present: dict[str, tuple[float, bool]] = field(default_factory=dict)  # voter -> (when, follows)
    recent: dict[str, deque] = field(default_factory=dict)  # voter -> times of their votes
    origin: dict[str, str] = field(default_factory=dict)  # voter in `recent` -> their address


class MemoryRoomStore:
    """Rooms in this server process, behind one lock."""

    def __init__(self, durations: Durations = Durations(), clock: Callable[[], float] = time.time):
        self.times, self.clock = durations, clock
        self.rooms: dict[str, Room] = {}
        self.lock = threading.Lock()

    def create(self, address: str = "") -> tuple[str, str]:
        address = address[:MAX_ADDRESS_CHARS]
        with self.lock:
            now = self.clock()
            self.forget_ended(now)
            live = [r for r in self.rooms.values() if now - r.heard <= self.times.away]
            if address and sum(r.address == address for r in live) >= ROOMS_PER_ADDRESS:
                raise RoomError(FULL_ADDRESS)
            if len(live) >= MAX_ROOMS or len(self.rooms) >= MAX_HELD:
                raise RoomError(full_server(self.times.away))
            code, key = new_code(), secrets.token_urlsafe(KEY_BYTES)
            self.rooms[code] = Room(key=key, address=address, heard=now)
            return code, key

    def forget_ended(self, now: float) -> None:
        for code in [c for c, r in self.rooms.items() if now - r.heard > self.times.gone]:
            del self.rooms[code]

    def room(self, code: str, key: str | None = None) -> Room:
        """The held room, checking the teacher's key when one is needed (and then noting
        that the teacher was heard from)."""
        check_code(code)
        now = self.clock()
        self.forget_ended(now)
        room = self.rooms.get(code)
        if room is None:
            raise RoomGoneError(GONE)
        if key is not None:
            if not isinstance(key, str) or not hmac.compare_digest(room.key, key):
                raise NotTeacherError(NOT_TEACHER)
            room.heard = now
        return room

    def exists(self, code: str) -> bool:
        try:
            with self.lock:
                self.room(code)
            return True
        except RoomGoneError:
            return False

    def show(self, code: str, key: str, view: dict) -> Seen:
        text = view_json(view)
        with self.lock:
            room = self.room(code, key)
            if text != room.view:
                room.version, room.view = room.version + 1, text
            now = self.clock()
            here = [f for when, f in room.present.values() if now - when <= self.times.present]
            return Seen(room.version, len(here), sum(here), frozenset(room.revealed))

    def look(self, code: str, who: str = "", following: bool = True) -> Look:
        with self.lock:
            room = self.room(code)
            if who:
                check_voter(who)
                now = self.clock()
                present = self.times.present
                for gone in [v for v, (t, _) in room.present.items() if now - t > present]:
                    del room.present[gone]
                if who in room.present or len(room.present) < MAX_VOTERS:
                    room.present[who] = (now, bool(following))
            return Look(room.version, json.loads(room.view), frozenset(room.revealed))

    def view(self, code: str) -> tuple[int, dict]:
        look = self.look(code)
        return look.version, look.view

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        check_question(question, answers)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions and len(room.questions) >= MAX_QUESTIONS:
                raise RoomError(f"A class asks at most {MAX_QUESTIONS} questions.")
            room.questions[question] = tuple(answers)
            room.votes.setdefault(question, {})

    def vote(
        self, code: str, question: str, voter: str, answer: str | None, address: str = ""
    ) -> None:
        """The voter's answer to the question; None takes their answer back. `address`
        is where the voter's browser connects from, as far as the server can tell."""
        check_question(question, [] if answer is None else [answer])
        check_voter(voter)
        address = address[:MAX_ADDRESS_CHARS]
        with self.lock:
            room = self.room(code)
            if question not in room.questions or (
                answer is not None and answer not in room.questions[question]
            ):
                raise RoomError(UNKNOWN)
            if question in room.revealed:
                raise RoomError(CLOSED)
            now = self.clock()
            rate = self.times.rate
            for who in [w for w, t in room.recent.items() if now - t[-1] > rate]:
                del room.recent[who]  # nobody is kept who has not voted within the window
                room.origin.pop(who, None)
            if voter not in room.recent and len(room.recent) >= MAX_VOTERS:
                raise RoomError(FULL_ROOM)
            if (
                address
                and voter not in room.recent
                and sum(a == address for a in room.origin.values()) >= VOTERS_PER_ADDRESS
            ):
                raise RoomError(CROWD)
            recent = room.recent.get(voter, deque())
            while recent and now - recent[0] > rate:
                recent.popleft()
            if len(recent) >= VOTES_PER_MINUTE:
                raise RoomError(RATE)
            votes = room.votes[question]
            if voter not in votes and answer is not None and len(votes) >= MAX_VOTERS:
                raise RoomError(FULL_QUESTION)
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
        check_question(question)
        with self.lock:
            room = self.room(code, key)
            if question not in room.questions:
                raise RoomError("The class has not been asked that question.")
            room.revealed.add(question)

    def end(self, code: str, key: str) -> None:
        with self.lock:
            self.room(code, key)
            del self.rooms[code]


# Redis. A room's keys start with ffn:room:<code>: the room itself (a hash: the teacher's
# key, their address, the version, the view and the revealed questions as JSON), the
# students present (a sorted set by when each last polled, and one of those who follow),
# its questions (a hash), each question's votes (a hash) and each voter's rate. The room,
# its questions and its students expire TEACHER_GONE_SECONDS after the teacher was last
# heard from; votes expire ROOM_SECONDS after the last one. An index, ffn:rooms, scores
# each held room's code by when its teacher was last heard from.

# A new room, unless the server or the address has as many as it may. KEYS: the index,
# the room. ARGV: now, away seconds, gone seconds, most live rooms, most rooms per address,
# most held rooms, code, teacher's key, address, gone in milliseconds.
CREATE_SCRIPT = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6]) then return 'full' end
local live = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[2]), '+inf')
if #live >= tonumber(ARGV[4]) then return 'full' end
if ARGV[9] ~= '' then
    local mine = 0
    for _, code in ipairs(live) do
        if redis.call('HGET', 'ffn:room:' .. code, 'address') == ARGV[9] then mine = mine + 1 end
    end
    if mine >= tonumber(ARGV[5]) then return 'address' end
end
redis.call('ZADD', KEYS[1], now, ARGV[7])
redis.call('HSET', KEYS[2], 'key', ARGV[8], 'address', ARGV[9], 'version', 0, 'view', '{}',
           'revealed', '[]')
redis.call('PEXPIRE', KEYS[2], ARGV[10])
return 'ok'
"""

# The teacher is heard from: the room stays, and a new view bumps its version. KEYS: the
# index, the room, its questions, its students, its followers. ARGV: now, gone in
# milliseconds, view ('' to leave it), present seconds, code. Returns the version, how
# many students are present and how many follow, and the revealed questions.
SHOW_SCRIPT = """
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1, 0, 0, '[]'} end
local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[5])
for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
if ARGV[3] ~= '' and redis.call('HGET', KEYS[2], 'view') ~= ARGV[3] then
    redis.call('HSET', KEYS[2], 'view', ARGV[3])
    redis.call('HINCRBY', KEYS[2], 'version', 1)
end
local since = now - tonumber(ARGV[4])
local room = redis.call('HMGET', KEYS[2], 'version', 'revealed')
return {tonumber(room[1]), redis.call('ZCOUNT', KEYS[4], since, '+inf'),
        redis.call('ZCOUNT', KEYS[5], since, '+inf'), room[2]}
"""

# A student's poll: note that they are present (and whether they follow). KEYS: the
# room's students, its followers. ARGV: now, present seconds, voter, follows ('1' or '0'),
# most students.
PRESENT_SCRIPT = """
local since = tonumber(ARGV[1]) - tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. since)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. since)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[5]) then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
    if ARGV[4] == '1' then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
    else redis.call('ZREM', KEYS[2], ARGV[3]) end
end
return 'ok'
"""

# One vote, atomically: the room is held, the question was asked, has that answer and is
# not revealed, the voter is under the rate, their address under its voters in the window
# and the question under its voters' cap; then the vote is set (or, with no answer, taken
# back). KEYS: room, questions, votes, rate, the address's voters (a sorted set by when
# each first voted in the window). ARGV: question, voter, answer ('' to take back), how
# long votes are kept and the rate's window (both in milliseconds), votes per window,
# most voters, now (ms), voters per address and window ('0' when the address is unknown).
VOTE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
local answers = redis.call('HGET', KEYS[2], ARGV[1])
if not answers then return 'unknown' end
if ARGV[3] ~= '' then
    local known = false
    for _, answer in ipairs(cjson.decode(answers)) do
        if answer == ARGV[3] then known = true end
    end
    if not known then return 'unknown' end
end
for _, shown in ipairs(cjson.decode(redis.call('HGET', KEYS[1], 'revealed'))) do
    if shown == ARGV[1] then return 'closed' end
end
if tonumber(redis.call('GET', KEYS[4]) or '0') >= tonumber(ARGV[6]) then return 'rate' end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[3], ARGV[2]) == 0
    and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[7]) then return 'full' end
local crowd = tonumber(ARGV[9])
if crowd > 0 then
    local now = tonumber(ARGV[8])
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. (now - tonumber(ARGV[5])))
    if not redis.call('ZSCORE', KEYS[5], ARGV[2]) then
        if redis.call('ZCARD', KEYS[5]) >= crowd then return 'crowd' end
        redis.call('ZADD', KEYS[5], now, ARGV[2])
    end
    redis.call('PEXPIRE', KEYS[5], ARGV[5])
end
if redis.call('INCR', KEYS[4]) == 1 then redis.call('PEXPIRE', KEYS[4], ARGV[5]) end
if ARGV[3] == '' then redis.call('HDEL', KEYS[3], ARGV[2])
else redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 'ok'
"""

# The teacher reveals a question. KEYS: room, questions. ARGV: question, most questions.
REVEAL_SCRIPT = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 'unknown' end
local shown = cjson.decode(redis.call('HGET', KEYS[1], 'revealed'))
for _, q in ipairs(shown) do if q == ARGV[1] then return 'ok' end end
table.insert(shown, ARGV[1])
redis.call('HSET', KEYS[1], 'revealed', cjson.encode(shown))
return 'ok'
"""

REFUSALS = {  # what a script answers -> what the person is told
    "gone": (RoomGoneError, GONE),
    "unknown": (RoomError, UNKNOWN),
    "closed": (RoomError, CLOSED),
    "rate": (RoomError, RATE),
    "crowd": (RoomError, CROWD),
    "full": (RoomError, FULL_QUESTION),
    "address": (RoomError, FULL_ADDRESS),
}


def ms(seconds: float) -> int:
    """Seconds as Redis's PEXPIRE takes them."""
    return math.ceil(seconds * 1000)


def refused(result: str) -> None:
    if result != "ok":
        error, message = REFUSALS[result]
        raise error(message)


class RedisRoomStore:
    """Rooms in Redis, shared by every server process that reaches it."""

    def __init__(self, url: str, durations: Durations = Durations()):
        import redis  # only a deployment with FFN_REDIS_URL needs it

        self.redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2
        )
        self.lost = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
        self.unwritable = (redis.OutOfMemoryError, redis.ReadOnlyError)
        self.times = durations
        scripts = (CREATE_SCRIPT, SHOW_SCRIPT, PRESENT_SCRIPT, VOTE_SCRIPT, REVEAL_SCRIPT)
        (
            self.create_script,
            self.show_script,
            self.present_script,
            self.vote_script,
            (self.reveal_script),
        ) = (self.redis.register_script(s) for s in scripts)

    def reaching(self, call: Callable, *args):
        """call(*args), with Redis going away, or refusing writes, said in a class's words."""
        try:
            return call(*args)
        except self.lost as err:
            raise ClassConnectionError(LOST) from err
        except self.unwritable as err:
            raise ClassConnectionError(
                "The class's store is full or read-only; the class waits for it."
            ) from err

    @staticmethod
    def keys(code: str, question: str = "", voter: str = "", address: str = "") -> dict[str, str]:
        room = f"ffn:room:{code}"
        return {
            "room": room,
            "questions": f"{room}:questions",
            "present": f"{room}:present",
            "following": f"{room}:following",
            "votes": f"{room}:votes:{question}",
            "rate": f"{room}:rate:{voter}",
            "from": f"{room}:from:{address}",
        }

    def create(self, address: str = "") -> tuple[str, str]:
        code, key = new_code(), secrets.token_urlsafe(KEY_BYTES)
        limits = [self.times.away, self.times.gone, MAX_ROOMS, ROOMS_PER_ADDRESS]
        address = address[:MAX_ADDRESS_CHARS]
        args = [time.time(), *limits, MAX_HELD, code, key, address, ms(self.times.gone)]
        made = self.reaching(self.create_script, [ROOMS, self.keys(code)["room"]], args)
        if made == "full":
            raise RoomError(full_server(self.times.away))
        refused(made)
        return code, key

    def teacher(self, code: str, key: str) -> None:
        """Raises unless the room is held and `key` is its teacher's."""
        check_code(code)
        held = self.reaching(self.redis.hget, self.keys(code)["room"], "key")
        if held is None:
            self.reaching(self.redis.zrem, ROOMS, code)
            raise RoomGoneError(GONE)
        if not isinstance(key, str) or not hmac.compare_digest(held, key):
            raise NotTeacherError(NOT_TEACHER)

    def exists(self, code: str) -> bool:
        try:
            check_code(code)
        except RoomGoneError:
            return False
        return bool(self.reaching(self.redis.exists, self.keys(code)["room"]))

    def show(self, code: str, key: str, view: dict | None = None) -> Seen:
        text = "" if view is None else view_json(view)
        self.teacher(code, key)
        names = self.keys(code)
        keys = [ROOMS, names["room"], names["questions"], names["present"], names["following"]]
        args = [time.time(), ms(self.times.gone), text, self.times.present, code]
        version, students, following, revealed = self.reaching(self.show_script, keys, args)
        if version < 0:  # it ended between the key's check and now
            raise RoomGoneError(GONE)
        return Seen(version, students, following, frozenset(json.loads(revealed)))

    def look(self, code: str, who: str = "", following: bool = True) -> Look:
        """Read first, then note the student: a store that refuses writes still shows
        the class (ClassConnectionError comes after, from `present`)."""
        check_code(code)
        names = self.keys(code)
        values = self.reaching(self.redis.hmget, names["room"], ["version", "view", "revealed"])
        version, view, revealed = values
        if version is None:
            raise RoomGoneError(GONE)
        look = Look(int(version), json.loads(view), frozenset(json.loads(revealed)))
        if who:
            check_voter(who)
            follows = "1" if following else "0"
            args = [time.time(), self.times.present, who, follows, MAX_VOTERS]
            try:
                self.present_script([names["present"], names["following"]], args)
            except self.unwritable:
                pass  # a full store still shows the class; only the teacher's count misses one
            except self.lost as err:
                raise ClassConnectionError(LOST) from err
        return look

    def view(self, code: str) -> tuple[int, dict]:
        look = self.look(code)
        return look.version, look.view

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        check_question(question, answers)
        self.teacher(code, key)
        names = self.keys(code, question)
        asked = self.reaching(self.redis.hlen, names["questions"])
        if asked >= MAX_QUESTIONS and not self.reaching(
            self.redis.hexists, names["questions"], question
        ):
            raise RoomError(f"A class asks at most {MAX_QUESTIONS} questions.")
        with self.redis.pipeline() as pipe:
            pipe.hset(names["questions"], question, json.dumps(list(answers)))
            pipe.pexpire(names["questions"], ms(self.times.gone))
            self.reaching(pipe.execute)

    def vote(
        self, code: str, question: str, voter: str, answer: str | None, address: str = ""
    ) -> None:
        check_code(code)
        check_question(question, [] if answer is None else [answer])
        check_voter(voter)
        address = address[:MAX_ADDRESS_CHARS]
        names = self.keys(code, question, voter, address)
        keys = [names["room"], names["questions"], names["votes"], names["rate"], names["from"]]
        limits = [ms(self.times.votes), ms(self.times.rate), VOTES_PER_MINUTE, MAX_VOTERS]
        crowd = VOTERS_PER_ADDRESS if address else 0
        args = [question, voter, answer or "", *limits, ms(time.time()), crowd]
        refused(self.reaching(self.vote_script, keys, args))

    def tally(self, code: str, question: str) -> dict[str, int]:
        check_code(code)
        names = self.keys(code, question)
        with self.redis.pipeline() as pipe:
            pipe.exists(names["room"]).hget(names["questions"], question).hvals(names["votes"])
            held, answers, cast = self.reaching(pipe.execute)
        if not held:
            raise RoomGoneError(GONE)
        counts = dict.fromkeys(json.loads(answers) if answers else [], 0)
        for answer in cast:
            if answer in counts:
                counts[answer] += 1
        return counts

    def reveal(self, code: str, key: str, question: str) -> None:
        check_question(question)
        self.teacher(code, key)
        names = self.keys(code)
        result = self.reaching(self.reveal_script, [names["room"], names["questions"]], [question])
        if result == "unknown":
            raise RoomError("The class has not been asked that question.")

    def end(self, code: str, key: str) -> None:
        self.teacher(code, key)
        pattern = f"{self.keys(code)['room']}*"  # the room and all that belongs to it
        names = self.reaching(lambda: list(self.redis.scan_iter(match=pattern, count=1000)))
        with self.redis.pipeline() as pipe:
            pipe.delete(*names).zrem(ROOMS, code)
            self.reaching(pipe.execute)

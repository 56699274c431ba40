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
    store.share(code, key, text)                   # what the page draws (class_view.py)
    store.content(code)                            # that text, for students' class views
    store.end(code, key)                           # the class is over

Two stores keep the same promises (tests/ui/test_room_store.py runs one set of tests on
both): MemoryRoomStore (memory_store.py), in this server process (Streamlit Community
Cloud runs one), and RedisRoomStore (redis_store.py), when FFN_REDIS_URL names a Redis
that several server processes share. Both read the caps below from this module when
they check them, so a test may lower one.

The rules, the same in both:
- A code is 15 characters (58 random bits) of an alphabet a teacher reads aloud without
  a student mishearing or misreading one (CODE_ALPHABET), written in three groups of
  five: `h7m2w-x9f4r-3y8h6`. `read_code` takes it typed in any case, with or without
  dashes and spaces. 58 bits keep a code unguessable for a class's life: at
  GUESSES_PER_SECOND tries (far more than a server can answer: each is a page run) for
  CLASS_SECONDS against MAX_ROOMS live rooms, the chance that any try hits any room stays
  under 1 in a million.
- Only the teacher's key changes what a room shows or asks, reveals, or ends it.
- A room lives while its teacher's page is open: it ends TEACHER_GONE_SECONDS after the
  teacher was last heard from (their page publishes twice a second), or when they end it.
  Students' polls do not keep it alive.
- Rooms are small, so a server holds thousands: at most MAX_ROOMS whose teacher was heard
  within TEACHER_AWAY_SECONDS are live at once, at most ROOMS_PER_ADDRESS of them started
  from one address (a school's teachers share one), and at most MAX_HELD in all. When a
  new room would pass a cap, the room under that cap that no student has used for
  IDLE_SECONDS (and that is older than that) ends to make way, the longest idle first:
  rooms held by sessions with no class in them cannot keep a teacher out, and a class
  with students is never ended for another. Only when no room is idle is a new one refused.
- A session teaches one room at a time (ffn_ui/classroom/teaching.py).
- A student counts as present for PRESENT_SECONDS after their last poll.
- A vote is one per voter and question (a new one replaces the last), only for a question
  the teacher asked, only one of its answers, only until the teacher reveals it, and at
  most VOTES_PER_MINUTE from one voter; at most VOTERS_PER_ADDRESS voters vote within a
  minute from one address (a script that invents voters is slowed, a lecture hall behind
  one school address is not). Every size is capped, and the in-process store holds at most
  MAX_STORE_BYTES of rooms in all (Redis has its own maxmemory), ending idle rooms first,
  so no visitor can grow the server's memory without bound.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

# Read aloud, no two sound alike (b, c, d, e, g, p, t, v, z and 3 rhyme; m and n; f and s;
# s and x; a, j, k and 8; i and y; q and u), and written, no two look alike (0, o and q; 1,
# i, l and 7; 2 and z; 5 and s; 6 and g; 8 and b; 9 and q): the digits 2 to 9 and seven
# letters, at most one of each set.
CODE_ALPHABET = "23456789fhmrwxy"  # 15 symbols
CODE_GROUP = 5  # characters in a group, read in one breath
CODE_GROUPS = 3  # 15 characters: 15**15, about 2**58.6
CODE_PATTERN = re.compile(
    rf"[{CODE_ALPHABET}]{{{CODE_GROUP}}}(-[{CODE_ALPHABET}]{{{CODE_GROUP}}}){{{CODE_GROUPS - 1}}}"
)
GUESSES_PER_SECOND = 1_000  # tries at codes a server could answer, at most, with room to spare
CLASS_SECONDS = 4 * 3600  # a long class, from its start to its last student
KEY_BYTES = 24  # 192 bits in the teacher's key
TEACHER_GONE_SECONDS = 600  # a room ends 10 minutes after its teacher was last heard from
TEACHER_AWAY_SECONDS = 90  # a room counts against MAX_ROOMS while its teacher is this recent
PRESENT_SECONDS = 5.0  # a student is in the room this long after their last poll
ROOM_SECONDS = 3 * 3600  # how long a room's questions and votes are kept at most
MAX_ROOMS = 2_000  # rooms live at once
ROOMS_PER_ADDRESS = 20  # live rooms started from one address: a school's teachers share one
MAX_HELD = 2 * MAX_ROOMS  # rooms held at once, live or waiting to end
IDLE_SECONDS = 600  # a room no student has used for this long may end to make way for another
MAX_VIEW_CHARS = 16_000  # the teacher's page and settings, as JSON (edited weights included)
MAX_CONTENT_CHARS = 600_000  # what the teacher's page draws for a class view, as JSON
MAX_QUESTION_CHARS = 120  # a question's id
MAX_ANSWER_CHARS = 80  # one answer
MAX_ANSWERS = 12  # answers of one question
MAX_QUESTIONS = 100  # questions one room has asked
MAX_VOTERS = 1000  # voters counted on one question
MAX_STUDENTS = 1000  # students one room keeps track of
MAX_VOTER_CHARS = 64  # a voter's id (a session's, made by the server)
MAX_ADDRESS_CHARS = 64  # an address, as the server saw it
VOTES_PER_MINUTE = 20  # from one voter in one room
VOTERS_PER_ADDRESS = 500  # voters voting within RATE_SECONDS from one address: a hall fits
MAX_STORE_BYTES = 150_000_000  # what the in-process store holds in all, as `weight` counts it
ENTRY_BYTES = 200  # a vote, a student or a question, as held in Python (measured by a test)
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
FULL_STORE = (
    "This server holds as much of its classes as it can; a room frees as soon as a "
    "teacher ends a class."
)


def crowd() -> str:
    """The caps are read when a message is shown, so that a lowered cap says its number."""
    return (
        f"{VOTERS_PER_ADDRESS} students from your network voted in the last minute, its "
        "most; wait a moment, then vote again."
    )


def full_question() -> str:
    return f"This question has counted {MAX_VOTERS:,} voters, its most."


def full_room() -> str:
    return f"This class keeps track of {MAX_STUDENTS:,} students, its most."


def full_server(seconds: float) -> str:
    """The refusal of a new room, and when one will be free at the latest."""
    return (
        "This server holds as many classes as it can. A room is free as soon as a teacher "
        f"ends a class, or within {max(1, round(seconds / 60))} min of a teacher's page closing."
    )


def full_address(seconds: float) -> str:
    return (
        f"Your address already runs {ROOMS_PER_ADDRESS} classes, its most. End one of them "
        f"(its page's “End the class”), or close its page: its room frees within "
        f"{max(1, round(seconds / 60))} min."
    )


def new_code() -> str:
    chars = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_GROUP * CODE_GROUPS))
    return written(chars)


def written(chars: str) -> str:
    """A code's characters in groups: "h7m2wx9f4r3y8h6" -> "h7m2w-x9f4r-3y8h6"."""
    return "-".join(chars[k : k + CODE_GROUP] for k in range(0, len(chars), CODE_GROUP))


def read_code(typed: object) -> str | None:
    """A class code as a person types or reads it, in its one written form, or None.

    Any case, with or without dashes and spaces."""
    if not isinstance(typed, str) or len(typed) > 40:
        return None
    chars = "".join(typed.lower().split()).replace("-", "")
    if len(chars) != CODE_GROUP * CODE_GROUPS or any(c not in CODE_ALPHABET for c in chars):
        return None
    return written(chars)


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


def check_content(text: object) -> None:
    if not isinstance(text, str) or len(text) > MAX_CONTENT_CHARS:
        raise RoomError(f"The page's figures are longer than {MAX_CONTENT_CHARS:,} characters.")


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
    idle: float = IDLE_SECONDS  # a room unused by students this long may make way for another
    votes: float = ROOM_SECONDS  # Redis keeps a question's votes this long after the last


USUAL = Durations()  # a store's durations unless a test shortens them


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

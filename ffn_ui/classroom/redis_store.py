"""Rooms in Redis, shared by every server process that reaches it (the lecture hall of
deploy/): each change is one Lua script, so that several processes never half-apply one.
It keeps the promises of ffn_ui/classroom/store.py."""

from __future__ import annotations

import hmac
import json
import math
import secrets
import time
from collections.abc import Callable, Sequence

from ffn_ui.classroom import store as rules
from ffn_ui.classroom.redis_scripts import (
    CREATE_SCRIPT,
    PRESENT_SCRIPT,
    REVEAL_SCRIPT,
    SHARE_SCRIPT,
    SHOW_SCRIPT,
    VOTE_SCRIPT,
)
from ffn_ui.classroom.store import (
    CLOSED,
    GONE,
    LOST,
    NOT_TEACHER,
    RATE,
    UNKNOWN,
    USUAL,
    ClassConnectionError,
    Durations,
    Look,
    NotTeacherError,
    RoomError,
    RoomGoneError,
    Seen,
    check_code,
    check_content,
    check_question,
    check_voter,
    full_server,
    new_code,
    view_json,
)

REFUSALS = {  # what a script answers -> what the person is told (read when told)
    "gone": (RoomGoneError, lambda: GONE),
    "unknown": (RoomError, lambda: UNKNOWN),
    "closed": (RoomError, lambda: CLOSED),
    "rate": (RoomError, lambda: RATE),
    "crowd": (RoomError, rules.crowd),
    "full": (RoomError, rules.full_question),
}


def ms(seconds: float) -> int:
    """Seconds as Redis's PEXPIRE takes them."""
    return math.ceil(seconds * 1000)


def refused(result: str) -> None:
    if result != "ok":
        error, message = REFUSALS[result]
        raise error(message())


class RedisRoomStore:
    """Rooms in Redis, shared by every server process that reaches it."""

    def __init__(self, url: str, durations: Durations = USUAL):
        import redis  # only a deployment with FFN_REDIS_URL needs it

        self.redis = redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2
        )
        self.lost = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
        self.unwritable = (redis.OutOfMemoryError, redis.ReadOnlyError)
        self.times = durations
        scripts = (
            CREATE_SCRIPT,
            SHOW_SCRIPT,
            PRESENT_SCRIPT,
            VOTE_SCRIPT,
            REVEAL_SCRIPT,
            SHARE_SCRIPT,
        )
        (
            self.create_script,
            self.show_script,
            self.present_script,
            self.vote_script,
            self.reveal_script,
            self.share_script,
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
            "rooms from": f"ffn:rooms:from:{address}",
        }

    def create(self, address: str = "") -> tuple[str, str]:
        code, key = new_code(), secrets.token_urlsafe(rules.KEY_BYTES)
        limits = [self.times.away, self.times.gone, rules.MAX_ROOMS, rules.ROOMS_PER_ADDRESS]
        address = address[: rules.MAX_ADDRESS_CHARS]
        args = [time.time(), *limits, rules.MAX_HELD, code, key, address, ms(self.times.gone)]
        names = self.keys(code, address=address)
        keys = [rules.ROOMS, names["room"], names["rooms from"]]
        made = self.reaching(self.create_script, keys, [*args, self.times.idle])
        if made == "full":
            raise RoomError(full_server(self.times.away))
        if made == "address":
            raise RoomError(rules.full_address(self.times.away))
        refused(made)
        return code, key

    def teacher(self, code: str, key: str) -> None:
        """Raises unless the room is held and `key` is its teacher's."""
        check_code(code)
        held = self.reaching(self.redis.hget, self.keys(code)["room"], "key")
        if held is None:
            self.reaching(self.redis.zrem, rules.ROOMS, code)
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
        keys = [
            rules.ROOMS,
            names["room"],
            names["questions"],
            names["present"],
            names["following"],
        ]
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
            args = [time.time(), self.times.present, who, follows, rules.MAX_STUDENTS]
            try:
                self.present_script([names["present"], names["following"], names["room"]], args)
            except self.unwritable:
                pass  # a full store still shows the class; only the teacher's count misses one
            except self.lost as err:
                raise ClassConnectionError(LOST) from err
        return look

    def share(self, code: str, key: str, text: str) -> None:
        """What the teacher's page draws, kept in the room's own hash (it goes with it)."""
        check_content(text)
        self.teacher(code, key)
        refused(self.reaching(self.share_script, [self.keys(code)["room"]], [text]))

    def content(self, code: str) -> str:
        check_code(code)
        names = self.keys(code)
        held, text = self.reaching(self.redis.hmget, names["room"], ["version", "content"])
        if held is None:
            raise RoomGoneError(GONE)
        return text or ""

    def view(self, code: str) -> tuple[int, dict]:
        look = self.look(code)
        return look.version, look.view

    def ask(self, code: str, key: str, question: str, answers: Sequence[str]) -> None:
        check_question(question, answers)
        self.teacher(code, key)
        names = self.keys(code, question)
        asked = self.reaching(self.redis.hlen, names["questions"])
        if asked >= rules.MAX_QUESTIONS and not self.reaching(
            self.redis.hexists, names["questions"], question
        ):
            raise RoomError(f"A class asks at most {rules.MAX_QUESTIONS} questions.")
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
        address = address[: rules.MAX_ADDRESS_CHARS]
        names = self.keys(code, question, voter, address)
        keys = [names["room"], names["questions"], names["votes"], names["rate"], names["from"]]
        limits = [
            ms(self.times.votes),
            ms(self.times.rate),
            rules.VOTES_PER_MINUTE,
            rules.MAX_VOTERS,
        ]
        crowd = rules.VOTERS_PER_ADDRESS if address else 0
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
        room = self.keys(code)["room"]
        address = self.reaching(self.redis.hget, room, "address") or ""
        pattern = f"{room}*"  # the room and all that belongs to it
        names = self.reaching(lambda: list(self.redis.scan_iter(match=pattern, count=1000)))
        with self.redis.pipeline() as pipe:
            pipe.delete(*names).zrem(rules.ROOMS, code)
            pipe.zrem(self.keys(code, address=address)["rooms from"], code)
            self.reaching(pipe.execute)

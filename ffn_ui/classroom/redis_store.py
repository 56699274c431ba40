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

# Redis. A room's keys start with ffn:room:<code>: the room itself (a hash: the teacher's
# key, their address, the version, the view and the revealed questions as JSON), the
# students present (a sorted set by when each last polled, and one of those who follow),
# its questions (a hash), each question's votes (a hash) and each voter's rate. The room,
# its questions and its students expire TEACHER_GONE_SECONDS after the teacher was last
# heard from; votes expire ROOM_SECONDS after the last one. The room's hash also holds what
# the teacher's page draws (its content), for students' class views. An index, ffn:rooms, scores
# each held room's code by when its teacher was last heard from.

# A new room, unless the server or the address has as many as it may and none of those
# rooms is idle (no student has used it for the idle time: then the longest idle ends to
# make way). KEYS: the index, the room, the address's own index of rooms. ARGV: now, away
# seconds, gone seconds, most live rooms, most rooms per address, most held rooms, code,
# teacher's key, address, gone in milliseconds, idle seconds.
CREATE_SCRIPT = """
local now = tonumber(ARGV[1])
local idle_since = now - tonumber(ARGV[11])
local function end_idle(codes)
    local best, best_used = nil, nil
    for _, code in ipairs(codes) do
        local used = tonumber(redis.call('HGET', 'ffn:room:' .. code, 'used') or '0')
        if used < idle_since and (best == nil or used < best_used) then
            best, best_used = code, used
        end
    end
    if best == nil then return false end
    local room = 'ffn:room:' .. best
    local address = redis.call('HGET', room, 'address')
    redis.call('DEL', room, room .. ':questions', room .. ':present', room .. ':following')
    redis.call('ZREM', KEYS[1], best)
    if address and address ~= '' then redis.call('ZREM', 'ffn:rooms:from:' .. address, best) end
    return true
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
local live_since = now - tonumber(ARGV[2])
if ARGV[9] ~= '' then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[3]))
    local mine = redis.call('ZRANGEBYSCORE', KEYS[3], live_since, '+inf')
    if #mine >= tonumber(ARGV[5]) and not end_idle(mine) then return 'address' end
end
local live = redis.call('ZRANGEBYSCORE', KEYS[1], live_since, '+inf')
if #live >= tonumber(ARGV[4]) and not end_idle(live) then return 'full' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6])
    and not end_idle(redis.call('ZRANGE', KEYS[1], 0, -1)) then return 'full' end
redis.call('ZADD', KEYS[1], now, ARGV[7])
if ARGV[9] ~= '' then
    redis.call('ZADD', KEYS[3], now, ARGV[7])
    redis.call('PEXPIRE', KEYS[3], ARGV[10])
end
redis.call('HSET', KEYS[2], 'key', ARGV[8], 'address', ARGV[9], 'version', 0, 'view', '{}',
           'revealed', '[]', 'used', ARGV[1])
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
local address = redis.call('HGET', KEYS[2], 'address')
if address and address ~= '' then
    local mine = 'ffn:rooms:from:' .. address
    redis.call('ZADD', mine, 'XX', now, ARGV[5])
    redis.call('PEXPIRE', mine, ARGV[2])
end
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

# A student's poll: note that they are present (and whether they follow), and that the
# room is in use. KEYS: the room's students, its followers, the room. ARGV: now, present
# seconds, voter, follows ('1' or '0'), most students.
PRESENT_SCRIPT = """
if redis.call('EXISTS', KEYS[3]) == 0 then return 'gone' end
redis.call('HSET', KEYS[3], 'used', ARGV[1])
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

# What the teacher's page draws, in the room's hash (never a new hash: one without the
# room's expiry would outlive it). KEYS: the room. ARGV: the text.
SHARE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
redis.call('HSET', KEYS[1], 'content', ARGV[1])
return 'ok'
"""

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

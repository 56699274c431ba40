"""The class rooms' promises, kept by both stores: the in-process one and Redis (a real
redis-server, started here on a free port; CI installs Debian's).

The in-process store runs on a clock the tests move; Redis runs on its own clock, so its
expiry tests use windows of a second or two.
"""

from __future__ import annotations

import threading
import time

import pytest

from ffn_ui import room_store
from ffn_ui.room_store import (
    ClassConnectionError,
    MemoryRoomStore,
    NotTeacherError,
    RedisRoomStore,
    RoomError,
    RoomGoneError,
)

ANSWERS = ("not sure yet", "yes, exactly", "no")


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
def kind(request):
    return request.param


def make_store(kind, request, room_seconds=room_store.ROOM_SECONDS, rate_seconds=60):
    """(store, advance): a store of this kind, and how to let `seconds` pass for it."""
    if kind == "memory":
        clock = Clock()
        store = MemoryRoomStore(room_seconds, rate_seconds, clock)

        def advance(seconds):
            clock.now += seconds

        return store, advance
    server = request.getfixturevalue("redis_server")
    return RedisRoomStore(server.url, room_seconds, rate_seconds), time.sleep


@pytest.fixture
def store(kind, request):
    return make_store(kind, request)[0]


def test_a_room_has_an_unguessable_code_and_a_separate_teacher_key(store):
    made = [store.create() for _ in range(50)]
    codes, keys = [c for c, _ in made], [k for _, k in made]
    assert len(set(codes)) == 50 and len(set(keys)) == 50
    for code, key in made:
        assert len(code) == 16 and room_store.CODE_PATTERN.fullmatch(code)  # 96 random bits
        assert len(key) >= 32 and key != code
        assert store.exists(code)


def test_the_teacher_shows_the_room_a_view_and_each_change_is_a_new_version(store):
    code, key = store.create()
    assert store.view(code) == (0, {})
    assert store.show(code, key, {"page": "Neurons", "d_ff": "8"}) == 1
    assert store.show(code, key, {"page": "Neurons", "d_ff": "8"}) == 1  # nothing new
    assert store.show(code, key, {"page": "Neurons", "d_ff": "16"}) == 2
    assert store.view(code) == (2, {"page": "Neurons", "d_ff": "16"})
    assert store.look(code) == (2, {"page": "Neurons", "d_ff": "16"}, "")


def test_without_the_teacher_key_nothing_changes(store):
    code, key = store.create()
    store.show(code, key, {"page": "Home"})
    store.ask(code, key, "q1", ANSWERS)
    _, other_key = store.create()
    for wrong in ("", "x" * len(key), other_key, key[:-1] + ("A" if key[-1] != "A" else "B")):
        with pytest.raises(NotTeacherError):
            store.show(code, wrong, {"page": "Backprop"})
        with pytest.raises(NotTeacherError):
            store.ask(code, wrong, "q2", ANSWERS)
        with pytest.raises(NotTeacherError):
            store.reveal(code, wrong, "q1")
    assert store.view(code) == (1, {"page": "Home"})
    assert store.revealed(code) == ""
    with pytest.raises(RoomError):
        store.vote(code, "q2", "student", "no")  # q2 was never asked


def test_only_the_teacher_ends_the_class_and_then_it_is_gone(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "student", "no")
    _, other_key = store.create()
    with pytest.raises(NotTeacherError):
        store.end(code, other_key)
    assert store.exists(code)
    store.end(code, key)
    assert not store.exists(code)
    for call, args in [(store.view, ()), (store.tally, ("q1",)), (store.revealed, ())]:
        with pytest.raises(RoomGoneError):
            call(code, *args)
    with pytest.raises(RoomGoneError):
        store.vote(code, "q1", "student", "yes, exactly")
    with pytest.raises(RoomGoneError):
        store.end(code, key)  # ended already
    if isinstance(store, RedisRoomStore):  # nothing of it is left
        assert not list(store.redis.scan_iter(f"ffn:room:{code}*"))
        assert store.redis.zscore(room_store.ROOMS, code) is None


def test_votes_count_once_per_voter_and_a_new_vote_replaces_the_last(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    assert store.tally(code, "q1") == dict.fromkeys(ANSWERS, 0)
    for voter, answer in [("a", "no"), ("b", "no"), ("c", "yes, exactly"), ("a", "not sure yet")]:
        store.vote(code, "q1", voter, answer)
    assert store.tally(code, "q1") == {"not sure yet": 1, "yes, exactly": 1, "no": 1}


def test_a_new_question_starts_a_new_count(store):
    code, key = store.create()
    store.ask(code, key, "guess_rows:setting1", ANSWERS)
    store.vote(code, "guess_rows:setting1", "a", "no")
    store.ask(code, key, "guess_rows:setting2", ANSWERS)  # the teacher changed a setting
    assert store.tally(code, "guess_rows:setting2") == dict.fromkeys(ANSWERS, 0)
    assert store.tally(code, "guess_rows:setting1")["no"] == 1


@pytest.mark.parametrize(
    "question, voter, answer",
    [
        ("q1", "a", "maybe"),  # not one of the answers
        ("q9", "a", "no"),  # not asked
        ("q1", "a", "n" * 81),  # too long
        ("q1", "v" * 65, "no"),  # a voter id too long
        ("q1", "", "no"),
        ("", "a", "no"),
        ("q" * 121, "a", "no"),
    ],
)
def test_a_vote_outside_the_question_is_refused_and_counts_nothing(store, question, voter, answer):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    with pytest.raises(RoomError):
        store.vote(code, question, voter, answer)
    assert store.tally(code, "q1") == dict.fromkeys(ANSWERS, 0)


def test_a_flood_of_votes_from_one_voter_is_refused_visibly_and_then_allowed(kind, request):
    store, advance = make_store(kind, request, rate_seconds=1)
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    for k in range(room_store.VOTES_PER_MINUTE):
        store.vote(code, "q1", "flooder", ANSWERS[k % 3])
    with pytest.raises(RoomError, match="Too many votes"):
        store.vote(code, "q1", "flooder", "no")
    store.vote(code, "q1", "someone else", "no")  # the limit is the flooder's alone
    advance(1.5)
    store.vote(code, "q1", "flooder", "no")
    assert store.tally(code, "q1")["no"] == 2


@pytest.mark.parametrize(
    "code", ["", "short", "x" * 17, "../../etc/passwd", "ffn:room:*x*x*x", None]
)
def test_a_malformed_code_is_refused_as_no_class(store, code):
    with pytest.raises(RoomGoneError):
        store.view(code)
    assert not store.exists(code)


def test_an_unknown_code_is_no_class(store):
    with pytest.raises(RoomGoneError):
        store.view("A" * 16)
    with pytest.raises(RoomGoneError):
        store.vote("A" * 16, "q1", "a", "no")


def test_a_room_ends_after_its_time_without_activity_and_activity_keeps_it(kind, request):
    store, advance = make_store(kind, request, room_seconds=2)
    code, key = store.create()
    for _ in range(3):  # activity every 1.2 s keeps the room past its 2 s
        advance(1.2)
        store.view(code)
    assert store.exists(code)
    advance(2.5)
    assert not store.exists(code)
    with pytest.raises(RoomGoneError):
        store.show(code, key, {"page": "Home"})


def test_the_teacher_reveals_an_asked_question_only(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    with pytest.raises(RoomError):
        store.reveal(code, key, "q2")
    store.reveal(code, key, "q1")
    assert store.revealed(code) == "q1"
    assert store.look(code)[2] == "q1"


def test_sizes_are_capped(store):
    code, key = store.create()
    with pytest.raises(RoomError):
        store.show(code, key, {"text": "x" * room_store.MAX_VIEW_CHARS})
    with pytest.raises(RoomError):
        store.ask(code, key, "q1", [f"answer {k}" for k in range(room_store.MAX_ANSWERS + 1)])
    for k in range(room_store.MAX_QUESTIONS):
        store.ask(code, key, f"q{k}", ANSWERS)
    with pytest.raises(RoomError):
        store.ask(code, key, "one too many", ANSWERS)
    store.ask(code, key, "q0", ANSWERS)  # asking again is not a new question


def test_votes_from_many_threads_are_counted_exactly(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)

    def class_of(start: int) -> None:
        for voter in range(start, start + 40):
            store.vote(code, "q1", f"s{voter}", ANSWERS[voter % 3])

    threads = [threading.Thread(target=class_of, args=(40 * t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = {
        answer: sum(1 for v in range(240) if v % 3 == k) for k, answer in enumerate(ANSWERS)
    }
    assert store.tally(code, "q1") == expected


def test_a_store_holds_a_bounded_number_of_rooms_and_ended_ones_make_room(kind, request):
    if kind == "redis":  # a database of its own: other tests' rooms live in database 0
        url = request.getfixturevalue("redis_server").url.replace("/0", "/1")
        RedisRoomStore(url).redis.flushdb()
        store, advance = RedisRoomStore(url, room_seconds=2), time.sleep
    else:
        store, advance = make_store(kind, request, room_seconds=2)
    codes = [store.create()[0] for _ in range(room_store.MAX_ROOMS - 1)]
    kept, _ = store.create()
    with pytest.raises(RoomError, match="as many classes as it can"):
        store.create()
    advance(1.2)
    store.view(kept)  # a student's look keeps a room live
    advance(1.2)
    assert not any(store.exists(code) for code in codes[:5])
    store.create()  # the ended rooms made room
    store.create()
    assert store.exists(kept)


def test_redis_keys_are_namespaced_and_expire(redis_server):
    store = RedisRoomStore(redis_server.url, room_seconds=600)
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "a", "no")
    names = list(store.redis.scan_iter(f"ffn:room:{code}*"))
    assert len(names) == 4  # the room, its questions, one question's votes, a voter's rate
    for name in names:
        assert 0 < store.redis.ttl(name) <= 600


def test_redis_going_away_is_a_lost_connection_and_its_return_recovers_the_class(redis_server):
    store = RedisRoomStore(redis_server.url)
    code, key = store.create()
    store.show(code, key, {"page": "Neurons"})
    redis_server.stop()
    try:
        with pytest.raises(ClassConnectionError, match="Class connection lost"):
            store.view(code)
        with pytest.raises(ClassConnectionError):
            store.vote(code, "q1", "a", "no")
    finally:
        redis_server.start()
    assert store.view(code) == (1, {"page": "Neurons"})  # saved as it stopped, read back

"""The class rooms' promises, kept by both stores: the in-process one and Redis (a real
redis-server, started here on a free port; CI installs Debian's).

The in-process store runs on a clock the tests move; Redis runs on its own clock, so its
timing tests use windows of a second or two.
"""

from __future__ import annotations

import threading
import time

import pytest

from ffn_ui.classroom import store as room_store
from ffn_ui.classroom.memory_store import MemoryRoomStore
from ffn_ui.classroom.redis_store import RedisRoomStore
from ffn_ui.classroom.store import (
    ClassConnectionError,
    Durations,
    NotTeacherError,
    RoomError,
    RoomGoneError,
    read_code,
)

ANSWERS = ("yes, exactly", "no", "it depends")
SHORT = Durations(gone=2.0, away=1.0, present=1.0, rate=1.0)  # for the tests that wait


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
def kind(request):
    return request.param


def make_store(kind, request, durations=None):
    """(store, advance): a store of this kind in a database of its own, and how to let
    `seconds` pass for it."""
    if kind == "memory":
        clock = Clock()

        def advance(seconds):
            clock.now += seconds

        return MemoryRoomStore(durations or Durations(), clock), advance
    url = request.getfixturevalue("redis_server").url
    RedisRoomStore(url).redis.flushdb()  # each test starts with no rooms
    return RedisRoomStore(url, durations or Durations()), time.sleep


@pytest.fixture
def store(kind, request):
    return make_store(kind, request)[0]


# Letters whose names rhyme in English (a teacher reads a code aloud), and characters that
# look alike on a projector: a code's alphabet holds at most one of each set.
SOUND_ALIKE = ["bcdegptvz3", "mn", "fs", "sx", "ajk8", "iy", "qu"]
LOOK_ALIKE = ["0oq", "1il7", "2z", "5s", "8b", "6g", "9q", "uv", "mn", "rn"]


def test_a_code_is_58_random_bits_in_three_groups_read_aloud_without_a_mix_up(store):
    made = [store.create() for _ in range(50)]
    codes, keys = [c for c, _ in made], [k for _, k in made]
    assert len(set(codes)) == 50 and len(set(keys)) == 50
    for code, key in made:
        assert room_store.CODE_PATTERN.fullmatch(code) and len(code) == 17  # 5-5-5
        assert len(key) >= 32 and key != code
        assert store.exists(code)
    alphabet = room_store.CODE_ALPHABET
    assert len(alphabet) ** 15 > 2**58 and len(set(alphabet)) == len(alphabet)
    for group in SOUND_ALIKE + LOOK_ALIKE:
        assert len(set(group) & set(alphabet)) <= 1, group


def test_a_code_stays_unguessable_for_a_class_s_life():
    """At GUESSES_PER_SECOND (a guess is a page run: a server answers far fewer) for a
    whole class against every live room, the chance of any hit stays under 1 in a million."""
    tries = room_store.GUESSES_PER_SECOND * room_store.CLASS_SECONDS
    codes = len(room_store.CODE_ALPHABET) ** (room_store.CODE_GROUP * room_store.CODE_GROUPS)
    assert tries * room_store.MAX_ROOMS / codes < 1e-6


@pytest.mark.parametrize(
    "typed",
    ["h7m2w-x9f4r-3y8h6", "H7M2W-X9F4R-3Y8H6", "h7m2w x9f4r 3y8h6", "h7m2wx9f4r3y8h6",
     " H7M2Wx9f4r-3y8h6 "],
)  # fmt: skip
def test_a_code_is_read_in_any_case_with_or_without_dashes_and_spaces(typed):
    assert read_code(typed) == "h7m2w-x9f4r-3y8h6"


@pytest.mark.parametrize(
    "typed",
    ["", "h7m2w-x9f4r", "h7m2w-x9f4r-3y8h6-h", "h7m2w-x9f4r-3y8hb", "k7m2-x9qp-4hzt",
     "MPCvtCB6F5IpuWle", None, 5],
)  # fmt: skip
def test_anything_else_is_no_code(typed):
    assert read_code(typed) is None


def test_the_teacher_shows_the_room_a_view_and_each_change_is_a_new_version(store):
    code, key = store.create()
    assert store.view(code) == (0, {})
    assert store.show(code, key, {"page": "Neurons", "d_ff": "8"}).version == 1
    assert store.show(code, key, {"page": "Neurons", "d_ff": "8"}).version == 1  # no change
    assert store.show(code, key, {"page": "Neurons", "d_ff": "16"}).version == 2
    assert store.view(code) == (2, {"page": "Neurons", "d_ff": "16"})
    assert store.look(code) == room_store.Look(2, {"page": "Neurons", "d_ff": "16"}, frozenset())


def test_the_teacher_shares_what_the_page_draws_and_only_the_teacher(store):
    code, key = store.create()
    assert store.content(code) == ""  # nothing shared yet: students run the page
    store.share(code, key, '{"heading": "Home", "items": []}')
    assert store.content(code) == '{"heading": "Home", "items": []}'
    assert store.view(code) == (0, {})  # sharing is not a new version: the view names it
    with pytest.raises(NotTeacherError):
        store.share(code, "", '{"heading": "planted"}')
    assert store.content(code) == '{"heading": "Home", "items": []}'
    store.share(code, key, "x" * room_store.MAX_CONTENT_CHARS)  # at the cap
    with pytest.raises(RoomError, match="longer than"):
        store.share(code, key, "x" * (room_store.MAX_CONTENT_CHARS + 1))
    assert len(store.content(code)) == room_store.MAX_CONTENT_CHARS
    store.end(code, key)
    for call in (lambda: store.content(code), lambda: store.share(code, key, "{}")):
        with pytest.raises(RoomGoneError):
            call()


def test_a_share_after_the_room_ended_leaves_nothing_behind_in_redis(redis_server):
    """A teacher's share that arrives after the room expired must not make a room hash
    without an expiry, which would be held forever."""
    store = RedisRoomStore(redis_server.url)
    code, key = store.create()
    store.redis.delete(f"ffn:room:{code}")  # expired between the key's check and the write
    store.teacher = lambda *_: None  # the check passed just before
    with pytest.raises(RoomGoneError):
        store.share(code, key, "{}")
    assert not store.redis.exists(f"ffn:room:{code}")


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
    assert store.look(code).revealed == frozenset()
    with pytest.raises(RoomError):
        store.vote(code, "q2", "student", "no")  # q2 was never asked


def test_only_the_teacher_ends_the_class_and_then_it_is_gone(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "student", "no")
    store.look(code, "student")
    _, other_key = store.create()
    with pytest.raises(NotTeacherError):
        store.end(code, other_key)
    assert store.exists(code)
    store.end(code, key)
    assert not store.exists(code)
    for call, args in [(store.view, ()), (store.tally, ("q1",)), (store.look, ("student",))]:
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
    for voter, answer in [("a", "no"), ("b", "no"), ("c", "yes, exactly"), ("a", "it depends")]:
        store.vote(code, "q1", voter, answer)
    assert store.tally(code, "q1") == {"yes, exactly": 1, "no": 1, "it depends": 1}


def test_a_voter_can_take_an_answer_back(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "a", "no")
    store.vote(code, "q1", "b", "no")
    store.vote(code, "q1", "a", None)
    store.vote(code, "q1", "c", None)  # one who never answered: nothing to take back
    assert store.tally(code, "q1") == {"yes, exactly": 0, "no": 1, "it depends": 0}


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
    store, advance = make_store(kind, request, SHORT)
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


def test_one_address_brings_a_bounded_number_of_new_voters_a_minute(kind, request, monkeypatch):
    """A script that invents a voter per vote (a new cookie each time) once voted as often
    as it liked from one address; now it is slowed to VOTERS_PER_ADDRESS a minute, while
    its voters already counted may still change their answers, and other addresses vote."""
    monkeypatch.setattr(room_store, "VOTERS_PER_ADDRESS", 3)
    store, advance = make_store(kind, request, SHORT)
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    for voter in ("a", "b", "c"):
        store.vote(code, "q1", voter, "no", "203.0.113.9")
    with pytest.raises(RoomError, match="from your network"):
        store.vote(code, "q1", "d", "no", "203.0.113.9")
    store.vote(code, "q1", "a", "it depends", "203.0.113.9")  # one already counted changes
    store.vote(code, "q1", "e", "no", "198.51.100.4")  # another address is not held back
    store.vote(code, "q1", "f", "no")  # nor a voter whose address the server cannot tell
    advance(1.5)  # the window has passed
    store.vote(code, "q1", "d", "no", "203.0.113.9")
    assert store.tally(code, "q1") == {"yes, exactly": 0, "no": 5, "it depends": 1}


def test_a_vote_refused_at_the_voters_cap_leaves_the_room_working(kind, request, monkeypatch):
    """A vote refused at a question's cap once left an empty record of its voter's recent
    votes behind, and every later vote in the room failed on it (IndexError)."""
    monkeypatch.setattr(room_store, "MAX_VOTERS", 3)
    store, advance = make_store(kind, request, SHORT)
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    for voter in ("a", "b", "c"):
        store.vote(code, "q1", voter, "no")
    advance(1.5)  # their votes are out of the rate's window; the question keeps them
    with pytest.raises(RoomError, match="its most"):
        store.vote(code, "q1", "d", "no")
    store.vote(code, "q1", "a", "yes, exactly")  # those counted still change their answer
    store.ask(code, key, "q2", ANSWERS)
    store.vote(code, "q2", "b", "it depends")  # and vote on the next question
    assert store.tally(code, "q1") == {"yes, exactly": 1, "no": 2, "it depends": 0}
    assert store.tally(code, "q2")["it depends"] == 1


@pytest.mark.parametrize(
    "code", ["", "short", "x" * 17, "../../etc/passwd", "ffn:room:*x*x*x", None, "K7M2-X9QP-4HZT"]
)
def test_a_malformed_code_is_refused_as_no_class(store, code):
    with pytest.raises(RoomGoneError):
        store.view(code)
    assert not store.exists(code)


def test_an_unknown_code_is_no_class(store):
    with pytest.raises(RoomGoneError):
        store.view("fhmrw-xy234-56789")
    with pytest.raises(RoomGoneError):
        store.vote("fhmrw-xy234-56789", "q1", "a", "no")


def test_a_room_ends_soon_after_its_teacher_is_gone_whatever_its_students_do(kind, request):
    store, advance = make_store(kind, request, SHORT)
    code, key = store.create()
    for _ in range(3):  # the teacher's page publishing keeps the room past its 2 s
        advance(1.2)
        store.show(code, key, {"page": "Home"})
    assert store.exists(code)
    for _ in range(3):  # a student's polls do not
        advance(0.8)
        if store.exists(code):
            store.look(code, "student")
    assert not store.exists(code)
    with pytest.raises(RoomGoneError):
        store.show(code, key, {"page": "Home"})


def test_the_teacher_reveals_asked_questions_and_each_stays_revealed(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.ask(code, key, "q2", ANSWERS)
    with pytest.raises(RoomError):
        store.reveal(code, key, "q3")
    store.reveal(code, key, "q1")
    store.reveal(code, key, "q2")
    store.reveal(code, key, "q1")  # again: nothing new
    assert store.look(code).revealed == {"q1", "q2"}
    assert store.show(code, key, {}).revealed == {"q1", "q2"}


def test_a_revealed_question_takes_no_more_answers(store):
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "a", "no")
    store.reveal(code, key, "q1")
    for answer in ("yes, exactly", None):
        with pytest.raises(RoomError, match="revealed"):
            store.vote(code, "q1", "a", answer)
    assert store.tally(code, "q1")["no"] == 1


def test_the_teacher_sees_how_many_students_are_present_and_following(kind, request):
    store, advance = make_store(kind, request, SHORT)
    code, key = store.create()
    assert store.show(code, key, {}).students == 0
    store.look(code, "a", following=True)
    store.look(code, "b", following=False)
    store.look(code, "c", following=True)
    store.look(code)  # a look without an id counts no one
    seen = store.show(code, key, {})
    assert (seen.students, seen.following) == (3, 2)
    store.look(code, "c", following=False)  # c unticks "Follow the teacher"
    assert store.show(code, key, {}).following == 1
    advance(0.6)
    store.look(code, "a", following=True)
    advance(0.6)  # b and c stopped polling more than a second ago; a did not
    seen = store.show(code, key, {})
    assert (seen.students, seen.following) == (1, 1)


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


def test_a_room_keeps_track_of_a_bounded_number_of_students(store, monkeypatch):
    monkeypatch.setattr(room_store, "MAX_STUDENTS", 5)
    code, key = store.create()
    for k in range(8):
        store.look(code, f"s{k}")  # the sixth and later still see the class ...
    assert store.show(code, key, {}).students == 5  # ... but are not kept


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


def test_rooms_count_against_the_cap_only_while_their_teacher_is_there(kind, request, monkeypatch):
    """200 sessions that each start a class and leave once took every room for 3 hours."""
    monkeypatch.setattr(room_store, "MAX_ROOMS", 40)
    store, advance = make_store(kind, request, SHORT)
    made = [store.create() for _ in range(room_store.MAX_ROOMS)]
    with pytest.raises(RoomError, match=r"as many classes as it can.*within 1 min"):
        store.create()
    kept_code, kept_key = made[0]
    advance(0.6)
    store.show(kept_code, kept_key, {})  # one teacher is still there
    advance(0.6)  # every other teacher has been away for more than a second
    code, key = store.create()  # so new classes can start
    assert store.exists(kept_code) and store.exists(made[1][0])  # the rooms wait, for now
    advance(1.0)
    store.show(code, key, {})
    advance(1.0)
    assert not store.exists(made[1][0])  # until their teacher is gone for good
    assert store.exists(code)


def test_one_address_starts_a_bounded_number_of_classes(store, monkeypatch):
    monkeypatch.setattr(room_store, "ROOMS_PER_ADDRESS", 3)  # the message reads the cap
    for _ in range(room_store.ROOMS_PER_ADDRESS):
        store.create("203.0.113.7")
    with pytest.raises(RoomError, match="Your address already runs 3 classes"):
        store.create("203.0.113.7")
    store.create("198.51.100.2")  # another school is not held up
    store.create("")  # nor is an address the server could not tell


def test_a_store_holds_a_bounded_number_of_rooms_however_they_come(kind, request, monkeypatch):
    monkeypatch.setattr(room_store, "MAX_HELD", 30)
    store, advance = make_store(kind, request, SHORT)
    for _ in range(3):  # 3 waves of 10 classes, each left alone once started
        for _ in range(10):
            store.create()
        advance(0.3)
    advance(0.8)  # every teacher has been away for over a second, none for 2
    with pytest.raises(RoomError, match="as many classes"):
        store.create()  # 30 held, none live: bounded all the same
    advance(0.5)  # the first wave is gone for good
    store.create()


def test_redis_keys_are_namespaced_and_expire(redis_server):
    store = RedisRoomStore(redis_server.url)
    code, key = store.create()
    store.ask(code, key, "q1", ANSWERS)
    store.vote(code, "q1", "a", "no")
    store.look(code, "a")
    store.show(code, key, {})
    names = set(store.redis.scan_iter(f"ffn:room:{code}*"))
    room = f"ffn:room:{code}"
    assert names == {room, f"{room}:questions", f"{room}:votes:q1", f"{room}:rate:a",
                     f"{room}:present", f"{room}:following"}  # fmt: skip
    for name in names:
        assert 0 < store.redis.pttl(name) <= room_store.ROOM_SECONDS * 1000


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


def test_a_read_only_redis_still_shows_the_class_and_refuses_writes_in_words(request):
    """Redis turned into a replica (read-only, as after a failover) keeps answering reads:
    a student still sees the class; the teacher's change, a vote and a new class each
    raise ClassConnectionError, which the pages show as a note."""
    store, _ = make_store("redis", request)
    code, key = store.create()
    store.show(code, key, {"page": "Neurons"})
    store.ask(code, key, "q", ANSWERS)
    unreachable = request.getfixturevalue("redis_server").port + 1
    store.redis.replicaof("127.0.0.1", unreachable)
    try:
        assert store.look(code, "student-1").view == {"page": "Neurons"}
        assert store.tally(code, "q") == dict.fromkeys(ANSWERS, 0)
        for write in (
            lambda: store.show(code, key, {"page": "Traps"}),
            lambda: store.vote(code, "q", "student-1", "no"),
            store.create,
        ):
            with pytest.raises(ClassConnectionError, match="full or read-only"):
                write()
    finally:
        store.redis.replicaof("NO", "ONE")
    store.vote(code, "q", "student-1", "no")
    assert store.tally(code, "q")["no"] == 1


IDLE = Durations(gone=60.0, away=30.0, present=1.0, rate=1.0, idle=1.5)  # rooms idle in 1.5 s


def test_rooms_no_student_uses_make_way_for_a_new_teacher_and_a_class_never_does(
    kind, request, monkeypatch
):
    """Five rooms from one school address, kept live by their sessions but never joined,
    once locked out every teacher of that school (and 200 such rooms every teacher)."""
    monkeypatch.setattr(room_store, "ROOMS_PER_ADDRESS", 3)
    store, advance = make_store(kind, request, IDLE)
    school = "203.0.113.7"
    idle = [store.create(school) for _ in range(2)]
    taught = store.create(school)  # a class with a student in it
    store.look(taught[0], "student")
    with pytest.raises(RoomError, match="already runs 3 classes"):
        store.create(school)  # all three are new: none has been idle yet
    advance(1.0)
    store.look(taught[0], "student")  # the class goes on
    for code, key in [*idle, taught]:
        store.show(code, key, {})  # every teacher's page is open: all are live
    advance(1.0)  # the two unjoined rooms have had no student for 2 s
    store.look(taught[0], "student")
    teacher = store.create(school)  # the school's teacher gets a room ...
    assert not store.exists(idle[0][0])  # ... in place of the longest idle one
    assert store.exists(idle[1][0]) and store.exists(taught[0]) and store.exists(teacher[0])
    store.create(school)  # and the next one in place of the other
    assert not store.exists(idle[1][0]) and store.exists(taught[0])
    with pytest.raises(RoomError, match="already runs 3 classes"):
        store.create(school)  # the class with a student is never ended for another


def test_forty_addresses_holding_five_rooms_each_keep_no_teacher_out(kind, request):
    """The attack of issue 45: 40 addresses hold 200 live rooms; a teacher from a new
    address and one from an attacker's address each get a room; 60 students behind one
    address all vote."""
    store, _ = make_store(kind, request)
    for a in range(40):
        for _ in range(5):
            store.create(f"198.51.100.{a}")
    fresh = store.create("192.0.2.1")
    behind_the_attacker = store.create("198.51.100.0")
    code, key = fresh
    store.ask(code, key, "q1", ANSWERS)
    for s in range(60):
        store.vote(code, "q1", f"student {s}", ANSWERS[s % 3], "203.0.113.50")
    assert sum(store.tally(code, "q1").values()) == 60
    assert store.exists(behind_the_attacker[0])


def test_the_in_process_store_holds_a_bounded_weight_ending_idle_rooms_first(monkeypatch):
    """Thousands of rooms, each with the largest figures, would hold gigabytes: the store
    counts what it holds and keeps it under MAX_STORE_BYTES, idle rooms ending first."""
    monkeypatch.setattr(room_store, "MAX_STORE_BYTES", 5 * room_store.MAX_CONTENT_CHARS)
    clock = Clock()
    store = MemoryRoomStore(IDLE, clock)
    big = "x" * room_store.MAX_CONTENT_CHARS
    rooms = [store.create() for _ in range(4)]
    for code, key in rooms:
        store.share(code, key, big)
    store.look(rooms[0][0], "student")  # one class is in use
    newest = store.create()
    with pytest.raises(RoomError, match="as much of its classes as it can"):
        store.share(*newest, big)  # nothing is idle yet: refused, the rest kept
    assert all(store.content(code) == big for code, _ in rooms)
    clock.now += 2.0
    store.look(rooms[0][0], "student")
    store.share(*newest, big)  # now the idle rooms make way, the longest idle first
    assert not store.exists(rooms[1][0]) and store.exists(rooms[0][0])
    assert store.held <= room_store.MAX_STORE_BYTES
    assert store.held == sum(room.weight() for room in store.rooms.values())


def test_what_the_store_counts_is_what_python_holds():
    """ENTRY_BYTES is an honest price: votes and students as held cost no more than it."""
    import tracemalloc

    store = MemoryRoomStore(Durations(), Clock())
    code, key = store.create()
    questions = [f"build_line_{k}" for k in range(40)]
    for question in questions:
        store.ask(code, key, question, ANSWERS)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    held = store.held
    for s in range(300):
        voter = f"b-{s:022d}"  # a voter's id as voter.py makes it: 24 characters
        store.look(code, voter)
        for question in questions[:10]:
            store.vote(code, question, voter, ANSWERS[s % 3], "203.0.113.9")
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown <= store.held - held, (grown, store.held - held)

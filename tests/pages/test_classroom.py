"""Classroom mode in AppTest: a teacher's session and students' sessions, in one process
sharing the in-process room store, as they do on one server.

AppTest does not run timers, so where a browser's polling fragment would rerun on its own
(every 0.5 s for the teacher, every second for a student), the test runs the session.
AppTest does not bind query parameters as a browser session does either: page switches
while following are tested through the protocol (tests/server/test_class_protocol.py).
"""

from __future__ import annotations

import json

import pytest
from helpers import NEURONS, TRAPS, decode, open_page
from redis import OutOfMemoryError

from ffn_ui.classroom import store as room_store
from ffn_ui.classroom.room import APPLIED, TEACHER, store
from ffn_ui.classroom.store import CODE_PATTERN, ClassConnectionError, NotTeacherError
from ffn_ui.classroom.teaching import network_address
from ffn_ui.classroom.votes import VOTED

pytestmark = pytest.mark.usefixtures("fresh_caches")
VERDICTS = ("Right", "Not this time", "The teacher revealed")


def start_class(page=NEURONS):
    """A teacher's session that has pressed "Start a class": (session, code, key)."""
    teacher = open_page(page)
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    assert not teacher.exception
    code, key = teacher.session_state[TEACHER]
    return teacher, code, key


def set_d_ff(at, value: int):
    at.sidebar.number_input(key="d_ff").set_value(value).run()
    assert not at.exception


def chart_specs(at) -> list[dict]:
    """The page's figures, as Plotly draws them."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def class_line(at) -> str:
    (line,) = [m.value for m in at.markdown if m.value.startswith("Class <span")]
    return line


def test_starting_a_class_shows_one_line_and_the_qr_code_on_request():
    teacher, code, key = start_class()
    assert CODE_PATTERN.fullmatch(code) and key not in str(teacher.query_params)
    line = class_line(teacher)
    site = f"{network_address()}:8501"  # AppTest's browser is at localhost: this machine only
    big = f'<span class="ffn-code">{code}</span>'  # the code in large type, to read aloud
    assert line == f"Class {big} · no students yet · join at `{site}`."
    (warning,) = [c.value for c in teacher.caption if "only this computer reaches" in c.value]
    assert "`localhost:8501`" in warning and f"`{site}`" in warning
    assert not teacher.get("image")  # the line alone, so a projector keeps the page
    teacher.toggle(key="class_qr").set_value(True).run()
    assert teacher.get("image")  # the QR code
    assert any(f"Class code: `{code}`" in m.value for m in teacher.markdown)
    assert any(f"`http://{site}/?room={code}`" in m.value for m in teacher.markdown)
    assert teacher.query_params["room"] == code  # the teacher's own link names the class
    version, view = store().view(code)
    assert version == 1 and view["page"] == "Neurons" and view["settings"]["d_ff"] == 16


def test_a_public_address_set_for_the_app_is_the_join_link(monkeypatch):
    monkeypatch.setenv("FFN_PUBLIC_URL", "https://ffn.example.org/")
    teacher, code, _ = start_class()
    assert class_line(teacher).endswith("join at `ffn.example.org`.")
    assert not [c for c in teacher.caption if "only this computer reaches" in c.value]
    teacher.toggle(key="class_qr").set_value(True).run()
    assert any(f"`https://ffn.example.org/?room={code}`" in m.value for m in teacher.markdown)


def test_the_teachers_line_counts_the_students_and_who_follows():
    teacher, code, _ = start_class()
    students = [open_page(None, {"room": code}) for _ in range(3)]
    students[2].sidebar.toggle(key="follow").set_value(False).run()
    teacher.run()
    assert "· 3 students, 2 following ·" in class_line(teacher)


def test_a_student_who_follows_gets_the_teachers_page_and_settings():
    teacher, code, _ = start_class()
    set_d_ff(teacher, 24)
    student = open_page(None, {"room": code})  # the join link opens Home
    assert not student.exception
    assert student.title[0].value.startswith("Neurons")  # the teacher's page
    assert student.session_state["d_ff"] == 24
    assert student.session_state[APPLIED] == (code, store().view(code)[0])
    set_d_ff(teacher, 32)
    student.run()  # what the student's polling fragment does when it sees update 3
    assert student.session_state["d_ff"] == 32
    assert any(f"Following the teacher in class `{code}`" in i.value for i in student.info)


@pytest.mark.parametrize("spelling", ["upper", "spaces", "bare"])
def test_a_student_types_the_code_as_it_is_read_out(spelling):
    teacher, code, _ = start_class()
    set_d_ff(teacher, 24)
    typed = {
        "upper": code.upper(),
        "spaces": " ".join(code.split("-")),
        "bare": code.replace("-", "").upper(),
    }[spelling]
    student = open_page(None)
    student.sidebar.text_input(key="room").input(typed).run()
    assert not student.exception
    assert student.session_state["room"] == code  # in its written form
    student.run()  # the catch-up reads the room before the page runs
    assert student.session_state["d_ff"] == 24


def test_a_link_with_the_code_in_another_spelling_joins_the_class():
    _, code, _ = start_class()
    student = open_page(None, {"room": code.replace("-", "").upper()})
    assert not student.exception and student.session_state["room"] == code
    assert student.title[0].value.startswith("Neurons")


def test_a_student_who_unfollows_explores_alone_and_catches_up_on_following_again():
    teacher, code, _ = start_class()
    student = open_page(NEURONS, {"room": code})
    student.sidebar.toggle(key="follow").set_value(False).run()
    set_d_ff(student, 8)
    set_d_ff(teacher, 40)
    student.run()
    assert student.session_state["d_ff"] == 8
    assert any("You are exploring alone" in c.value for c in student.caption)
    student.sidebar.toggle(key="follow").set_value(True).run()
    assert student.session_state["d_ff"] == 40


def test_a_students_own_display_and_guesses_are_not_followed():
    teacher, code, _ = start_class()
    teacher.sidebar.toggle(key="presenter").set_value(True).run()
    teacher.radio(key="guess_fire").set_value("fewer than a third").run()
    set_d_ff(teacher, 20)
    student = open_page(NEURONS, {"room": code})
    assert student.session_state["d_ff"] == 20
    assert not student.session_state["presenter"]
    assert student.session_state["guess_fire"] == "not sure yet"


def test_a_student_follows_the_teachers_edited_weights():
    """The Lesson preset edits the weights: a class sees the same model as the teacher."""
    teacher, code, _ = start_class()
    (lesson,) = [b for b in teacher.sidebar.button if b.label == "Lesson"]
    lesson.click().run()
    assert teacher.session_state["init"] == "hand-edited"
    teacher.run()  # its page's next publish (every 0.5 s) carries the weights it wrote
    student = open_page(None, {"room": code})
    assert not student.exception
    assert chart_specs(student) == chart_specs(teacher)  # the class view: the same figures
    student.sidebar.toggle(key="follow").set_value(False).run()  # the whole page, its own
    assert not student.exception
    for name in ("W1", "W2"):
        assert (
            student.session_state["hand_weights"][name].tolist()
            == teacher.session_state["hand_weights"][name].tolist()
        )
    assert student.session_state["edited_x"]["x"].tolist() == [[1.0, -1.0]]


def test_a_student_cannot_change_what_the_class_sees():
    _, code, _ = start_class()
    before = store().view(code)
    student = open_page(NEURONS, {"room": code})
    student.sidebar.toggle(key="follow").set_value(False).run()
    set_d_ff(student, 64)  # the student's own page changes ...
    assert store().view(code) == before  # ... the class's does not
    assert TEACHER not in student.session_state
    with pytest.raises(NotTeacherError):  # the teacher's message, replayed without the key
        store().show(code, "", {"page": "Backprop", "settings": {"d_ff": 64}})
    assert store().view(code) == before


@pytest.mark.parametrize(
    "code, note",
    [
        ("fhmrw-xy234-56789", "has ended, or its code is wrong"),  # well formed, no such class
        ("MPCvtCB6F5IpuWle", "has ended, or its code is wrong"),  # an earlier version's code
        ("k7m2-x9qp-4hzt", "has ended, or its code is wrong"),  # and one of another alphabet
        ("not-a-code!", "is not a class code"),
        ("**bold** [x](y)", "is not a class code"),
    ],
)
def test_an_unknown_or_malformed_class_code_gets_a_note_and_the_normal_app(code, note):
    at = open_page(NEURONS, {"room": code})
    assert not at.exception
    assert any(note in i.value for i in at.info)
    assert at.get("plotly_chart")  # the page as usual
    if "**" in code:  # quoted as literal text, never rendered
        assert any("`**bold** [x](y)`" in i.value for i in at.info)


def test_with_redis_a_lost_connection_is_said_and_the_class_recovers(redis_server, monkeypatch):
    monkeypatch.setenv("FFN_REDIS_URL", redis_server.url)
    store.forget()  # the store is made again, now on Redis
    teacher, code, _ = start_class()
    set_d_ff(teacher, 28)
    student = open_page(None, {"room": code})
    assert student.session_state["d_ff"] == 28
    redis_server.stop()
    try:
        student.run()
        assert not student.exception
        assert any("Class connection lost" in w.value for w in student.warning)
        assert student.get("plotly_chart")  # the student's own page works as usual
        set_d_ff(teacher, 36)  # the teacher's page too, with the same note
        assert any("Class connection lost" in w.value for w in teacher.warning)
    finally:
        redis_server.start()
    set_d_ff(teacher, 44)  # back: the next change reaches the class again
    student.run()
    assert student.session_state["d_ff"] == 44
    assert not [w for w in student.warning if "Class connection lost" in w.value]


def test_a_teacher_who_leaves_the_class_and_starts_again_gets_the_same_room():
    teacher, code, key = start_class()
    teacher.sidebar.text_input(key="room").set_value("").run()  # leaves: exploring alone
    assert not teacher.exception
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    assert teacher.session_state[TEACHER] == (code, key)  # one room per session
    assert teacher.session_state["room"] == code


def test_the_teacher_ends_the_class_and_each_students_page_says_so():
    teacher, code, _ = start_class()
    student = open_page(None, {"room": code})
    assert student.title[0].value.startswith("Neurons")
    (end,) = [b for b in teacher.sidebar.button if b.label == "End the class"]
    end.click().run()
    assert not teacher.exception
    assert teacher.session_state["room"] == "" and TEACHER not in teacher.session_state
    assert not store().exists(code)
    assert any(b.label == "Start a class" for b in teacher.sidebar.button)
    student.run()  # what the student's polling fragment does when the room has gone
    assert not student.exception
    ended = f"The class `{code}` has ended, or its code is wrong; the app works as usual."
    assert ended in [i.value for i in student.info]
    assert student.title[0].value.startswith("Neurons")  # the page goes on working


def test_ending_a_class_while_its_store_is_out_of_reach_keeps_it_and_says_so(monkeypatch):
    teacher, code, key = start_class()

    def lost(*_):
        raise ClassConnectionError("Class connection lost; the class waits for it.")

    monkeypatch.setattr(store(), "end", lost)
    (end,) = [b for b in teacher.sidebar.button if b.label == "End the class"]
    end.click().run()
    assert not teacher.exception
    assert teacher.session_state[TEACHER] == (code, key)  # still the teacher: press again
    assert any("press “End the class” again" in w.value for w in teacher.warning)
    monkeypatch.undo()
    (end,) = [b for b in teacher.sidebar.button if b.label == "End the class"]
    end.click().run()
    assert not store().exists(code) and TEACHER not in teacher.session_state


# --- votes and the reveal ------------------------------------------------------------


def question_id(at) -> str:
    """The one question id this session has answered."""
    (voted,) = at.session_state[VOTED]  # "code/question"
    return voted.split("/", 1)[1]


def class_chart(at) -> tuple[str, dict[str, float]]:
    """The teacher's live chart of the class's answers: its title, and answer -> students."""
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = spec["layout"].get("title", {}).get("text", "")
        if title.startswith("the class's answers"):
            (bar,) = spec["data"]  # horizontal: an answer per row
            return title, dict(zip(bar["y"], decode(bar["x"]).tolist(), strict=True))
    raise AssertionError("no chart of the class's answers")


def notes(at) -> str:
    return " | ".join(e.value for e in [*at.info, *at.success, *at.error, *at.warning])


def settled(at) -> bool:
    """Whether the Neurons page shows what settles its question: the share that fired."""
    return any(m.label == "activations that fired" for m in at.metric)


def answers_line(at) -> str:
    """The teacher's live line about the class's answers, before the reveal."""
    (line,) = [m.value for m in at.markdown if m.value.startswith("**The class's answers:**")]
    return line


def reveal(teacher) -> None:
    (button,) = [b for b in teacher.button if b.label == "Reveal to the class"]
    button.click().run()
    assert not teacher.exception


def test_a_students_answer_is_in_without_a_verdict_until_the_teacher_reveals():
    teacher, code, _ = start_class()
    student = open_page(None, {"room": code})
    student.radio(key="guess_fire").set_value("fewer than a third").run()
    text = notes(student)
    assert (
        "Your answer is in: `fewer than a third`. The teacher reveals the answer to the whole class"
        in text
    )
    assert not any(v in text for v in VERDICTS)
    assert not settled(student)  # nothing that settles it is drawn
    teacher.run()
    assert answers_line(teacher) == "**The class's answers:** 1 of 1 student answered, 0 not yet."
    assert not any(v in notes(teacher) for v in ("Right", "Revealed to the class"))
    assert not settled(teacher)


def test_the_teacher_sees_how_many_answered_not_what_until_the_reveal():
    teacher, code, _ = start_class()
    students = [open_page(None, {"room": code}) for _ in range(3)]
    teacher.run()
    assert "0 of 3 students answered, 3 not yet" in answers_line(teacher)  # not sure: none
    students[0].radio(key="guess_fire").set_value("fewer than a third").run()
    students[1].radio(key="guess_fire").set_value("about half").run()
    students[1].radio(key="guess_fire").set_value(
        "fewer than a third"
    ).run()  # a new guess replaces the last
    teacher.run()
    assert "2 of 3 students answered, 1 not yet" in answers_line(teacher)
    assert not [c for c in teacher.get("plotly_chart") if "the class's answers" in c.proto.spec]
    students[2].radio(key="guess_fire").set_value("about half").run()
    students[2].radio(key="guess_fire").set_value("not sure yet").run()  # takes it back
    reveal(teacher)
    title, counts = class_chart(teacher)
    assert counts == {
        "fewer than a third": 2,
        "about half (the answer)": 0,
        "more than two thirds": 0,
    }  # "not sure yet" is no answer
    assert "2 of 3 students answered, 1 not yet" in title
    charts = [json.loads(c.proto.spec) for c in teacher.get("plotly_chart")]
    (spec,) = [c for c in charts if "the class's answers" in str(c["layout"].get("title"))]
    assert spec["layout"]["xaxis"]["dtick"] == 1  # students are counted in whole numbers


def test_after_the_reveal_every_page_shows_the_answer_and_each_student_their_verdict():
    teacher, code, _ = start_class()
    right, wrong, silent = (open_page(None, {"room": code}) for _ in range(3))
    right.radio(key="guess_fire").set_value("about half").run()
    wrong.radio(key="guess_fire").set_value("fewer than a third").run()
    reveal(teacher)
    assert "Revealed to the class: the answer is about half." in notes(teacher)
    title, counts = class_chart(teacher)
    assert counts == {
        "fewer than a third": 1,
        "about half (the answer)": 1,
        "more than two thirds": 0,
    }
    assert title.endswith("; the answer is about half")
    assert settled(teacher) and not settled(silent)  # the projected page shows what settles it
    assert not [b for b in teacher.button if b.label == "Reveal to the class"]
    for student in (right, wrong, silent):
        student.run()  # what each student's poll does on seeing the reveal
        assert not student.exception
    assert "Right (you said about half)" in notes(right)
    assert "Not this time: you said fewer than a third, and the answer is about half." in notes(
        wrong
    )
    assert "The teacher revealed the answer: about half." in notes(silent)
    assert "You did not answer." in notes(silent)
    assert chart_specs(silent) == chart_specs(wrong) == chart_specs(teacher)  # what settles it
    assert silent.session_state["guess_fire"] == "not sure yet"  # its own guess untouched


def test_a_changed_setting_starts_a_new_count():
    teacher, code, _ = start_class()
    student = open_page(None, {"room": code})
    student.radio(key="guess_fire").set_value("fewer than a third").run()
    teacher.run()
    assert "1 of 1 student answered" in answers_line(teacher)
    set_d_ff(teacher, 24)  # the question is about this model: a new one, a new count
    student.run()
    teacher.run()
    assert "0 of 1 student answered" in answers_line(teacher)


def test_outside_a_class_a_guess_shows_its_verdict_at_once():
    at = open_page(NEURONS)
    at.radio(key="guess_fire").set_value("fewer than a third").run()
    assert "Not this time: the answer is about half." in notes(at)


def test_a_page_with_several_questions_works_for_the_teacher_while_a_class_runs():
    """Two questions with the same answers once drew two identical charts of the class's
    answers, and the page stopped on a duplicate element id."""
    teacher, _, _ = start_class(TRAPS)
    for label in [b.label for b in teacher.main.button if b.label != "Reveal to the class"]:
        (button,) = [b for b in teacher.main.button if b.label == label]
        button.click().run()
        assert not teacher.exception, label
    reveals = [b for b in teacher.button if b.label == "Reveal to the class"]
    assert len(reveals) == 3  # one per question on the page
    reveals[0].click().run()
    assert not teacher.exception
    assert len([b for b in teacher.button if b.label == "Reveal to the class"]) == 2


def test_a_flood_of_guesses_from_one_student_is_refused_on_their_page():
    _, code, _ = start_class()
    student = open_page(None, {"room": code})
    answers = ["fewer than a third", "about half"]
    refused = []
    for k in range(25):
        student.radio(key="guess_fire").set_value(answers[k % 2]).run()
        refused.append(any("Too many votes in a minute" in w.value for w in student.warning))
    limit = room_store.VOTES_PER_MINUTE
    assert refused[:limit] == [False] * limit
    assert refused[limit] and not student.exception
    assert sum(store().tally(code, question_id(student)).values()) == 1  # counted once


def test_a_view_naming_the_apps_own_keys_changes_only_settings():
    """Even a view written to the room some other way sets only controls' settings."""
    _, code, key = start_class()
    planted = {
        "d_ff": 12,
        TEACHER: ["x", "y"],
        "bound_params": {},
        "guess_fire": "fewer than a third",
    }
    store().show(code, key, {"page": "Neurons", "settings": planted})
    student = open_page(NEURONS, {"room": code})
    assert student.session_state["d_ff"] == 12
    assert TEACHER not in student.session_state
    assert student.session_state["guess_fire"] == "not sure yet"
    assert not student.exception


def test_a_student_who_joins_the_teachers_next_class_follows_and_votes_in_it():
    """A new class counts its versions and votes from the start: a student who followed
    the last one once stayed behind until the new one had had as many changes, and their
    vote on the same question was taken as already sent."""
    teacher, code, _ = start_class()
    student = open_page(None, {"room": code})
    for d_ff in (20, 24, 28, 32):
        set_d_ff(teacher, d_ff)
        student.run()
    student.radio(key="guess_fire").set_value("fewer than a third").run()
    (end,) = [b for b in teacher.sidebar.button if b.label == "End the class"]
    end.click().run()
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    new_code = teacher.session_state[TEACHER][0]
    student.sidebar.text_input(key="room").input(new_code).run()
    teacher.toggle(key="sort").set_value(True).run()  # the new class's update 2
    student.run()
    assert student.session_state["sort"] is True
    assert (
        student.session_state["guess_fire"] == "fewer than a third"
    )  # the same question and answer
    teacher.run()
    assert "1 of 1 student answered" in answers_line(teacher)


def fill(redis) -> None:
    """Fill Redis past its maxmemory, as a busy or attacked server would be: writes are then
    refused with OOM (noeviction), reads still answer."""
    for k in range(100):
        redis.set(f"junk:{k}", "x" * 10_000)
    used = int(redis.info("memory")["used_memory"])
    redis.config_set("maxmemory-policy", "noeviction")
    redis.config_set("maxmemory", str(used // 2))  # what is held stays; nothing more fits
    with pytest.raises(OutOfMemoryError):
        redis.set("junk:last", "x")


def test_with_redis_full_every_page_of_the_class_says_so_and_goes_on(redis_server, monkeypatch):
    """A full Redis refuses every write, scripts included: the teacher's and the student's
    pages show a note, not an exception, the student still sees the class, and both work
    again once Redis has room."""
    monkeypatch.setenv("FFN_REDIS_URL", redis_server.url)
    store.forget()  # the store is made again, now on Redis
    teacher, code, _ = start_class()
    set_d_ff(teacher, 28)
    student = open_page(None, {"room": code})
    redis = store().redis
    fill(redis)
    try:
        student.run()
        assert not student.exception
        assert student.session_state["d_ff"] == 28  # the read path still shows the class
        assert student.get("plotly_chart")
        set_d_ff(teacher, 36)
        assert any("store is full" in w.value for w in teacher.warning)
        other = open_page()  # a new teacher: Start a class says the store is full
        (start,) = [b for b in other.sidebar.button if b.label == "Start a class"]
        start.click().run()
        assert not other.exception
        assert any("store is full" in m.value for m in [*other.warning, *other.error])
    finally:
        redis.config_set("maxmemory", "0")
        redis.delete(*redis.keys("junk:*"))
    set_d_ff(teacher, 44)
    student.run()
    assert student.session_state["d_ff"] == 44

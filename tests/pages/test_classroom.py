"""Classroom mode in AppTest: a teacher's session and students' sessions, in one process
sharing the in-process room store, as they do on one server.

AppTest does not run timers, so where a browser's polling fragment would rerun on its own
(every 0.5 s for the teacher, every second for a student), the test runs the session.
"""

from __future__ import annotations

import json

import pytest
import streamlit as st
from helpers import NEURONS, decode, open_page

from ffn_ui import room_store
from ffn_ui.class_votes import VOTED
from ffn_ui.classroom import APPLIED, TEACHER, store
from ffn_ui.room_store import ClassConnectionError, NotTeacherError

pytestmark = pytest.mark.usefixtures("fresh_caches")


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


def test_starting_a_class_shows_the_join_link_and_a_qr_code():
    teacher, code, key = start_class()
    assert len(code) == 16 and len(key) >= 32 and key not in str(teacher.query_params)
    (panel,) = [e for e in teacher.main.expander if e.label.startswith("Class")]
    assert code in panel.label and f"/?room={code}" in panel.label
    assert panel.get("image")  # the QR code
    assert teacher.query_params["room"] == code  # the teacher's own link names the class
    version, view = store().view(code)
    assert version == 1 and view["page"] == "Neurons" and view["settings"]["d_ff"] == 16


def test_a_student_who_follows_gets_the_teachers_page_and_settings():
    teacher, code, _ = start_class()
    set_d_ff(teacher, 24)
    student = open_page(None, {"room": code})  # the join link opens Home
    assert not student.exception
    assert student.title[0].value.startswith("Neurons")  # the teacher's page
    assert student.session_state["d_ff"] == 24
    assert student.session_state[APPLIED] == store().view(code)[0]
    set_d_ff(teacher, 32)
    student.run()  # what the student's polling fragment does when it sees update 3
    assert student.session_state["d_ff"] == 32
    assert any("the teacher is on Neurons" in c.value for c in student.caption)


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
    teacher.radio(key="guess_rows").set_value("no").run()
    set_d_ff(teacher, 20)
    student = open_page(NEURONS, {"room": code})
    assert student.session_state["d_ff"] == 20
    assert not student.session_state["presenter"]
    assert student.session_state["guess_rows"] == "not sure yet"


def test_a_student_cannot_change_what_the_class_sees():
    _, code, _ = start_class()
    before = store().view(code)
    student = open_page(NEURONS, {"room": code})
    set_d_ff(student, 64)  # the student's own page changes ...
    assert store().view(code) == before  # ... the class's does not
    assert TEACHER not in student.session_state
    with pytest.raises(NotTeacherError):  # the teacher's message, replayed without the key
        store().show(code, "", {"page": "Backprop", "settings": {"d_ff": 64}})
    assert store().view(code) == before


@pytest.mark.parametrize(
    "code, note",
    [
        ("A" * 16, "has ended, or its code is wrong"),  # well formed, no such class
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
    st.cache_resource.clear()  # the store is made again, now on Redis
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
    (end,) = [b for b in teacher.button if b.label == "End the class"]
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
    (end,) = [b for b in teacher.button if b.label == "End the class"]
    end.click().run()
    assert not teacher.exception
    assert teacher.session_state[TEACHER] == (code, key)  # still the teacher: press again
    assert any("press “End the class” again" in w.value for w in teacher.warning)
    monkeypatch.undo()
    (end,) = [b for b in teacher.button if b.label == "End the class"]
    end.click().run()
    assert not store().exists(code) and TEACHER not in teacher.session_state


def question_digest(at) -> str:
    """The digest part of the one question id this session has answered."""
    (qid,) = at.session_state[VOTED]
    return qid.split(":")[1]


def class_chart(at) -> dict[str, float]:
    """The teacher's live chart of the class's answers: answer -> students."""
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        if spec["layout"].get("title", {}).get("text", "").startswith("the class's answers"):
            (bar,) = spec["data"]
            return dict(zip(bar["x"], decode(bar["y"]).tolist(), strict=True))
    raise AssertionError("no chart of the class's answers")


def test_the_class_votes_the_teacher_sees_the_count_and_reveals_the_answer():
    teacher, code, _ = start_class()
    students = [open_page(None, {"room": code}) for _ in range(3)]  # each counts as not sure
    teacher.run()
    assert class_chart(teacher) == {"not sure yet": 3, "yes, exactly": 0, "no": 0}
    charts = [json.loads(c.proto.spec) for c in teacher.get("plotly_chart")]
    (spec,) = [c for c in charts if "the class's answers" in str(c["layout"].get("title"))]
    assert spec["layout"]["yaxis"]["dtick"] == 1  # students are counted in whole numbers
    students[0].radio(key="guess_rows").set_value("no").run()
    students[1].radio(key="guess_rows").set_value("yes, exactly").run()
    students[1].radio(key="guess_rows").set_value("no").run()  # a new guess replaces the last
    teacher.run()
    assert class_chart(teacher) == {"not sure yet": 1, "yes, exactly": 0, "no": 2}
    assert any("3 so far" in t.value for t in teacher.text)  # the figure in numbers says it
    (reveal,) = [b for b in teacher.button if b.label == "Reveal to the class"]
    reveal.click().run()
    students[2].run()  # what its poll does on seeing the reveal
    (note,) = [i.value for i in students[2].info if "The teacher revealed" in i.value]
    assert note.startswith("The teacher revealed the answer: yes, exactly.")
    assert students[2].session_state["guess_rows"] == "not sure yet"  # its own guess untouched


def test_a_changed_setting_starts_a_new_count():
    teacher, code, _ = start_class()
    student = open_page(None, {"room": code})
    student.radio(key="guess_rows").set_value("no").run()
    teacher.run()
    assert class_chart(teacher)["no"] == 1
    set_d_ff(teacher, 24)  # the question is about this model: a new one, a new count
    student.run()
    teacher.run()
    assert class_chart(teacher) == {"not sure yet": 1, "yes, exactly": 0, "no": 0}


def test_a_flood_of_guesses_from_one_student_is_refused_on_their_page():
    _, code, _ = start_class()
    student = open_page(None, {"room": code})
    answers = ["no", "yes, exactly"]
    refused = []
    for k in range(25):
        student.radio(key="guess_rows").set_value(answers[k % 2]).run()
        refused.append(any("Too many votes in a minute" in w.value for w in student.warning))
    limit = room_store.VOTES_PER_MINUTE  # the first vote was "not sure yet", as the page opened
    assert refused[: limit - 1] == [False] * (limit - 1)
    assert refused[limit - 1] and not student.exception
    teacher_counts = store().tally(code, "guess_rows:" + question_digest(student))
    assert sum(teacher_counts.values()) == 1  # one student, counted once


def test_a_view_naming_the_apps_own_keys_changes_only_settings():
    """Even a view written to the room some other way sets only controls' settings."""
    _, code, key = start_class()
    planted = {"d_ff": 12, TEACHER: ["x", "y"], "bound_params": {}, "guess_rows": "no"}
    store().show(code, key, {"page": "Neurons", "settings": planted})
    student = open_page(NEURONS, {"room": code})
    assert student.session_state["d_ff"] == 12
    assert TEACHER not in student.session_state
    assert student.session_state["guess_rows"] == "not sure yet"
    assert not student.exception

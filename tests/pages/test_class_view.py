"""The class view in AppTest: a following student's page draws the teacher's heading,
figures and questions, from what the teacher's page recorded, and none of the page's own
controls; unticking "Follow the teacher" brings the whole page back at the teacher's
settings. Pages without figures, and Build it, are followed as whole pages.
"""

from __future__ import annotations

import json

import pytest
from helpers import ACTIVATIONS, BUILD_IT, GLOSSARY, NEURONS, TRAPS, open_page

from ffn_ui.classroom import class_view
from ffn_ui.classroom import store as room_store
from ffn_ui.classroom.recording import digest_of
from ffn_ui.classroom.room import TEACHER, VIEWED, store
from ffn_ui.page.display import IN_NUMBERS

pytestmark = pytest.mark.usefixtures("fresh_caches")
BANNER = VIEWED


def start_class(page=NEURONS):
    teacher = open_page(page)
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    assert not teacher.exception
    return teacher, teacher.session_state[TEACHER][0]


def specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def viewing(at) -> bool:
    return any(BANNER in i.value for i in at.info)


def toy_controls(at) -> list[str]:
    return [n.key for n in at.sidebar.number_input]


def test_a_follower_sees_the_teachers_figures_and_question_and_no_page_controls():
    teacher, code = start_class()
    teacher.sidebar.number_input(key="d_ff").set_value(24).run()
    student = open_page(None, {"room": code})
    assert not student.exception and viewing(student)
    assert student.title[0].value == teacher.title[0].value
    assert specs(student) == specs(teacher)  # the teacher's figures, at d_ff 24
    assert toy_controls(student) == []  # the sidebar's model is the teacher's to set
    asked = [r.key for r in teacher.radio if r.key.startswith("guess")]
    assert [r.key for r in student.radio] == asked  # the question, and no page control
    assert student.sidebar.toggle(key="follow").value  # and the way out
    words = [t.value.removeprefix(IN_NUMBERS) for t in teacher.text]
    assert [c.proto.alt for c in student.get("plotly_chart")] == words  # each chart's name
    (shown,) = [t.value for t in student.text]  # and all of them, at the end
    titles = [s["layout"].get("title", {}).get("text") for s in specs(teacher)]
    named = [f"Figure {k}" + (f", {t}" if t else "") for k, t in enumerate(titles, 1)]
    assert shown == "\n\n".join(f"{n}: {w}" for n, w in zip(named, words, strict=True))


def test_the_followers_figures_change_with_the_teachers_settings():
    teacher, code = start_class()
    student = open_page(None, {"room": code})
    before = specs(student)
    teacher.sidebar.number_input(key="d_ff").set_value(32).run()
    student.run()  # what the student's poll does on seeing the new version
    assert specs(student) == specs(teacher) != before


def test_unticking_follow_brings_the_whole_page_at_the_teachers_settings():
    teacher, code = start_class()
    teacher.sidebar.number_input(key="d_ff").set_value(40).run()
    student = open_page(None, {"room": code})
    student.sidebar.toggle(key="follow").set_value(False).run()
    assert not student.exception and not viewing(student)
    assert student.sidebar.number_input(key="d_ff").value == 40
    assert specs(student) == specs(teacher)  # the same page, run in the student's session


@pytest.mark.parametrize("page", [BUILD_IT, GLOSSARY])
def test_a_page_of_ones_own_work_or_without_figures_is_followed_whole(page):
    _, code = start_class(page)
    student = open_page(None, {"room": code})
    assert not student.exception and not viewing(student)
    assert "d_ff" in toy_controls(student)  # the page's own frame, at the teacher's settings
    if page == BUILD_IT:
        assert student.text_input  # the lines are each student's to write


def test_traps_keeps_one_form_in_a_class_the_class_view_from_the_start():
    """Traps was once followed whole before its first reveal (a student who pressed
    "square" got another question than the class's) and as the class view after it. With
    a figure of its own it is the class view throughout: the teacher's question, and no
    D, H or preset of the student's own."""
    teacher, code = start_class(TRAPS)
    student = open_page(None, {"room": code})
    assert not student.exception and viewing(student)
    asked = [r.label for r in teacher.radio if r.key.startswith("guess")]
    assert [r.label for r in student.radio] == asked
    assert not [b for b in student.main.button if b.label != "Reveal to the class"]
    assert not student.main.number_input


def test_figures_too_long_to_send_leave_the_class_on_the_whole_page(monkeypatch):
    monkeypatch.setattr(room_store, "MAX_CONTENT_CHARS", 1000)
    teacher, code = start_class()
    assert store().content(code) == ""  # refused, and said by no version naming it
    student = open_page(None, {"room": code})
    assert not student.exception and not viewing(student)
    assert specs(student) == specs(teacher)


def test_a_students_presenter_mode_sizes_their_figures_alone():
    teacher, code = start_class()
    big = open_page(None, {"room": code})
    big.sidebar.toggle(key="presenter").set_value(True).run()
    plain = open_page(None, {"room": code})
    assert viewing(big) and viewing(plain)
    assert {s["layout"].get("font", {}).get("size") for s in specs(big)} == {20}
    assert specs(plain) == specs(teacher)  # the figures the process keeps were not restyled


def test_a_process_makes_each_version_once_and_refuses_one_it_does_not_hold(monkeypatch):
    _, code = start_class()
    made = []
    monkeypatch.setattr(class_view, "Content", lambda text: made.append(text) or text)
    class_view._kept.clear()
    digest = store().view(code)[1]["content"]
    assert class_view.parsed(code, digest) is class_view.parsed(code, digest)
    assert len(made) == 1
    assert class_view.parsed(code, "0" * 16) is None  # not the room's: no figures drawn


def in_order(at, kind: str) -> list[str]:
    """The page's main elements of one kind, in order."""
    return [e.value for e in getattr(at.main, kind)]


def test_a_follower_s_page_says_every_heading_caption_and_metric_the_teacher_s_does():
    """Students once saw unlabelled charts: the class view drew the figures alone. It now
    says what the teacher's page says, in order: its headings, sentences, captions,
    metrics and notes (and not the class's own lines)."""
    teacher, code = start_class(None)  # Home: headings, sentences, captions, a metric
    student = open_page(None, {"room": code})
    assert viewing(student)
    for kind in ("header", "subheader", "metric"):
        assert in_order(student, kind) == in_order(teacher, kind), kind
    class_notes = ("ffn-code", "only this computer reaches")  # the teacher's own, not the page's
    taught = [c for c in in_order(teacher, "caption") if not any(n in c for n in class_notes)]
    assert taught and in_order(student, "caption")[-len(taught) :] == taught
    assert [m.label for m in student.metric] == [m.label for m in teacher.metric]
    own = ("Class <span", "**The class's answers:**")  # the teacher's class line and count
    sentences = [m for m in in_order(teacher, "markdown") if not m.startswith(own)]
    assert sentences and all(m in in_order(student, "markdown") for m in sentences)


def test_other_classes_changing_page_do_not_push_a_class_out_of_the_process():
    """The process once kept 32 versions across all classes: another class's changes
    pushed a class's figures out, and each of its followers made them again (0.07-0.17 s
    apiece on Backprop). It keeps the newest version of each room."""
    _, code = start_class()
    digest = store().view(code)[1]["content"]
    kept = class_view.parsed(code, digest)
    others = [store().create() for _ in range(3)]
    for k in range(2 * class_view.KEPT):  # 64 versions of three other classes
        other, key = others[k % 3]
        text = json.dumps({"heading": f"Page {k}", "items": []})
        store().share(other, key, text)
        assert class_view.parsed(other, digest_of(text)) is not None
    assert class_view.parsed(code, digest) is kept  # not made again


def test_a_revealed_answer_waits_on_a_follower_page_until_the_teacher_draws_it():
    """Between the teacher's reveal and their page's next share, a follower knows the
    answer was revealed but the view has no answer yet: it says so, never a blank."""
    teacher, code = start_class()
    student = open_page(None, {"room": code})
    student.radio(key="guess_fire").set_value("about half").run()
    qid = next(iter(student.session_state["class_voted"])).split("/", 1)[1]
    store().reveal(code, teacher.session_state[TEACHER][1], qid)  # the teacher's page not rerun
    student.run()
    assert not student.exception
    assert any(class_view.WAITING in i.value for i in student.info)


def test_content_the_view_cannot_read_leaves_the_class_on_the_whole_page():
    """A record in another form (a server of another release sharing the Redis, say) is
    never an exception on every student's page: they follow the whole page."""
    teacher, code = start_class()
    key = teacher.session_state[TEACHER][1]
    _, view = store().view(code)
    malformed = [
        '{"heading": "x"}',
        '{"heading": "x", "items": [{"figure": "{\\"data\\": 3}", "alt": ""}]}',
        '{"heading": "x", "items": [{"figure": "{\\"data\\": []}", "alt": "a figure"}, '
        '{"question": {"key": "guess_home"}}]}',
    ]
    for text in malformed:
        store().share(code, key, text)
        store().show(code, key, {**view, "content": digest_of(text)})
        student = open_page(None, {"room": code})
        assert not student.exception and not viewing(student), text
        assert "d_ff" in toy_controls(student)


@pytest.mark.parametrize("page", [ACTIVATIONS, TRAPS])
def test_a_follower_reads_no_label_of_buttons_they_do_not_have(page):
    """The teacher's "Presets" caption names buttons a following student is not given: the
    record leaves it out, and the teacher still reads it."""
    teacher, code = start_class(page)
    assert "Presets" in [c.value for c in teacher.caption]
    student = open_page(page, {"room": code})
    assert not student.exception and viewing(student)
    assert "Presets" not in [c.value for c in student.caption]

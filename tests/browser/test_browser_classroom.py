"""In Chromium: a class walks the whole learning path with its teacher.

A teacher at a projector (1024 x 768, presenter mode) and two students, each in a browser
of their own: one student opens the join link on a phone, the other types the code as it
is read out (lower case, spaces for dashes). The teacher goes through the path by the
sidebar menu, closing it on each page, where the class takes one line and the page's
first figure is on the screen, and answers every question of each page; then goes back
into the path by Home's path link and on by "Next:" links. After each change each
student shows the teacher's page, with no exception. On Home the class votes: no student
sees a verdict before the teacher reveals; the teacher's chart counts exactly their
guesses; after the reveal every page shows the answer. A student who unticks "Follow the
teacher" keeps their own page; the teacher shows the join QR code; when the teacher ends
the class, every page says so and goes on working.

What a server does in a class (every button and every question of every page pressed
while the class follows, every question's count, the follow of every control) is checked
through the protocol in tests/server/test_class_protocol.py; this walk checks what a
person sees and clicks.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from browser import (
    EXPECT_TIMEOUT,
    PHONE,
    PROJECTOR,
    TITLE,
    close_sidebar,
    first_screen_holds_the_first_figure,
    menu_label,
    no_exception,
    open_page,
    open_sidebar,
    screenshot,
    sidebar_links,
    start_class,
)
from playwright.sync_api import expect

from ffn_ui.page.path import STEPS
from harness.protocol import Visitor

QUESTION = '[data-testid="stRadio"]:has(label:has-text("not sure yet"))'
VERDICT = re.compile(r"^(Right \(you said|Not this time)")
FOLLOW_MS = 10_000  # how soon is measured in benchmarks/ and the protocol tests
# "Next:" links the teacher follows from Key–value memory, past a page whose link waits for
# its question (Collapse); the protocol class follows every page's (test_class_protocol.py).
NEXT_LINKS = 4
RERUNS: dict[int, object] = {}  # each student's page's Reruns, by id(page)


def title(page) -> str:
    return page.locator(TITLE).first.inner_text()


def follows(students, teacher) -> None:
    """Every student who follows shows the teacher's page, and no page an exception."""
    wanted = title(teacher)
    for student in students:
        try:
            expect(student.locator(TITLE).first).to_have_text(wanted, timeout=FOLLOW_MS)
        except AssertionError as err:
            raise AssertionError(f"{err}\n{what_it_did(student)}") from None
        no_exception(student)
    no_exception(teacher)


def what_it_did(page) -> str:
    """Where a page is, and its last websocket messages: what a failure is read from."""
    shot = screenshot(page, "class-student-that-did-not-follow", whole=False, always=True)
    frames = "\n".join(RERUNS[id(page)].frames) if id(page) in RERUNS else "(not recorded)"
    return f"address {page.url}; screenshot {shot}\nits websocket, last messages:\n{frames}"


def act(teacher, reruns, students, click) -> None:
    """Click something on the teacher's page, wait for the run it asked for (a control
    inside a fragment reruns only that), then check the class."""
    pages, answered = reruns.pages, reruns.answered
    click()
    with contextlib.suppress(TimeoutError):  # a click that asks for no run (an expander)
        reruns.wait_for_answer(answered, teacher, timeout=5)
    if reruns.pages > pages:
        reruns.wait_for_page_run(pages, teacher)  # and drawn
    follows(students, teacher)


def answer_every_question(teacher, reruns, students) -> None:
    """The teacher answers each question of the page, as it is drawn (the question after a
    question may appear only once the first is answered)."""
    k = 0
    while k < teacher.locator(QUESTION).count():
        question = teacher.locator(QUESTION).nth(k)
        act(teacher, reruns, students, question.locator("label").nth(2).click)
        k += 1


def menu_link(teacher, label: str):
    """The sidebar menu's link to a page, the sidebar opened first if presenter mode has
    closed it, as a teacher at a projector does."""
    open_sidebar(teacher)
    (link,) = [a for a in sidebar_links(teacher) if menu_label(a) == label]
    return link


def on_the_projector(teacher, name: str) -> None:
    """The teacher closes the sidebar if it is open: at 1024 x 768 in presenter mode the
    class takes one line, and the page's first figure (or the question it waits for) is on
    the first screen."""
    close_sidebar(teacher)
    expect(teacher.get_by_text("2 students, 2 following")).to_be_visible()  # the class's line
    screenshot(teacher, f"class-teacher-projector-{name}", whole=False)
    if name != "Glossary":  # the one page with neither a figure nor a question
        assert first_screen_holds_the_first_figure(teacher, PROJECTOR["height"]), name


@pytest.mark.long
def test_a_class_walks_the_whole_path_with_its_teacher_at_a_projector(server, browser):
    with Visitor(server.port) as warm:  # the models load once per process (2-4 s each):
        for heavy in ("Real_model", "Language_model"):  # a follower is timed on the page
            assert not warm.open(heavy).exceptions
    teacher, reruns = open_page(browser, server.url, charts=None, viewport=PROJECTOR)
    code, link = start_class(teacher)
    by_link, RERUNS[id(by_link)] = open_page(browser, link, None, viewport=PHONE, own=True)
    typist, RERUNS[id(typist)] = open_page(browser, server.url, None, own=True)
    box = typist.get_by_role("textbox", name="class code", exact=True)
    box.fill(" ".join(code.split("-")))  # as read out: lower case, spaces between groups
    box.press("Enter")
    students = [by_link, typist]
    follows(students, teacher)
    expect(teacher.get_by_text("2 students, 2 following")).to_be_visible(timeout=FOLLOW_MS)
    act(teacher, reruns, students, teacher.get_by_text("Presenter mode").click)  # their own
    on_the_projector(teacher, "Home")

    vote_on_home(teacher, reruns, students)

    for step in STEPS[1:]:  # the path by the sidebar menu
        act(teacher, reruns, students, menu_link(teacher, step.label).click)
        on_the_projector(teacher, step.page.split("/")[-1].removesuffix(".py"))
        answer_every_question(teacher, reruns, students)
    act(teacher, reruns, students, menu_link(teacher, "Home").click)
    first = teacher.locator('[data-testid="stPageLink-NavLink"]', has_text="Key–value memory:")
    act(teacher, reruns, students, first.first.click)
    for _ in range(NEXT_LINKS):
        nexts = teacher.locator('[data-testid="stPageLink-NavLink"]', has_text="Next:")
        if not nexts.count():  # a page that waits for its question: in a class, the reveal
            act(
                teacher,
                reruns,
                students,
                teacher.get_by_role("button", name="Reveal to the class")
                .filter(visible=True)
                .first.click,
            )
        act(teacher, reruns, students, nexts.first.click)

    step_away_and_end(teacher, reruns, students, code)


def vote_on_home(teacher, reruns, students) -> None:
    """The class answers Home's question; the answer waits for the teacher's reveal."""
    guesses = ["neuron 1", "neither"]
    for student, guess in zip(students, guesses, strict=True):
        question = student.locator(QUESTION).first
        for attempt in range(3):  # a click landing while the page redraws is lost: again
            question.get_by_text(guess, exact=True).click()
            try:
                expect(student.get_by_text(f"Your answer is in: {guess}.")).to_be_visible(
                    timeout=EXPECT_TIMEOUT // 2
                )
                break
            except AssertionError:
                if attempt == 2:
                    raise
        expect(student.get_by_text(VERDICT)).to_have_count(0)
    expect(
        teacher.get_by_text("The class's answers: 2 of 2 students answered, 0 not yet.")
    ).to_be_visible(timeout=FOLLOW_MS)
    screenshot(students[0], "class-student-before-reveal-phone")
    screenshot(students[1], "class-student-before-reveal-desktop")
    act(teacher, reruns, students, teacher.get_by_role("button", name="Reveal to the class").click)
    expect(teacher.get_by_text("Revealed to the class: the answer is neither.")).to_be_visible()
    counted = teacher.locator('[data-testid="stText"]', has_text="the class's answers")
    expect(counted).to_contain_text(
        "2 of 2 students answered, 0 not yet; the answer is neither. Bars: neuron 1 (1), "
        "neuron 2 (0), both (0), neither (the answer) (1).",
    )
    expect(students[0].get_by_text("Not this time: you said neuron 1")).to_be_visible(
        timeout=FOLLOW_MS
    )
    expect(students[1].get_by_text("Right (you said neither)")).to_be_visible(timeout=FOLLOW_MS)
    screenshot(students[0], "class-student-after-reveal-phone")
    screenshot(students[1], "class-student-after-reveal-desktop")


def step_away_and_end(teacher, reruns, students, code: str) -> None:
    """A student who unticks "Follow the teacher" stays; ending the class ends it for all."""
    alone = students[1]
    alone.get_by_text("Follow the teacher", exact=True).click()
    expect(alone.get_by_text("You are exploring alone")).to_be_visible(timeout=FOLLOW_MS)
    stayed = title(alone)
    act(teacher, reruns, students[:1], menu_link(teacher, "Home").click)
    alone.wait_for_timeout(2_000)  # two of its polls
    assert title(alone) == stayed
    alone.get_by_text("Follow the teacher", exact=True).click()
    expect(alone.locator(TITLE).first).to_have_text(title(teacher), timeout=FOLLOW_MS)

    act(teacher, reruns, [], teacher.get_by_text("QR code", exact=True).click)
    expect(teacher.locator('[data-testid="stImage"]')).to_have_count(1, timeout=FOLLOW_MS)
    act(teacher, reruns, [], teacher.get_by_role("button", name="End the class").click)
    expect(teacher.get_by_role("button", name="Start a class")).to_be_visible(timeout=FOLLOW_MS)
    for student in students:  # their polls find the class gone; their pages go on
        expect(student.get_by_text(f"The class {code} has ended")).to_be_visible(timeout=FOLLOW_MS)
    for page in (teacher, *students):
        no_exception(page)
        page.close()

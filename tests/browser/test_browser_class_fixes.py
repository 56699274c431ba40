"""In Chromium, what a teacher and a student met in a class (issue 47), each replayed as
people click it: the join address of a teacher at localhost, one tick to follow again, a
new page that starts at its top, and the teacher's words on the student's page. The
server's side of each is checked through the protocol (tests/server/test_class_protocol.py)."""

from __future__ import annotations

from browser import (
    CHART_COUNTS,
    EXPECT_TIMEOUT,
    PAGES,
    PROJECTOR,
    TITLE,
    go_to,
    no_exception,
    open_page,
    open_sidebar,
    pick,
    press,
    screenshot,
    settled,
    start_class,
)
from playwright.sync_api import expect

MAIN_SCROLL = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"
SCROLLABLE = """() => { const m = document.querySelector('[data-testid="stMain"]');
    return m.scrollHeight > m.clientHeight + 200; }"""


def title(page) -> str:
    return page.locator(TITLE).first.inner_text()


def test_a_teacher_at_localhost_is_told_the_address_students_can_open(server, browser):
    """The app opened at 127.0.0.1, as `streamlit run` suggests: the class line names this
    machine's network address instead, says why, and the QR panel's link is the same."""
    teacher, _ = open_page(browser, server.url, CHART_COUNTS["home"])
    start_class(teacher)
    warning = teacher.get_by_text("only this computer reaches")
    expect(warning).to_be_visible(timeout=EXPECT_TIMEOUT)
    said = warning.inner_text()
    assert "127.0.0.1" in said and "network address" in said
    teacher.get_by_text("QR code", exact=True).click()
    link = teacher.get_by_text("/?room=").first
    expect(link).to_be_visible(timeout=EXPECT_TIMEOUT)
    assert "127.0.0.1" not in link.inner_text()
    code = teacher.locator(".ffn-code").first  # the code in large type, to read aloud
    assert float(code.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 20
    no_exception(teacher)


def test_a_follower_s_new_page_starts_at_its_top_and_one_tick_follows_again(server, browser):
    teacher, teacher_runs = open_page(browser, server.url, CHART_COUNTS["home"])
    _, link = start_class(teacher)
    student, student_runs = open_page(browser, link, None, viewport=PROJECTOR, own=True)
    expect(student.locator(TITLE).first).to_have_text(title(teacher), timeout=EXPECT_TIMEOUT)
    assert settled(student, lambda: student.evaluate(SCROLLABLE), True)  # all of it drawn
    student.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 2000)")
    assert student.evaluate(MAIN_SCROLL) > 0  # scrolled down, to vote, say
    go_to(teacher, teacher_runs, "Neurons")
    expect(student.locator(TITLE).first).to_have_text(title(teacher), timeout=EXPECT_TIMEOUT)
    assert settled(student, lambda: student.evaluate(MAIN_SCROLL), 0) == 0  # at its top
    expect(student.get_by_text("Following the teacher in class")).to_be_in_viewport()

    open_sidebar(student)
    follow = student.get_by_text("Follow the teacher", exact=True)
    before = student_runs.finished
    follow.click()  # untick: the student explores alone
    student_runs.wait_for_more_than(before, student)
    go_to(student, student_runs, "Collapse")
    expect(student.locator(TITLE).first).to_contain_text("Collapse", timeout=EXPECT_TIMEOUT)
    open_sidebar(student)
    before = student_runs.finished
    student.get_by_text("Follow the teacher", exact=True).click()  # one tick
    student_runs.wait_for_more_than(before, student)
    expect(student.locator(TITLE).first).to_have_text(title(teacher), timeout=EXPECT_TIMEOUT)
    toggle = student.get_by_role("switch", name="Follow the teacher")
    student.wait_for_timeout(2000)  # the student's poll has run again: still ticked
    expect(toggle).to_be_checked()
    assert "follow=false" not in student.url
    screenshot(student, "class-student-followed-again", whole=False)
    no_exception(student)
    no_exception(teacher)


def test_a_student_s_page_says_what_the_teacher_s_page_says(server, browser):
    """The class view once drew the figures alone: now the teacher's headings, sentences,
    captions and metrics are there too, in order."""
    teacher, _ = open_page(browser, server.url, CHART_COUNTS["home"])
    _, link = start_class(teacher)
    student, _ = open_page(browser, link, None, viewport=PROJECTOR, own=True)
    expect(student.get_by_text("Following the teacher in class")).to_be_visible(
        timeout=EXPECT_TIMEOUT
    )
    for heading in ("Start here",):
        expect(student.get_by_role("heading", name=heading)).to_be_visible()
    metric = student.locator('[data-testid="stMetricValue"]').first
    expect(metric).to_have_text(teacher.locator('[data-testid="stMetricValue"]').first.inner_text())
    expect(student.get_by_text("Why: what this figure shows")).to_have_count(1)
    no_exception(student)


def test_a_stale_answer_never_counts_and_nothing_answers_before_the_reveal(server, browser):
    """Issue 47.1 and 47.4 as a class met them. On Key–value memory a student answers:
    before the reveal their page gives no verdict and no sum of the writes (the answer);
    the teacher reveals, visits Neurons, comes back and picks another token, a new
    question; the student only unticks Follow. Their old answer must not count for the
    new question (it once made the teacher's line say 1 of 1 answered)."""
    url = f"{server.url}/{PAGES['key_value']}"
    teacher, teacher_runs = open_page(browser, url, CHART_COUNTS["key_value"])
    _, link = start_class(teacher)
    student, student_runs = open_page(browser, link, None, viewport=PROJECTOR, own=True)
    expect(student.locator(TITLE).first).to_have_text(title(teacher), timeout=EXPECT_TIMEOUT)
    said = teacher.locator("p", has_text="The class's answers:")
    expect(said).to_contain_text("0 of 1 student answered", timeout=EXPECT_TIMEOUT)

    before = student_runs.finished
    student.get_by_text("a little, its value sign-flipped", exact=True).first.click()
    student_runs.wait_for_more_than(before, student)
    expect(said).to_contain_text("1 of 1 student answered", timeout=EXPECT_TIMEOUT)
    words = student.locator('[data-testid="stMain"]').inner_text()
    assert "Right:" not in words and "Not this time" not in words  # no verdict yet
    assert "output (the sum)" not in words  # nor the sum of the writes it settles

    press(teacher, teacher_runs, "Reveal to the class")
    expect(student.get_by_text("the answer is", exact=False).first).to_be_visible(
        timeout=EXPECT_TIMEOUT
    )
    go_to(teacher, teacher_runs, "Neurons")
    go_to(teacher, teacher_runs, "Key–value memory")
    pick(teacher, teacher_runs, "token", "3: sat")  # another token: a new question
    expect(student.locator(TITLE).first).to_have_text(title(teacher), timeout=EXPECT_TIMEOUT)
    open_sidebar(student)
    before = student_runs.finished
    student.get_by_text("Follow the teacher", exact=True).click()  # untick, nothing else
    student_runs.wait_for_more_than(before, student)
    teacher.wait_for_timeout(3000)  # the tally has polled the store again
    line = teacher.locator("p", has_text="The class's answers:")
    expect(line).to_contain_text("0 of 1 student answered", timeout=EXPECT_TIMEOUT)
    assert "Your answer is in" not in student.locator('[data-testid="stMain"]').inner_text()
    no_exception(student)
    no_exception(teacher)

"""In Chromium: a teacher and two students in one class, against a real server.

The teacher starts a class on Neurons; both students open the join link and land on the
teacher's page; a change of d_ff reaches them; they answer the page's question, and the
teacher's live chart counts them; "Reveal to the class" shows the answer to a student who
has not guessed; a student who unticks "Follow the teacher" keeps their own page, and
catches up when ticking it again; when the teacher ends the class, every student's page
says so and goes on working.
"""

from __future__ import annotations

import re

from browser import CHART_COUNTS, no_exception, open_page
from playwright.sync_api import expect


def d_ff(page):
    return page.get_by_role("spinbutton", name="d_ff", exact=True)


def test_a_class_follows_the_teacher_and_a_student_can_step_away(server, browser):
    teacher, _ = open_page(browser, f"{server.url}/Neurons", CHART_COUNTS["neurons"])
    teacher.get_by_role("button", name="Start a class", exact=True).click()
    panel = teacher.get_by_text(re.compile(r"students join at"))
    expect(panel).to_be_visible(timeout=20_000)
    code = re.search(r"room=([A-Za-z0-9_-]{16})", panel.inner_text()).group(1)
    expect(teacher.locator('[data-testid="stImage"]')).to_have_count(1)  # the QR code
    assert f"room={code}" in teacher.url

    students = [open_page(browser, f"{server.url}/?room={code}", None)[0] for _ in range(2)]
    for student in students:  # the join link opens Home; following, they land on Neurons
        expect(student.locator('[data-testid="stMain"] h1')).to_contain_text(
            "Neurons", timeout=20_000
        )
        expect(d_ff(student)).to_have_value("16")

    d_ff(teacher).fill("24")
    d_ff(teacher).press("Enter")
    for student in students:  # how soon is measured in benchmarks/, not asserted here
        expect(d_ff(student)).to_have_value("24", timeout=10_000)

    # the class answers the page's question; the teacher's chart counts every answer
    students[0].get_by_text("no", exact=True).click()
    counted = teacher.locator('[data-testid="stText"]', has_text="the class's answers")
    expect(counted).to_contain_text(
        "2 so far. Bars: not sure yet (1), yes, exactly (0), no (1).", timeout=10_000
    )
    teacher.get_by_role("button", name="Reveal to the class").click()
    expect(students[1].get_by_text("The teacher revealed the answer: yes, exactly.")).to_be_visible(
        timeout=10_000
    )

    alone = students[1]
    alone.get_by_text("Follow the teacher").click()
    expect(alone.get_by_text("You are exploring alone")).to_be_visible(timeout=10_000)
    d_ff(teacher).fill("32")
    d_ff(teacher).press("Enter")
    expect(d_ff(students[0])).to_have_value("32", timeout=10_000)
    alone.wait_for_timeout(2_000)  # two of its polls
    expect(d_ff(alone)).to_have_value("24")
    alone.get_by_text("Follow the teacher").click()
    expect(d_ff(alone)).to_have_value("32", timeout=10_000)

    teacher.get_by_role("button", name="End the class").click()
    expect(teacher.get_by_role("button", name="Start a class")).to_be_visible(timeout=10_000)
    for student in students:  # their polls find the class gone; their pages go on
        expect(student.get_by_text(f"The class {code} has ended")).to_be_visible(timeout=10_000)
        expect(d_ff(student)).to_have_value("32")

    for page in (teacher, *students):
        no_exception(page)
        page.context.close()

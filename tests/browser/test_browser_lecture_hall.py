"""In Chromium: a class in the lecture hall of deploy/ (nginx, two app processes, Redis).

The teacher and one student come through nginx, each in a browser of their own; another
student opens the app process the teacher is not on. The student through nginx opens the
teacher's join link, which names nginx's address. Each browser's every request, its
websocket among them, reaches one process; and the class follows across both.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from browser import CHART_COUNTS, EXPECT_TIMEOUT, no_exception, open_page, start_class
from playwright.sync_api import expect

from deploy.lecture_hall import LectureHall
from ffn_ui.classroom.class_view import FIGURES_IN_NUMBERS


def d_ff(page):
    return page.get_by_role("spinbutton", name="d_ff", exact=True)


def replicas_by_browser(hall: LectureHall) -> dict[str, set[str]]:
    """For each browser's cookie, the processes nginx sent its requests to."""
    sent = defaultdict(set)
    for line in (hall.run / "nginx-access.log").read_text().splitlines():
        cookie = re.search(r"replica_cookie=(\S+)", line)[1]
        if cookie != "-":
            sent[cookie].add(re.search(r"upstream=(\S+)", line)[1])
    return sent


@pytest.mark.long
def test_a_class_through_nginx_follows_across_both_processes(hall, browser):
    teacher, _ = open_page(browser, f"{hall.url}/Neurons", CHART_COUNTS["neurons"], own=True)
    code, link = start_class(teacher)
    assert link.startswith(f"{hall.url}/?room=")  # the join link is nginx's address

    (cookie,) = [c["value"] for c in teacher.context.cookies() if c["name"] == "ffn_replica"]
    (teachers,) = replicas_by_browser(hall)[cookie]
    other = next(r for r in hall.replicas if f"127.0.0.1:{r.port}" != teachers)
    students = [
        open_page(browser, link, None, own=True)[0],
        open_page(browser, f"http://127.0.0.1:{other.port}/?room={code}", None, own=True)[0],
    ]
    for student in students:  # following, the join link's Home turns into Neurons
        expect(student.locator('[data-testid="stMain"] h1')).to_contain_text(
            "Neurons", timeout=EXPECT_TIMEOUT
        )
        student.get_by_text(FIGURES_IN_NUMBERS).click()  # the class view's words
        expect(student.get_by_text("6 tokens by 16 neurons")).to_be_visible()
    d_ff(teacher).fill("24")
    d_ff(teacher).press("Enter")
    for student in students:  # the teacher's grid, at the teacher's d_ff
        expect(student.get_by_text("6 tokens by 24 neurons")).to_be_visible(timeout=10_000)
    students[0].get_by_text("about half", exact=True).click()  # Neurons asks how many fire
    expect(teacher.get_by_text("The class's answers: 1 of 2 students answered")).to_be_visible(
        timeout=10_000
    )

    by_browser = replicas_by_browser(hall)
    assert len(by_browser) == 2  # the teacher's browser and the student's through nginx
    assert all(len(processes) == 1 for processes in by_browser.values()), by_browser
    for page in (teacher, *students):
        no_exception(page)
        page.close()

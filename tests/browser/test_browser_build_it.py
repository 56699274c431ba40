"""In Chromium: a learner on Build it types a line with the keyboard, reads the grader's
words, fixes the line, then types the rest and sees their own gradient check drawn.
The grader's verdicts are read back in tests/pages/test_build_it.py; here, what a person
does and sees: the box, Enter, the message under it, the figure at the end.

With FFN_SCREENSHOTS=1 the page is also saved at 1280 × 800, at 1024 × 768 in presenter
mode and at 390 × 844, for a person to look at.
"""

from __future__ import annotations

from browser import (
    PHONE,
    PROJECTOR,
    SCREENSHOTS,
    change_address,
    close_sidebar,
    no_exception,
    open_page,
    resize,
    screenshot,
    type_into,
)
from playwright.sync_api import expect

from ffn_core.exercise.build_ffn import STEPS


def test_a_learner_types_a_wrong_line_fixes_it_and_passes_their_own_check(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Build_it", charts=1)  # the diagram
    type_into(page, reruns, "dh =", "dout @ W2")
    alert = page.locator('[data-testid="stAlertContentError"]').first
    expect(alert).to_contain_text("@ cannot multiply shape (2, 4, 8) by shape (32, 8)")
    expect(alert).to_contain_text("a transpose is missing")
    screenshot(page, "build-it-wrong-line-desktop", whole=False)
    type_into(page, reruns, "dh =", "dout @ W2.T")
    expect(page.locator('[data-testid="stAlertContentError"]')).to_have_count(0)
    for step in STEPS:
        if step.name != "dh":
            type_into(page, reruns, f"{step.name} =", step.answer)
    expect(page.get_by_text("10 of 10 lines right.")).to_be_visible()
    expect(page.get_by_text("Your backward pass passes")).to_be_attached()
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # the diagram, the check
    no_exception(page)
    screenshot(page, "build-it-done-desktop")
    if not SCREENSHOTS:
        return
    resize(page, PROJECTOR)  # the same session, its lines kept
    change_address(page, reruns, "?presenter=true")
    close_sidebar(page)
    screenshot(page, "build-it-projector-first", whole=False)
    screenshot(page, "build-it-projector")
    resize(page, PHONE)
    change_address(page, reruns, "?presenter=false")
    close_sidebar(page)
    screenshot(page, "build-it-phone")

"""The app in a real browser: cold loads, a control moved, a link shared, screenshots taken."""

from __future__ import annotations

import pytest
from browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, PHONE, AppServer, Reruns, require_chromium
from browser import screenshot as save_screenshot
from playwright.sync_api import expect, sync_playwright

EXPECT_TIMEOUT = 20_000  # ms: the first chart can take several seconds on a cold load


@pytest.fixture(scope="module")
def server():
    require_chromium()
    app = AppServer()
    app.start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser, url, viewport=DESKTOP):
    page = browser.new_context(viewport=viewport).new_page()
    reruns = Reruns(page)
    page.goto(url)
    reruns.wait_for_more_than(0, page, timeout=EXPECT_TIMEOUT / 1000)
    expect(page.locator(".js-plotly-plot")).to_have_count(1, timeout=EXPECT_TIMEOUT)
    return page, reruns


def plotted_output(page) -> list[float]:
    """The y values of the chart's output markers, as the live Plotly graph drew them.

    gd.data keeps the base64 form the server sent; gd._fullData holds the decoded arrays.
    """
    return page.locator(".js-plotly-plot").evaluate(
        "gd => Array.from(gd._fullData.find(t => t.type === 'scatter').y)"
    )


def test_home_loads_cold_with_its_chart_and_no_exception(server, browser):
    page, _ = open_page(browser, server.url)
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    assert plotted_output(page) == [0.0, 2.0]
    page.close()


def test_moving_a_slider_redraws_the_chart_and_the_link_reproduces_it(server, browser):
    page, reruns = open_page(browser, server.url)
    slider = page.get_by_role("slider", name="x₁")
    before = reruns.finished
    slider.focus()
    page.keyboard.press("ArrowRight")  # 1.0 -> 1.5
    reruns.wait_for_more_than(before, page)
    expect(page.locator(".js-plotly-plot")).to_have_count(1)
    assert slider.get_attribute("aria-valuetext") == "1.50"
    assert plotted_output(page) == [0.5, 2.5]  # relu(x1 + x2), relu(x1 - x2)
    assert "x1=1.5" in page.url

    # The copied link, opened in a fresh browser context, shows the same numbers.
    fresh, _ = open_page(browser, page.url)
    assert fresh.get_by_role("slider", name="x₁").get_attribute("aria-valuetext") == "1.50"
    assert plotted_output(fresh) == [0.5, 2.5]
    page.close()
    fresh.close()


@pytest.mark.parametrize(("label", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_screenshots_of_home(server, browser, label, viewport):
    page, _ = open_page(browser, server.url, viewport)
    path = save_screenshot(page, f"home-{label}")
    assert path.stat().st_size > 10_000
    page.close()

"""Home's plane, touched: the token and a key dragged with the mouse, as a person does, and
the same changes from the keyboard. What only a browser shows: the pointer over a Plotly
chart, turned into the page's values (ffn_ui/controls/drag.py)."""

from __future__ import annotations

import numpy as np
from browser import CHART_COUNTS, PHONE, no_exception, open_page, resize, settled
from playwright.sync_api import expect

# Where a point of the plane (x₁, x₂) is on the screen: the chart's own axes map it.
SCREEN_POINT = """([gd, a, b]) => {
    const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
    return [box.left + xa._offset + xa.d2p(a), box.top + ya._offset + ya.d2p(b)];
}"""


def plane(page):
    return page.locator(".st-key-plane .js-plotly-plot")


def screen_point(page, x1: float, x2: float) -> tuple[float, float]:
    handle = plane(page).element_handle()
    return tuple(page.evaluate(SCREEN_POINT, [handle, x1, x2]))


def output(page) -> str:
    return page.locator('[data-testid="stMetricValue"]').first.inner_text()


def drag(page, reruns, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press at the plane's point `start`, move to `end` in steps, release; wait for the
    page's run."""
    before = reruns.finished
    page.mouse.move(*screen_point(page, *start))
    page.mouse.down()
    for t in np.linspace(0.2, 1.0, 5):
        a = start[0] + t * (end[0] - start[0])
        b = start[1] + t * (end[1] - start[1])
        page.mouse.move(*screen_point(page, a, b))
    page.mouse.up()
    reruns.wait_for_more_than(before, page)


def relu_output(x: np.ndarray, angles: tuple[float, float]) -> str:
    """The page's output for token x and keys at `angles` (degrees), from the lesson's
    definition: key j = √2 (cos, sin), written to 12 decimals (so 45° is exactly [1, 1]),
    and W2 = I."""
    radians = np.radians(angles)
    keys = np.round(np.sqrt(2) * np.stack([np.cos(radians), np.sin(radians)], axis=1), 12)
    return str([float(max(k @ x, 0.0)) for k in keys])


def test_dragging_the_token_across_a_boundary_makes_its_neuron_fire(server, browser):
    page, reruns = open_page(browser, server.url, CHART_COUNTS["home"])
    expect(page.get_by_text("Drag the token")).to_be_visible()
    assert output(page) == "[0.0, 1.0]"  # x = (0, −1): neuron 1 scores −1, silent
    drag(page, reruns, (-1.0, -2.0), (1.5, 0.5))  # a press away from the token jumps it
    assert settled(page, lambda: output(page), "[2.0, 1.0]") == "[2.0, 1.0]"  # neuron 1 fires
    assert page.get_by_role("slider", name="token x₁").get_attribute("aria-valuetext") == "1.50"
    assert "x1=1.5" in page.url and "x2=0.5" in page.url  # the address follows, as a slider's
    no_exception(page)


def test_dragging_a_key_turns_it_and_the_output_follows_the_core(server, browser):
    page, reruns = open_page(browser, f"{server.url}/?x1=1.5&x2=0.5", CHART_COUNTS["home"])
    drag(page, reruns, (1.0, -1.0), (0.0, 1.4))  # key 2's tip, from −45° to 90°
    expected = relu_output(np.array([1.5, 0.5]), (45, 90))
    assert settled(page, lambda: output(page), expected) == expected
    key_2 = page.get_by_role("slider", name="key 2's angle, degrees")
    assert key_2.get_attribute("aria-valuetext") == "90"
    no_exception(page)


def test_the_keyboard_makes_the_same_changes(server, browser):
    page, reruns = open_page(browser, server.url, CHART_COUNTS["home"])
    for name, presses in (("token x₂", 6), ("key 1's angle, degrees", 3)):
        slider = page.get_by_role("slider", name=name)
        for _ in range(presses):
            before = reruns.finished
            slider.focus()
            page.keyboard.press("ArrowRight")
            reruns.wait_for_more_than(before, page)
    expected = relu_output(np.array([0.0, 0.5]), (90, -45))  # x₂ −1 → 0.5, key 1 45° → 90°
    assert settled(page, lambda: output(page), expected) == expected


def test_on_a_phone_a_press_places_the_token(server, browser):
    page, reruns = open_page(browser, server.url, CHART_COUNTS["home"], viewport=PHONE)
    resize(page, PHONE)
    plane(page).scroll_into_view_if_needed()
    drag(page, reruns, (-2.0, 1.0), (-2.0, 1.0))
    assert settled(page, lambda: output(page), "[0.0, 0.0]") == "[0.0, 0.0]"
    no_exception(page)

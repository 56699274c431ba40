"""The app in a real browser: each page's cold link (layout, accessibility, a projector) and a
short walk from it, the address bar, Back and Forward, the keyboard, the menu, uploads,
expanders and downloads: what only a browser shows. What the server does with a click is
checked through the protocol (tests/server/test_visitor_sequences.py and its neighbours).

Screenshots for a person to look at: `FFN_SCREENSHOTS=1 python -m pytest -m browser`.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from accessibility import WCAG_AAA, violations
from browser import (
    CHART_COUNTS,
    DESKTOP,
    EXPECT_TIMEOUT,
    FIRST_FIGURE,
    PAGES,
    PHONE,
    PROJECTOR,
    change_address,
    chart_y,
    first_screen_holds_the_first_figure,
    go_to,
    menu_label,
    no_exception,
    nudge_slider,
    open_page,
    resize,
    set_number,
    settled,
    settled_chart_y,
    shows,
    sidebar_links,
    start_class,
    walk_failure,
)
from browser import screenshot as save_screenshot
from playwright.sync_api import expect
from walk import Walker

from ffn_core.init import init_weights
from ffn_core.weights_io import weights_to_npz
from ffn_ui.models.minilm import DEFAULT
from ffn_ui.page.display import IN_NUMBERS
from ffn_ui.page.path import STEPS, TIER_ICONS, TIERS


def heatmap_shape(page) -> list[int] | None:
    """The first chart's heatmap (rows, columns); None while Plotly is still redrawing it
    (its full data is briefly empty after a rerun replaced the figure: seen once in CI)."""
    return page.locator(".js-plotly-plot").first.evaluate(
        "gd => { const t = (gd._fullData || [])[0]; const z = t && t.z;"
        " return z && z.length ? [z.length, z[0].length] : null; }"
    )


# Charts whose toolbar may show (on hover): none on a phone, where it would cover titles.
TOOLBARS_SHOWN = """() => [...document.querySelectorAll('.js-plotly-plot .modebar-container')]
    .filter(bar => getComputedStyle(bar).display !== 'none').length"""

# The page's own links (Next: …) whose words do not fit their line.
CUT_LINKS = """() => [...document.querySelectorAll(
        '[data-testid="stMain"] [data-testid="stPageLink-NavLink"] span')]
    .filter(label => label.scrollWidth > label.clientWidth + 1).map(label => label.innerText)"""


# Random actions per page after its cold load's checks: the protocol walk
# (tests/server/test_protocol_walk.py) takes 32 on every page, and 14 more from SwiGLU on
# each toy page; this one looks for what only a browser shows, from the page as the
# checks left it, at a browser's cost.
WALK_STEPS = 2


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_loads_cold_by_its_own_link_then_takes_a_random_walk(
    server, browser, name, walk_seed
):
    """One cold load a page for everything a browser checks on its first screen: desktop,
    phone, and a projector with presenter mode and high contrast (WCAG 2.1 AA at each,
    AAA in high contrast), then a seeded random walk from where those checks left it."""
    page, reruns = open_page(browser, f"{server.url}/{PAGES[name]}", CHART_COUNTS[name])
    no_exception(page)
    if name == "traps":
        # the exercise's numbers are shown; the reference solution waits for an answer
        expect(page.locator('[data-testid="stCode"]').last).to_contain_text("x = ")
        expect(page.get_by_text("The reference: the by-hand forward pass")).to_have_count(0)
    # every chart is followed by its numbers in words, as text a screen reader reads
    words = page.locator('[data-testid="stText"]', has_text=IN_NUMBERS)
    expect(words).to_have_count(CHART_COUNTS[name])
    if name != "glossary":  # the one page without a figure: on the first screen, words few
        assert first_screen_holds_the_first_figure(page, DESKTOP["height"]), where_it_is(page)
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        resize(page, viewport)
        save_screenshot(page, f"{name}-{label}")
        assert violations(page) == [], f"WCAG 2.1 AA, {label}"
        assert page.evaluate(TOOLBARS_SHOWN) == (0 if label == "phone" else CHART_COUNTS[name])
        assert page.evaluate(CUT_LINKS) == [], f"links cut off, {label}"
    # a projector: presenter mode and high contrast at 1024 x 768, switched on by the address
    # in this session: the page then reads as a presenter's link opens it (below)
    page.set_viewport_size(PROJECTOR)
    change_address(page, reruns, "?presenter=true")  # presenter mode alone: the theme's greys
    page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize == '24px'")
    expect(page.locator(".js-plotly-plot")).to_have_count(CHART_COUNTS[name])
    assert violations(page) == [], "WCAG 2.1 AA, presenter mode on a projector"
    change_address(page, reruns, "?presenter=true&contrast=true")
    expect(page.locator(".js-plotly-plot")).to_have_count(CHART_COUNTS[name])
    page.wait_for_function("() => getComputedStyle(document.documentElement).fontSize == '24px'")
    no_exception(page)
    # at the top, as a link opens it (the checks at phone size may have scrolled it)
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    presenter_checks(page, name)
    assert violations(page) == [], "WCAG 2.1 AA, presenter mode and high contrast, projector"
    assert page.evaluate(CUT_LINKS) == [], "links cut off, presenter mode on a projector"
    save_screenshot(page, f"{name}-projector")
    resize(page, PHONE)
    assert violations(page) == [], "WCAG 2.1 AA, presenter mode and high contrast, phone"

    resize(page, DESKTOP)
    walker = Walker(page, reruns, random.Random(f"{walk_seed}:{name}"))
    for _ in range(WALK_STEPS):
        walker.step()
        errors = walker.exceptions()
        assert not errors, walk_failure(walker, server, f"/{PAGES[name]}", walk_seed)
    print(f"/{PAGES[name]}, seed {walk_seed}:", *walker.trail, sep="\n  ")  # shown with -s


def test_home_slider_redraws_the_chart_and_the_link_reproduces_it(server, browser):
    page, reruns = open_page(browser, server.url, CHART_COUNTS["home"])
    slider = nudge_slider(page, reruns, "token x₁")  # 0.0 -> 0.25, a quarter a step
    expect(page.locator(".js-plotly-plot")).to_have_count(CHART_COUNTS["home"])
    assert slider.get_attribute("aria-valuetext") == "0.25"
    # relu(x1 + x2), relu(x1 - x2), the diamonds of the second chart
    assert settled_chart_y(page, 1, "scatter", [0.0, 1.25]) == [0.0, 1.25]
    assert "x1=0.25" in page.url

    fresh, _ = open_page(browser, page.url, CHART_COUNTS["home"])
    token = fresh.get_by_role("slider", name="token x₁")
    assert token.get_attribute("aria-valuetext") == "0.25"
    assert chart_y(fresh, 1, "scatter") == [0.0, 1.25]
    page.close()
    fresh.close()


TITLE_LINES = """() => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector('[data-testid="stMain"] h1 span'));
    return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size;
}"""


def where_it_is(page) -> str:
    """What a failed first-screen check is read from: where the first figure is (its top,
    its bottom, the words above it), the page's scroll and the sidebar's edge, and a
    screenshot of the screen."""
    shot = save_screenshot(page, "first-screen-that-failed", whole=False, always=True)
    return (
        str(
            page.evaluate(f"""() => ({{first: ({FIRST_FIGURE})(),
        scrolled: document.querySelector('[data-testid="stMain"]').scrollTop,
        sidebar: document.querySelector('[data-testid="stSidebar"]').getBoundingClientRect().right,
        viewport: [innerWidth, innerHeight]}})""")
        )
        + f"; {shot}"
    )


def presenter_checks(page, name: str) -> None:
    """Presenter mode with high contrast at 1024 x 768: the title takes at most two lines,
    the charts' text (ticks, hover labels) grows with it, the first figure starts on the
    first screen (or the question it waits for is on it), and every text reaches 7:1
    contrast (WCAG AAA)."""
    assert page.evaluate(TITLE_LINES) <= 2
    fonts = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => ["
        "gd._fullLayout.font.size, gd._fullLayout.hoverlabel.font.size,"
        " ...Object.keys(gd._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k))"
        ".map(k => gd._fullLayout[k].tickfont?.size).filter(size => size)])"  # hidden: none
    )
    assert all(min(sizes) >= 14 and sizes[:2] == [20, 20] for sizes in fonts), fonts
    if name != "glossary":  # the one page without a figure
        assert first_screen_holds_the_first_figure(page, PROJECTOR["height"]), where_it_is(page)
    assert violations(page, WCAG_AAA) == [], "high contrast: WCAG AAA"


# The pages whose first screen differs most: a plane, a heatmap, a question with no chart.
# Presenter mode is set up once for every page (ffn_ui/page/setup.py); each page's own
# first screen is checked above, after the address turned presenter mode on.
PRESENTER_LINKS = ["home", "neurons", "traps"]


ROOT_FONT = "() => getComputedStyle(document.documentElement).fontSize"
# Where Home's token marker is drawn on the screen: the plane's y axis maps x₂ to pixels.
TOKEN_MARKER_Y = """() => {
    const gd = document.querySelector('.js-plotly-plot');
    const y = gd._fullLayout.yaxis, marker = gd._fullData.find(t => t.mode === 'markers');
    return gd.getBoundingClientRect().top + y._offset + y.l2p(marker.y[0]);
}"""


@pytest.mark.parametrize("name", PRESENTER_LINKS)
def test_a_presenter_link_on_a_projector_gives_the_lesson_the_width(server, browser, name):
    """Opened cold by a ?presenter=true&contrast=true link at 1024 x 768: the sidebar
    starts closed, and the page passes the presenter checks; its text stays large on a
    wider screen. On Home the sliders sit beside the plane, so the token at (0, −1) is on
    the first screen (under the sliders, the plane was cut at x₂ ≈ −0.8)."""
    url = f"{server.url}/{PAGES[name]}?presenter=true&contrast=true"
    page, _ = open_page(browser, url, CHART_COUNTS[name], viewport=PROJECTOR)
    sidebar = page.locator('[data-testid="stSidebar"]').bounding_box()
    assert sidebar is None or sidebar["x"] + sidebar["width"] <= 1
    presenter_checks(page, name)
    if name == "home":
        assert page.evaluate(TOKEN_MARKER_Y) < PROJECTOR["height"] - 20
    no_exception(page)
    resize(page, DESKTOP)
    assert page.evaluate(ROOT_FONT) == "24px"
    save_screenshot(page, f"{name}-presenter-desktop")


def tab_to(page, label: str, presses: int = 120) -> None:
    """Press Tab, as a keyboard user does, until the control named `label` has the focus."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate(
            "label => { const el = document.activeElement; const name = el.getAttribute("
            "'aria-label') || (el.labels && el.labels[0] && el.labels[0].innerText) || '';"
            " return name.trim() === label; }",
            label,
        ):
            return
    raise AssertionError(f"Tab never reached {label!r}")


def test_neurons_token_and_view_change_from_the_keyboard(server, browser):
    """Tab to the token picker and to the view, change both with arrow keys, and see the
    page and its heatmap follow (a click on the title only sets where Tab starts again)."""
    page, reruns = open_page(browser, f"{server.url}/Neurons", CHART_COUNTS["neurons"])
    before = reruns.finished
    page.get_by_text("about half", exact=True).first.click()  # the grid's colours: a guess
    reruns.wait_for_more_than(before, page)
    page.locator('[data-testid="stMain"] h1').click()
    tab_to(page, "token")
    before = reruns.finished
    page.keyboard.press("ArrowDown")  # opens the list
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    reruns.wait_for_more_than(before, page)
    shows(page, "Token 3: sat scores")  # from 1: the, two tokens down
    scale = "() => document.querySelector('.js-plotly-plot')._fullData[0]?.colorbar.title.text"
    assert page.evaluate(scale) == "activation"
    page.locator('[data-testid="stMain"] h1').click()
    tab_to(page, "activation")  # the "show" radios: Tab reaches the chosen one
    before = reruns.finished
    page.keyboard.press("ArrowDown")  # and an arrow key moves the choice
    reruns.wait_for_more_than(before, page)
    shows(page, "The pre-activation of every neuron for every token")
    # the heatmap now shows the scores (for ReLU with silent cells blank, the same numbers)
    assert settled(page, lambda: page.evaluate(scale), "pre-activation") == "pre-activation"
    no_exception(page)
    page.close()


def back_or_forward(page, reruns, move, title: str) -> int:
    """Press Back (or Forward) until the page titled `title` shows; how many presses it
    took. Streamlit pushes a history entry for each address it writes, the passing ones
    of a page switch too, so one press may land on the page already shown: every entry
    must keep the settings."""
    for presses in range(1, 4):
        before = reruns.finished
        move()
        reruns.wait_for_more_than(before, page)
        expect(page.get_by_label("d_ff", exact=True)).to_have_value("24")  # never a reset
        heading = page.locator('[data-testid="stMain"] h1').first
        if heading.inner_text().startswith(title):
            return presses
    raise AssertionError(f"{title!r} did not come back: {page.url}")


def test_back_and_forward_bring_a_page_s_settings_back(server, browser):
    """Neurons with the scores shown, d_ff 24 and a guess, then Traps, then Back: Neurons
    comes back as it was (Streamlit's page switch leaves an entry with an empty address,
    and Back to it once reset every control to its default); Forward returns to Traps."""
    page, reruns = open_page(browser, f"{server.url}/Neurons", CHART_COUNTS["neurons"])
    before = reruns.finished
    page.get_by_text("pre-activation", exact=True).first.click()
    reruns.wait_for_more_than(before, page)
    set_number(page, reruns, "d_ff", 24)
    before = reruns.finished
    page.get_by_text("about half", exact=True).first.click()
    reruns.wait_for_more_than(before, page)
    go_to(page, reruns, "Traps")
    expect(page).to_have_url(re.compile(r"/Traps\?d_ff=24$"), timeout=EXPECT_TIMEOUT)
    assert back_or_forward(page, reruns, page.go_back, "Neurons") <= 2
    scores = page.get_by_text("The pre-activation of every neuron for every token")
    expect(scores).to_be_visible(timeout=EXPECT_TIMEOUT)  # drawn a moment after its run
    expect(page.get_by_role("radio", name="about half")).to_be_checked()
    expect(page).to_have_url(re.compile(r"/Neurons\?.*view=pre-activation"))
    assert back_or_forward(page, reruns, page.go_forward, "Traps") <= 2
    no_exception(page)
    page.close()


def test_the_sidebar_menu_lists_the_path_as_one_list_and_follows_a_click(server, browser):
    """One list a screen reader announces ("list, 16 items"), in the path's order, each
    page marked with its tier's sign; Home names the tiers."""
    page, reruns = open_page(browser, f"{server.url}/Glossary", charts=0)
    menu = page.get_by_role("navigation").get_by_role("list")
    expect(menu.get_by_role("listitem")).to_have_count(len(STEPS))
    links = sidebar_links(page)
    assert [menu_label(link) for link in links] == [s.label for s in STEPS]
    marks = [TIER_ICONS[tier].split("/")[1].rstrip(":") for tier, ss in TIERS.items() for _ in ss]
    shown = [link.locator('[data-testid="stIconMaterial"]').inner_text() for link in links]
    assert shown == marks
    assert links[0].get_attribute("href").rstrip("/") == server.url  # Home is the root
    go_to(page, reruns, "Backprop & gradient check")
    expect(page.locator('[data-testid="stMain"] h1')).to_have_text("Backprop & gradient check")
    expect(page).to_have_url(re.compile(f"^{re.escape(server.url)}/Backprop"))  # polled: the
    # address bar can follow a moment after the run (seen once in CI)
    no_exception(page)
    page.close()


def test_uploading_weights_checks_the_file_first(server, browser, tmp_path):

    bad = tmp_path / "bad.json"
    bad.write_text('{"W1": [["a"]], "b1": [1], "W2": [[1]], "b2": [1]}')
    good = tmp_path / "good.npz"
    good.write_bytes(weights_to_npz(init_weights(3, 5, "normal", 7)))

    page, reruns = open_page(browser, f"{server.url}/Neurons", CHART_COUNTS["neurons"])
    before = reruns.finished
    page.get_by_text("about half", exact=True).first.click()  # the counts wait for a guess
    reruns.wait_for_more_than(before, page)
    uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    before = reruns.finished
    uploader.set_input_files(str(bad))
    reruns.wait_for_more_than(before, page)
    expect(page.get_by_text("bad.json was not loaded: W1 must hold numbers")).to_be_visible()
    assert settled(page, lambda: heatmap_shape(page), [6, 16]) == [6, 16]  # model untouched

    before = reruns.finished
    uploader.set_input_files(str(good))
    reruns.wait_for_more_than(before, page)
    expect(page.get_by_text("Loaded good.npz: d_model 3, d_ff 5.")).to_be_visible()
    assert settled(page, lambda: heatmap_shape(page), [6, 5]) == [6, 5]
    before = reruns.finished
    page.get_by_text("about half", exact=True).first.click()  # a new model: asked again
    reruns.wait_for_more_than(before, page)
    assert np.isfinite(chart_y(page, 1, "bar")).all()
    page.close()


def test_real_model_sections_open_on_a_click_then_follow_the_layer(server, browser):
    """Sections 5 and 6 run only once opened; opened, they follow a change of layer."""
    page, reruns = open_page(browser, f"{server.url}/Real_model", CHART_COUNTS["real_model"])
    expect(page.get_by_text("Keys fire on patterns.")).to_have_count(0)
    for label in ("Show each neuron's score, then predict", "Check them at this layer"):
        before = reruns.finished
        page.locator('[data-testid="stExpander"] summary', has_text=label).click()
        reruns.wait_for_more_than(before, page)
    expect(page.locator(".js-plotly-plot")).to_have_count(CHART_COUNTS["real_model"] + 2)
    shows(page, "Keys fire on patterns.")
    shows(page, "layer 3's FFN output is h_j × (row j of W2)")
    nudge_slider(page, reruns, "layer")  # 3 -> 4: both sections stay open and follow it
    shows(page, "layer 4's FFN output is h_j × (row j of W2)")
    chart_titles = page.locator(".js-plotly-plot").get_by_text("activation × gradient, layer 4")
    expect(chart_titles).to_have_count(1)  # (the figure in numbers under it says it too)
    expect(page.locator(".js-plotly-plot")).to_have_count(CHART_COUNTS["real_model"] + 2)
    page.close()


def test_downloads_are_built_when_clicked_from_what_the_page_shows(server, browser, minilm):
    """A download keeps only how to build its file (a session never pins the arrays)."""
    import pandas as pd

    page, _ = open_page(browser, f"{server.url}/Neurons?d_model=8&d_ff=32&seed=5", charts=None)
    with page.expect_download() as download:
        page.get_by_role("button", name="NPZ").click()
    with np.load(download.value.path()) as saved:
        for name, expected in init_weights(8, 32, "normal", 5).items():
            np.testing.assert_array_equal(saved[name], expected)
    page.close()

    page, _ = open_page(browser, f"{server.url}/Real_model", charts=None)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download layer 3").click()
    table = pd.read_csv(download.value.path(), index_col=0)
    expected = minilm.run(DEFAULT.text).ffn_act[2]  # the server sums on one BLAS thread
    np.testing.assert_allclose(table.to_numpy(np.float32), expected, rtol=1e-4, atol=1e-5)
    page.close()


MOST_TABS = 40  # from the address bar to the first question's answer
FOCUSED_NAME = """() => { const el = document.activeElement;
    const name = el.getAttribute('aria-label') || (el.labels && el.labels[0] &&
        el.labels[0].innerText) || el.innerText || '';
    return name.trim(); }"""


def tabs_until(page, name: str, skip: bool = True) -> int:
    """Press Tab from where the address bar leaves the focus until the control named
    `name` has it, as a keyboard user does (with `skip`, Enter on "Skip to main content",
    past the sidebar, as they would for the page's own controls); how many Tabs it took,
    or fail past MOST_TABS."""
    for presses in range(1, MOST_TABS + 1):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_NAME)
        if focused == name:
            return presses
        if skip and focused == "Skip to main content":
            page.keyboard.press("Enter")
    raise AssertionError(f"{MOST_TABS} Tabs never reached {name!r}")


@pytest.mark.parametrize("name", ["home", "neurons", "collapse"])
def test_a_keyboard_user_answers_the_first_question_in_a_few_tabs(server, browser, name):
    page, reruns = open_page(browser, f"{server.url}/{PAGES[name]}", CHART_COUNTS[name])
    page.keyboard.press("Escape")  # the focus as the address bar leaves it: on the document
    tabs = tabs_until(page, "not sure yet")
    before = reruns.finished
    page.keyboard.press("ArrowRight")  # the next answer
    reruns.wait_for_more_than(before, page)
    verdict = page.get_by_text(re.compile(r"^(Right: |Not this time: )"))
    expect(verdict.first).to_be_visible(timeout=EXPECT_TIMEOUT)
    assert tabs <= MOST_TABS
    no_exception(page)
    page.close()


def test_a_keyboard_user_joins_a_class_in_a_few_tabs(server, browser):
    teacher, _ = open_page(browser, f"{server.url}/Neurons", CHART_COUNTS["neurons"])
    code, _ = start_class(teacher)
    student, _ = open_page(browser, server.url, CHART_COUNTS["home"])
    student.keyboard.press("Escape")
    tabs_until(student, "class code", skip=False)  # the sidebar's class section
    student.keyboard.type(code)
    student.keyboard.press("Enter")
    expect(student.get_by_text(f"Following the teacher in class {code}")).to_be_visible(
        timeout=EXPECT_TIMEOUT
    )
    no_exception(student)
    for page in (teacher, student):
        page.close()

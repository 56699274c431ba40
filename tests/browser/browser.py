"""Helpers for the real-browser tests: the app server, Chromium, and waiting for reruns.

Debian's Chromium driven by Python Playwright, the app
started headless on a free port and stopped by process group, and reruns counted from the
websocket's `script_finished` messages rather than from DOM flags.
"""

from __future__ import annotations

import re
import time
from collections import deque
from pathlib import Path

from helpers import require
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.server import ARTIFACTS

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1024, "height": 768}
FRAMES_KEPT = 400  # the last websocket messages of a page, told when a test fails


def require_chromium() -> None:
    """Fail in CI, skip with the reason elsewhere, when the browser is missing."""
    require(
        Path(CHROMIUM).exists(),
        f"{CHROMIUM} not found: apt-get install -y chromium fonts-liberation",
    )


class Reruns:
    """Counts finished script runs of one page, read from its websocket frames: every run
    (`finished`), and whole-page runs alone (`pages`), which a class's polling fragments,
    running every second, do not add to."""

    def __init__(self, page) -> None:
        self.finished = 0
        self.pages = 0
        self.asked = 0  # runs the page asked for itself, not a fragment's timer
        self.answered = 0  # runs that finished while one the page asked for was waiting
        self.frames: deque[str] = deque(maxlen=FRAMES_KEPT)
        self.start = time.monotonic()
        page.on("websocket", self._watch)

    def _watch(self, ws) -> None:
        if "/_stcore/stream" in ws.url:
            self.frames.append(f"{self._now()} websocket opened")
            ws.on("framereceived", self._frame)
            ws.on("framesent", self._sent)
            ws.on("close", lambda _: self.frames.append(f"{self._now()} websocket closed"))

    def _now(self) -> str:
        return f"{time.monotonic() - self.start:8.2f}"

    def _sent(self, payload) -> None:
        if isinstance(payload, str):
            return
        msg = BackMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "rerun_script":
            state = msg.rerun_script
            self.asked += not state.is_auto_rerun
            kind += f" page={state.page_name!r} fragment={state.fragment_id[:12]!r}"
            kind += f" auto={state.is_auto_rerun} query={state.query_string[:60]!r}"
        self.frames.append(f"{self._now()} sent {kind}")

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            return
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            kind += f" page={msg.new_session.page_script_hash[:8]}"
        elif kind == "script_finished":
            kind += f" {ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)}"
        elif kind == "page_info_changed":
            kind += f" query={msg.page_info_changed.query_string[:60]!r}"
        elif kind == "delta":
            kind += f" path={list(msg.metadata.delta_path)[:3]}"
        if not (self.frames and self.frames[-1].endswith(kind) and kind.startswith("delta")):
            self.frames.append(f"{self._now()} got {kind}")
        if msg.WhichOneof("type") == "script_finished" and (
            msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
        ):
            self.finished += 1
            self.pages += msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
            if self.answered < self.asked:
                self.answered += 1

    def wait_for_page_run(self, count: int, page, timeout: float = 30) -> None:
        """Wait until a whole-page run after `count` has finished, and the browser has
        drawn it (in a class a page is never idle: its fragments poll)."""
        deadline = time.monotonic() + timeout
        while self.pages <= count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no page run finished after run {count}")
            page.wait_for_timeout(50)
        page.wait_for_timeout(300)

    def wait_for_answer(self, count: int, page, timeout: float = 30) -> None:
        """Wait until a run the page asked for after `count` answered runs has finished: a
        click's run, whole-page or fragment, while a class's timers keep polling."""
        deadline = time.monotonic() + timeout
        while self.answered <= count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no run the page asked for finished after {count}")
            page.wait_for_timeout(50)

    def wait_for_more_than(self, count: int, page, timeout: float = 20) -> None:
        """Wait until a run after `count` has finished, then until the app is idle."""
        deadline = time.monotonic() + timeout
        while self.finished <= count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no script run finished after run {count}")
            page.wait_for_timeout(50)
        page.wait_for_selector(
            '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout * 1000
        )


def screenshot(page, name: str, whole: bool = True) -> Path:
    """A whole-page screenshot in test-artifacts/, for a person to look at; or only the
    first screen, as a projector shows it (`whole=False`).

    Streamlit scrolls inside its main section, not the document, so Playwright's
    full_page alone stops at the first screen: grow the viewport to the content first.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if not whole:
        page.screenshot(path=str(path))
        return path
    width = page.viewport_size["width"]
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": width, "height": max(height, page.viewport_size["height"])})
    page.wait_for_timeout(250)  # let Plotly re-lay out at the new size
    page.screenshot(path=str(path), full_page=True)
    return path


EXPECT_TIMEOUT = 20_000  # ms: the first chart can take several seconds on a cold load
PAGES = {
    "home": "",
    "neurons": "Neurons",
    "key_value": "Key_value_memory",
    "activations": "Activations",
    "collapse": "Collapse",
    "position_wise": "Position-wise",
    "backprop": "Backprop",
    "traps": "Traps",
    "scale_and_cost": "Scale_and_cost",
    "mixture_of_experts": "Mixture_of_experts",
    "superposition": "Superposition",
    "memory_lab": "Memory_lab",
    "real_model": "Real_model",
    "language_model": "Language_model",
    "glossary": "Glossary",
}
# charts at the default model (Collapse hides its training until the learner predicts)
CHART_COUNTS = {
    "home": 2,
    "neurons": 3,  # the histogram waits for a guess
    "key_value": 4,
    "activations": 2,  # the hidden values wait for a prediction
    "collapse": 4,
    "position_wise": 2,  # the change map waits for a prediction
    "backprop": 8,  # the check and the exercise wait for predictions
    "traps": 0,  # every trap waits for a guess; the shown code is the main element
    "scale_and_cost": 2,  # the shares wait for a prediction
    "mixture_of_experts": 3,
    "superposition": 2,  # the five features and the phase diagram wait for predictions
    "memory_lab": 6,  # the capacity curve waits for its toggle
    "real_model": 5,  # sections 5 and 6 run once opened
    "language_model": 6,  # the gate-up scatter waits for a prediction, the edit for picks
    "glossary": 0,
}


def open_page(browser, url, charts: int | None = 1, viewport=DESKTOP, on_request=None):
    """A fresh browser context on `url`, once its first run finished and `charts` charts
    are drawn (None: any number); `on_request` sees every request, the first one included."""
    page = browser.new_context(viewport=viewport).new_page()
    if on_request:
        page.on("request", on_request)
    reruns = Reruns(page)
    page.goto(url)
    reruns.wait_for_more_than(0, page, timeout=EXPECT_TIMEOUT / 1000)
    # The browser draws the run's elements a moment after the run ends; every page starts
    # with a title, so the title is the sign that the page is drawn.
    page.locator(TITLE).first.wait_for(state="attached", timeout=EXPECT_TIMEOUT)
    if charts is not None:
        expect(page.locator(".js-plotly-plot")).to_have_count(charts, timeout=EXPECT_TIMEOUT)
    return page, reruns


TITLE = '[data-testid="stMain"] h1'
SIDEBAR_LINKS = '[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]'  # the menu


# Where the first thing to look at starts: the first chart or diagram, or the first
# prediction, which the figures after it wait for; and where that prediction ends.
FIRST_TO_LOOK_AT = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const figures = [...main.querySelectorAll('.js-plotly-plot, [data-testid="stGraphVizChart"]')];
    const questions = [...main.querySelectorAll('[role="radiogroup"]')]
        .filter(group => group.innerText.includes('not sure yet'))
        .map(group => group.closest('[data-testid="stElementContainer"]'));
    const first = [...figures, ...questions]
        .map(el => [el.getBoundingClientRect(), figures.includes(el)])
        .sort((a, b) => a[0].top - b[0].top)[0];
    return first ? [first[0].top, first[0].bottom, first[1]] : null;
}"""


def first_screen_holds_the_first_figure(page, height: int) -> bool:
    """Whether a screen `height` high shows the page's first figure from its title down
    (168 px of it), or the whole question that figure waits for."""
    page.wait_for_function(FIRST_TO_LOOK_AT, timeout=EXPECT_TIMEOUT)
    top, bottom, is_figure = page.evaluate(FIRST_TO_LOOK_AT)
    return top <= height - 168 and (is_figure or bottom <= height)


def sidebar_links(page) -> list:
    """The sidebar menu's page links, once the browser has drawn them."""
    page.locator(SIDEBAR_LINKS).first.wait_for(state="attached", timeout=EXPECT_TIMEOUT)
    return page.locator(SIDEBAR_LINKS).all()


def go_to(page, reruns, label: str) -> None:
    """Follow the sidebar menu's link to a page, as a person would, and wait for it to run."""
    before = reruns.finished
    page.locator(SIDEBAR_LINKS, has_text=label).first.click()
    reruns.wait_for_more_than(before, page)


CLASS_LINE = re.compile(r"Class ([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}) .* join at (\S+) with")


def start_class(page) -> tuple[str, str]:
    """Press "Start a class" on a teacher's page: the class's code and its join link, as
    the class's line on the page says them."""
    page.get_by_role("button", name="Start a class", exact=True).click()
    line = page.get_by_text(CLASS_LINE)
    expect(line).to_be_visible(timeout=EXPECT_TIMEOUT)
    code, where = CLASS_LINE.search(line.inner_text()).groups()
    return code, f"http://{where}/?room={code}"


def server_log_tail(server, lines: int = 30) -> str:
    return "\n".join(server.log.read_text(errors="replace").splitlines()[-lines:])


def no_exception(page):
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def chart_y(page, index: int, trace_type: str) -> list[float]:
    """The y values of a chart's first trace of a type, as the live Plotly graph drew them.

    gd.data keeps the base64 form the server sent; gd._fullData holds the decoded arrays.
    """
    return (
        page.locator(".js-plotly-plot")
        .nth(index)
        .evaluate(f"gd => Array.from(gd._fullData.find(t => t.type === '{trace_type}').y)")
    )


def settled(page, read, expected):
    """read() once it equals `expected`, or its last value after 10 s.

    A rerun replaces charts a moment after the script finishes, so poll rather than read once.
    """
    for _ in range(50):
        value = read()
        if value == expected:
            break
        page.wait_for_timeout(200)
    return value


def settled_chart_y(page, index: int, trace_type: str, expected: list[float]) -> list[float]:
    return settled(page, lambda: chart_y(page, index, trace_type), expected)


def nudge_slider(page, reruns, name: str):
    """Move a slider one step right with the keyboard and wait for the rerun; the slider."""
    slider = page.get_by_role("slider", name=name)
    before = reruns.finished
    slider.focus()
    page.keyboard.press("ArrowRight")
    reruns.wait_for_more_than(before, page)
    return slider


def change_address(page, reruns, query: str) -> None:
    """Change the address of the open session to `query` (?a=b…), as Back or an edited
    link does without reloading, and wait for the run it causes."""
    before = reruns.finished
    page.evaluate(
        """q => {
            history.pushState({}, '', location.pathname + q);
            dispatchEvent(new PopStateEvent('popstate', {state: {}}));
        }""",
        query,
    )
    reruns.wait_for_more_than(before, page, timeout=60)


# --- acting as a person would, each action waiting for the rerun it causes ---------------


def pick(page, reruns, name: str, option: str) -> None:
    """Choose `option` in a select box. A run that ends while the list is open redraws the
    box and closes the list (seen once in CI, just after a cold load); then open it again."""
    before = reruns.finished
    box = page.get_by_role("combobox", name=name, exact=True)
    for attempt in range(3):
        box.click()
        box.fill(option)
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    reruns.wait_for_more_than(before, page)


def type_into(page, reruns, name: str, text: str) -> None:
    before = reruns.finished
    box = page.get_by_role("textbox", name=name, exact=True)
    box.fill(text)
    box.press("Enter")
    reruns.wait_for_more_than(before, page)


def set_number(page, reruns, name: str, value: int) -> None:
    before = reruns.finished
    box = page.get_by_role("spinbutton", name=name, exact=True)
    box.fill(str(value))
    box.press("Enter")
    reruns.wait_for_more_than(before, page)


def press(page, reruns, name: str) -> None:
    before = reruns.finished
    page.get_by_role("button", name=name, exact=True).click()
    reruns.wait_for_more_than(before, page)


def shows(page, text: str) -> None:
    expect(page.get_by_text(text)).to_be_visible()
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)


def chosen(page, name: str) -> str:
    """The option a select box shows."""
    return page.get_by_role("combobox", name=name, exact=True).input_value()


# Markdown and HTML a hostile visitor puts in a link or a text box: each must show as text.
PAYLOADS = [
    "[Log in again](https://evil.example/login)",
    "![t](https://evil.example/t.png)",
    ":red[**Your session expired**] :material/warning:",
    "<img src=https://evil.example/x.png> https://evil.example www.evil.example",
]


def foreign(page) -> dict:
    """Links and images in the page that point away from the app, and styled spoof text."""
    return page.evaluate(
        """() => ({
            links: [...document.querySelectorAll('a[href]')]
                .map(a => a.href).filter(h => !h.startsWith(location.origin)),
            images: [...document.querySelectorAll('img')].map(i => i.src)
                .filter(s => s && !s.startsWith(location.origin) && !s.startsWith('data:')),
            red: [...document.querySelectorAll('[data-testid="stAlert"] span')]
                .filter(s => getComputedStyle(s).color === 'rgb(255, 43, 43)').length,
        })"""
    )

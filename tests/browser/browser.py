"""Helpers for the real-browser tests: Chromium, the pages a test opens, and waiting for reruns.

Debian's headless Chromium driven by Python Playwright, against the app started on a free
port (tests/conftest.py), and reruns counted from the websocket's `script_finished`
messages rather than from DOM flags.
"""

from __future__ import annotations

import os
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

# Debian's headless shell: the same Blink and V8 as its full Chromium without the browser's
# window layer, and a fifth less CPU for each page it loads (benchmarks/RESULTS.md).
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = [
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
        f"{CHROMIUM} not found: apt-get install -y chromium-headless-shell fonts-liberation",
    )


def new_context(chromium, viewport: dict):
    """A browser of one person's. They prefer reduced motion, as a person may: Streamlit
    then animates less while a page runs, which costs Chromium a little less CPU."""
    return chromium.new_context(viewport=viewport, reduced_motion="reduce")


# Run before a page's own scripts at each load: the first load in a tab empties the
# storage other tabs left (a tab's sessionStorage starts empty and survives its reloads).
FRESH_STORAGE = """if (!sessionStorage.getItem("ffn-tab")) {
    localStorage.clear();
    sessionStorage.setItem("ffn-tab", "1");
}"""


class Browser:
    """One test's Chromium. A page opens in the visitor's browser (`own=False`): a context
    the worker's tests share, so Streamlit's scripts come from its cache, as they do for a
    person who opens a second link; each page is still a session of its own. A page of
    another person (`own=True`: a class's students, each with a cookie and so a voter id of
    their own) opens in a context of its own. A new page starts with the browser's storage
    empty (Streamlit keeps there whether a person opened the sidebar), as a fresh
    browser's would; every page the test opened closes after it."""

    def __init__(self, chromium, shared) -> None:
        self.chromium, self.shared = chromium, shared
        self.contexts: list = []

    def new_page(self, viewport: dict, own: bool = False):
        if own:
            self.contexts.append(new_context(self.chromium, viewport))
            return self.contexts[-1].new_page()
        page = self.shared.new_page()
        page.add_init_script(FRESH_STORAGE)
        page.set_viewport_size(viewport)
        return page

    def close(self) -> None:
        for page in self.shared.pages:
            page.close()
        for context in self.contexts:
            context.close()


class Reruns:
    """Counts finished script runs of one page, read from its websocket frames: every run
    (`finished`), and whole-page runs alone (`pages`), which a class's polling fragments,
    running every second, do not add to."""

    def __init__(self, page) -> None:
        self.finished = 0
        self.pages = 0
        self.asked = 0  # runs the page asked for itself, not a fragment's timer
        self.answered = 0  # of those, how many have finished
        # what each run asked for and not yet finished wants: a fragment's run (True) or
        # the whole page's (False); a fragment's timer finishing answers neither
        self.waiting: deque[bool] = deque()
        self.frames: deque[str] = deque(maxlen=FRAMES_KEPT)
        self.start = time.monotonic()
        page.on("websocket", self._watch)
        # what the page's own scripts report: a page that goes blank says why here
        page.on("pageerror", lambda err: self.frames.append(f"{self._now()} page error {err}"))
        page.on("crash", lambda _: self.frames.append(f"{self._now()} the page crashed"))

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
            if not state.is_auto_rerun:
                self.asked += 1
                self.waiting.append(bool(state.fragment_id))
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
            whole_page = msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
            self.pages += whole_page
            # a whole page's run answers what was asked before it, a fragment's run only
            # a fragment's ask (the class's polling fragments finish between the two)
            while self.waiting and (whole_page or self.waiting[0]):
                self.waiting.popleft()
                self.answered += 1
                if not whole_page:
                    break

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


# Screenshots are for a person to look at, so a run takes them when asked for:
# `FFN_SCREENSHOTS=1 python -m pytest -m browser` (each costs Chromium a redraw).
SCREENSHOTS = os.environ.get("FFN_SCREENSHOTS") == "1"


def screenshot(page, name: str, whole: bool = True, always: bool = False) -> Path | None:
    """A whole-page screenshot in test-artifacts/, for a person to look at; or only the
    first screen, as a projector shows it (`whole=False`). Taken when the run asks for
    screenshots, or `always` (a failure's, which its message names); else None.

    Streamlit scrolls inside its main section, not the document, so Playwright's
    full_page alone stops at the first screen: grow the viewport to the content first.
    """
    if not (SCREENSHOTS or always):
        return None
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
    "build_it": "Build_it",
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
    "neurons": 1,  # the grid, grey until the guess; the counts below wait for it
    "key_value": 3,  # the sum of the writes waits for the guess about a silent neuron
    "activations": 2,  # the hidden values wait for a prediction
    "collapse": 5,  # the fits wait for a guess; the task's points are drawn before it
    "position_wise": 2,  # the change map, grey until the guess; the shuffle waits for it
    "backprop": 3,  # dh_pre and the maps made from it, the check and the exercise wait
    "build_it": 1,  # the diagram of the lines; the learner's own check waits for every line
    "traps": 1,  # W2's flat list, its one-stride reads held back; the other traps wait
    "scale_and_cost": 1,  # the shares' split; its parts, the ratio and the FLOPs wait
    "mixture_of_experts": 3,
    "superposition": 2,  # the arrows, Wᵀ W, the phase diagram and section 2's bars wait
    "memory_lab": 6,  # the capacity curve waits for its toggle
    "real_model": 5,  # sections 4 and 5 run once opened
    "language_model": 6,  # the gate-up scatter waits for a prediction, the edit for picks
    "glossary": 0,
}


def open_page(
    browser: Browser, url, charts: int | None = 1, viewport=DESKTOP, on_request=None, own=False
):
    """A new page (a new session) on `url`, once its first run finished and `charts`
    charts are drawn (None: any number); `on_request` sees every request, the first one
    included; `own`: in a browser of its own, as another person (see Browser)."""
    page = browser.new_page(viewport, own)
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


# Where the page's first figure starts and how many words of prose stand above it: the
# heading, sentences, notes and captions, not a control's own label or options.
FIRST_FIGURE = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const figure = main.querySelector('.js-plotly-plot');
    if (!figure) return null;
    const box = figure.getBoundingClientRect();
    // a control's own words, and a class's line and count (the class's, not the page's)
    const control = '[data-testid="stWidgetLabel"], [role="radiogroup"], label, button, '
        + 'summary, .st-key-class_line, [class*="st-key-class_tally_"]';
    const prose = [...main.querySelectorAll('h1, h2, h3, [data-testid="stMarkdownContainer"]')]
        .filter(el => !el.closest(control) && !el.parentElement.closest('h1, h2, h3'))
        .filter(el => el.offsetParent !== null && el.getBoundingClientRect().bottom <= box.top);
    const words = prose.map(el => el.innerText.split(/\\s+/).filter(w => /\\w/.test(w)).length);
    return [box.top, box.bottom, words.reduce((a, b) => a + b, 0)];
}"""
FIGURE_SHOWN = 200  # px of the first figure a first screen must show
MOST_WORDS = 45  # words of prose above the first figure


def first_screen_holds_the_first_figure(page, height: int) -> bool:
    """Whether a screen `height` high shows at least FIGURE_SHOWN px of the page's first
    figure, from its title down, with at most MOST_WORDS words of prose above it. Read
    until it does, for up to 5 s: just after a run the browser may still show the last
    run's elements above the new ones."""
    page.wait_for_function(FIRST_FIGURE, timeout=EXPECT_TIMEOUT)

    def holds() -> bool:
        top, _, words = page.evaluate(FIRST_FIGURE)
        return top <= height - FIGURE_SHOWN and words <= MOST_WORDS

    return settled(page, holds, True, seconds=5)


def menu_label(link) -> str:
    """A menu link's page name, without its tier's icon (whose name is text too)."""
    return link.locator('[data-testid="stMarkdownContainer"]').inner_text()


def sidebar_links(page) -> list:
    """The sidebar menu's page links, once the browser has drawn them."""
    page.locator(SIDEBAR_LINKS).first.wait_for(state="attached", timeout=EXPECT_TIMEOUT)
    return page.locator(SIDEBAR_LINKS).all()


SIDEBAR_CLOSED = """() => {
    const box = document.querySelector('[data-testid="stSidebar"]').getBoundingClientRect();
    return box.right <= 1;
}"""


def open_sidebar(page) -> None:
    """Open the sidebar with its arrow, if presenter mode (or a phone) has closed it."""
    if page.evaluate(SIDEBAR_CLOSED):
        page.get_by_test_id("stExpandSidebarButton").click()


def close_sidebar(page) -> None:
    """Close the sidebar, if it is open, and wait until it has slid away."""
    if not page.evaluate(SIDEBAR_CLOSED):
        page.get_by_test_id("stSidebarCollapseButton").click()
    page.wait_for_function(SIDEBAR_CLOSED)


def go_to(page, reruns, label: str) -> None:
    """Follow the sidebar menu's link to a page, as a person would, and wait for it to run."""
    before = reruns.finished
    page.locator(SIDEBAR_LINKS, has_text=label).first.click()
    reruns.wait_for_more_than(before, page)


CLASS_LINE = re.compile(r"Class ([0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5}) .* join at (\S+)")


def start_class(page) -> tuple[str, str]:
    """Press "Start a class" on a teacher's page: the class's code, as the class's line
    says it, and its join link at the address the test's server listens on (the line
    names this machine's network address, which a server on 127.0.0.1 does not answer)."""
    page.get_by_role("button", name="Start a class", exact=True).click()
    line = page.get_by_text(CLASS_LINE)
    expect(line).to_be_visible(timeout=EXPECT_TIMEOUT)
    code, _ = CLASS_LINE.search(line.inner_text()).groups()
    origin = re.match(r"https?://[^/]+", page.url)[0]
    return code, f"{origin}/?room={code}"


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


def settled(page, read, expected, seconds: float = 10):
    """read() once it equals `expected`, or its last value after `seconds`.

    A rerun replaces charts a moment after the script finishes, so poll rather than read once.
    """
    for _ in range(max(1, round(seconds / 0.2))):
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


def resize(page, viewport: dict) -> None:
    """Resize the page as a window would, and give Plotly time to lay its charts out again."""
    page.set_viewport_size(viewport)
    page.wait_for_timeout(250)


def walk_failure(walker, server, where: str, seed: int) -> str:
    """What a walk that met an exception says: its trail, the seed that replays it, the
    exception and the server's last words."""
    trail = "\n  ".join(walker.trail)
    errors = walker.exceptions()
    return (
        f"{where}, seed {seed}: an exception after\n  {trail}\n\n{errors[0] if errors else ''}"
        f"\n\nserver log:\n{server_log_tail(server)}"
    )


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

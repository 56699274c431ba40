"""A seeded random walk through a page's controls, the way a person clicks through them.

Each step picks one visible control at random (a select box, radio, pills, number, text,
button, toggle, slider or expander), does something a person could do with it, waits for
the rerun it causes, and records what it did. The trail is what a failing test prints, and
the seed replays it: `python -m pytest tests/browser/test_browser_walk.py --walk-seeds=7`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from playwright.sync_api import Error as PlaywrightError

from harness.protocol_walk import SENTENCES  # the protocol walk's, the same texts

ACT_TIMEOUT = 10_000  # ms: a control a person can use takes a click at once; one that
# cannot be used (covered, moving away) fails here instead of after Playwright's 30 s.
# Every kind of control a person can change, found by Streamlit's test ids.
CONTROLS = {
    "select": '[data-testid="stSelectbox"]',
    "multiselect": '[data-testid="stMultiSelect"]',
    "radio": '[data-testid="stRadio"] label',
    "pills": '[data-testid="stButtonGroup"] button',
    "number": '[data-testid="stNumberInput"] input',
    "text": '[data-testid="stTextInput"] input',
    "textarea": '[data-testid="stTextArea"] textarea',
    "button": '[data-testid="stButton"] button',
    "toggle": '[data-testid="stCheckbox"] label',
    "slider": '[data-testid="stSlider"] [role="slider"]',
    "expander": '[data-testid="stExpander"] summary',
    # presenter mode starts with the sidebar closed: a person opens it with its arrow
    "sidebar": '[data-testid="stExpandSidebarButton"]',
}
# Numbers a person might type: edge values, zero, negatives and far past any cap.
NUMBERS = ["0", "-1", "1", "2", "3", "5", "8", "16", "64", "100", "999", "100000"]
KEYS = ["ArrowRight", "ArrowLeft", "Home", "End", "PageUp", "PageDown"]
# Buttons the walk leaves alone: a class's page polls twice a second, so it is never idle
# (tests/browser/test_browser_classroom.py walks a class through its own steps).
NOT_WALKED = ["Start a class"]
EXCEPTION = '[data-testid="stException"]'
# The indices of the elements matching a selector that a person could use: shown, with a
# size, on the page's width (a collapsed sidebar slides its controls off to the left), and
# neither disabled nor inside something disabled (Playwright's own rules).
USABLE = """([selector, left]) => [...document.querySelectorAll(selector)].flatMap((el, i) => {
    // checkVisibility also sees what a closed expander (<details>) hides from view
    const box = el.getBoundingClientRect();
    const shown = el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})
        && el.getClientRects().length > 0 && box.right > 0 && box.left < window.innerWidth;
    const disabled = el.disabled || el.closest('[aria-disabled="true"], fieldset[disabled]');
    return shown && !disabled && !left.includes(el.innerText.trim()) ? [i] : [];
})"""


@dataclass
class Walker:
    """Random real actions on one browser page; `reruns` counts its finished script runs."""

    page: object
    reruns: object
    rng: random.Random
    trail: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.set_default_timeout(ACT_TIMEOUT)

    def step(self) -> None:
        """One random action on one visible control, then wait until the app is idle."""
        found = self.visible_controls()
        for _ in range(20):  # a page that just loaded may still be drawing its controls
            if found:
                break
            self.page.wait_for_timeout(250)
            found = self.visible_controls()
        if not found:
            self.trail.append("(no control to act on)")
            return
        kind, control = self.rng.choice(found)
        before = self.reruns.finished
        try:
            what = getattr(self, f"_{kind}")(control)
        except PlaywrightError as err:  # the control moved or closed under us: not an app error
            try:
                name = self.label(control)
            except PlaywrightError:  # a rerun took it away
                name = "(gone)"
            what = f"{kind} {name!r}: could not act ({str(err).splitlines()[0][:80]})"
            self.page.keyboard.press("Escape")
        self.trail.append(what)
        self.wait_after(before)

    def visible_controls(self) -> list[tuple[str, object]]:
        """Every visible, enabled control, by kind and then in page order: one round trip
        to the browser per kind rather than two per control."""
        found = []
        for kind, selector in CONTROLS.items():
            usable = self.page.evaluate(USABLE, [selector, NOT_WALKED])
            found += [(kind, self.page.locator(selector).nth(i)) for i in usable]
        return found

    def wait_after(self, before: int, quiet: float = 0.5, longest: float = 90) -> None:
        """Wait for the rerun an action started, if any, and then for the app to be idle.

        An action that reruns the script starts the run within a few frames, so `quiet`
        seconds without one means it started none (an expander, a disabled control)."""
        start = time.monotonic()
        while self.reruns.finished <= before and time.monotonic() - start < quiet:
            if self.running():
                break
            self.page.wait_for_timeout(50)
        idle_since = None
        while time.monotonic() - start < longest:  # idle for 300 ms: no second run queued
            if self.running():
                idle_since = None
            elif idle_since is None:
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > 0.3:
                break
            self.page.wait_for_timeout(50)

    def running(self) -> bool:
        return self.page.locator('[data-testid="stApp"][data-test-script-state="running"]').count()

    def exceptions(self) -> list[str]:
        return [e.inner_text()[:500] for e in self.page.locator(EXCEPTION).all()]

    def label(self, control) -> str:
        """The control's label, read from the nearest widget around it."""
        text = control.evaluate(
            """el => {
                const widget = el.closest('[data-testid="stElementContainer"]');
                const label = widget && widget.querySelector('[data-testid="stWidgetLabel"]');
                return (label ? label.innerText : el.innerText || el.getAttribute('aria-label')
                        || '').trim();
            }"""
        )
        return " ".join(text.split())[:60]

    # One method per kind of control: do it, and say what was done.
    def _select(self, control) -> str:
        name = self.label(control)
        text = self.choose_option(control)
        return f"select {name!r}: {text!r}"

    def choose_option(self, control) -> str:
        """Open a select box or multiselect and click one of its options at random."""
        options = self.page.get_by_role("option")
        for attempt in range(3):  # a rerun that lands just then closes the list again
            control.get_by_role("combobox").click()
            try:
                options.first.wait_for(timeout=2000)
                break
            except PlaywrightError:
                if attempt == 2:
                    raise
                self.page.keyboard.press("Escape")
                self.wait_after(self.reruns.finished)
        choices = options.all()
        if not choices:  # a rerun closed the list between its opening and this look
            raise PlaywrightError("the list closed before a choice")
        choice = self.rng.choice(choices)
        text = choice.inner_text()
        choice.click()
        return text

    def _multiselect(self, control) -> str:
        name = self.label(control)
        removers = control.locator('button[aria-label^="Remove "]').all()
        if removers and self.rng.random() < 0.4:
            remover = self.rng.choice(removers)
            what = remover.get_attribute("aria-label")
            remover.click()
            return f"multiselect {name!r}: {what}"
        text = self.choose_option(control)
        self.page.keyboard.press("Escape")
        return f"multiselect {name!r}: added {text!r}"

    def _radio(self, control) -> str:
        control.click()
        return f"radio {self.label(control)!r}: {control.inner_text()!r}"

    def _pills(self, control) -> str:
        control.click()
        return f"pills {control.inner_text()!r}"

    def type_in(self, control, kind: str, values: list[str], confirm: str) -> str:
        """Type one of `values` into a box and confirm it as a person would."""
        name = self.label(control)
        value = self.rng.choice(values)
        control.fill(value)
        control.press(confirm)
        return f"{kind} {name!r}: {value[:40]!r}"

    def _number(self, control) -> str:
        return self.type_in(control, "number", NUMBERS, "Enter")

    def _text(self, control) -> str:
        return self.type_in(control, "text", SENTENCES, "Enter")

    def _textarea(self, control) -> str:
        return self.type_in(control, "textarea", SENTENCES, "Tab")

    def _button(self, control) -> str:
        text = control.inner_text()
        control.click()
        return f"button {text!r}"

    def _toggle(self, control) -> str:
        control.click()
        return f"toggle {control.inner_text()!r}"

    def _slider(self, control) -> str:
        name = control.get_attribute("aria-label") or self.label(control)
        control.focus()
        keys = [self.rng.choice(KEYS) for _ in range(self.rng.randint(1, 3))]
        for key in keys:
            self.page.keyboard.press(key)
        return f"slider {name!r}: {' '.join(keys)}"

    def _expander(self, control) -> str:
        control.click()
        return f"expander {control.inner_text()[:40]!r}"

    def _sidebar(self, control) -> str:
        control.click()
        return "opened the sidebar"

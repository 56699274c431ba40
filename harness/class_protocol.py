"""A teacher and students without a browser: protocol sessions that press buttons, move
sliders and choose answers, and rerun their polling fragments on the timers a browser
keeps (`st.fragment(run_every=…)` is a timer in the browser, not on the server).

    teacher = Participant(port)
    code = teacher.start_class()
    student = Participant(port, f"room={code}")
    teacher.set("x1", 2.0)
    student.choose("guess_home", "neuron 2")
    student.tick()  # the fragments that are due, as the browser's timers would run them

Every message a participant sends is kept in `sent`, so a test can replay one person's
messages from another's session.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qsl, urlencode

from streamlit.proto.BackMsg_pb2 import BackMsg

from harness.protocol import Control, Seen, Visitor, decode

TOKEN = "Your token x = ("  # how Home's plane names the token (ffn_ui/figures/planes.py)
CLASS_CODE = re.compile(r"Class (?:<[^>]+>)?([0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{5})")


class Participant(Visitor):
    """One person's page on the server: it opens `page` with `query` as a link would."""

    def __init__(
        self,
        port: int,
        query: str = "",
        page: str = "",
        timeout: float = 120,
        cookie: str = "",
        **connection,
    ):
        """`connection`: Visitor's `source` and `headers`."""
        super().__init__(port, timeout, cookie, **connection)
        self.cookie = cookie  # a reload of this browser's page sends it again
        self.query, self.page_hash = query, ""
        self.due: dict[str, float] = {}  # fragment id: when the browser would rerun it
        self.fragments: dict[str, Seen] = {}  # fragment id: what its last own run showed
        self.values: dict[str, str] = {}  # each keyed control's value, as this page holds it
        self.sent: list[bytes] = []
        self.shown = self.send(self.message(page))  # what the last whole-page run showed

    def message(self, page: str = "") -> BackMsg:
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.page_script_hash = self.page_hash
        msg.rerun_script.query_string = self.query
        msg.rerun_script.context_info.url = f"http://127.0.0.1:{self.port}/{page}?{self.query}"
        return msg

    def send(self, msg: BackMsg | bytes) -> Seen:
        """Send one message and read its run; remember the page, the address the page
        wrote (the browser sends it back with every rerun) and the page's timers."""
        raw = msg if isinstance(msg, bytes) else msg.SerializeToString()
        self.sent.append(raw)
        self.ws.send(raw)
        seen = self.read()
        if seen.fragment_run and not isinstance(msg, bytes):
            self.fragments[msg.rerun_script.fragment_id] = seen
        self.page_hash = seen.page_hash or self.page_hash
        if seen.address is not None:
            self.query = seen.address
        for control in seen.controls:  # the server's word, where it set a value
            if control.key and (control.fresh or control.key not in self.values):
                self.values[control.key] = control.value
        if not seen.fragment_run:
            self.shown, self.fragments = seen, {}
            now = time.monotonic()
            self.due = {fragment: now + every for fragment, every in seen.timers.items()}
        return seen

    def replay(self, raw: bytes, wait: float = 3.0) -> Seen | None:
        """Send another session's message; None if this session ran nothing for it (a
        rerun of a fragment or a press of a button this page does not have)."""
        timeout, self.timeout = self.timeout, wait
        try:
            return self.send(raw)
        except TimeoutError:
            return None
        finally:
            self.timeout = timeout

    def change(self, widget: tuple[str, str], **value) -> Seen:
        """Send one widget's new value, e.g. double_array_value=[2.0] or trigger_value=True."""
        msg = self.message()
        state = msg.rerun_script.widget_states.widgets.add()
        state.id, msg.rerun_script.fragment_id = widget
        for name, given in value.items():
            if isinstance(given, list):
                getattr(state, name).data.extend(given)
            else:
                setattr(state, name, given)
        return self.send(msg)

    def history(self, query: str) -> Seen:
        """Change the open page's address to `query` without reloading, as Back, Forward or
        a link edited in place does: Chromium then sends the entry's query string, marked
        as history navigation, and no control's value (recorded from its websocket)."""
        self.query = query
        msg = self.message()
        msg.rerun_script.is_history_navigation = True
        return self.send(msg)

    def navigate(self, page_hash: str) -> Seen:
        """Open another page as a browser does when a menu item or a page link is clicked:
        naming the page by its hash, with the address's query string as it stands and no
        widget states (recorded from Chromium's websocket)."""
        msg = BackMsg()
        msg.rerun_script.page_script_hash = page_hash
        msg.rerun_script.query_string = self.query
        msg.rerun_script.context_info.url = f"http://127.0.0.1:{self.port}/?{self.query}"
        return self.send(msg)

    def go(self, path: str) -> Seen:
        """Click the sidebar menu's page at URL path `path` ("" for Home)."""
        return self.navigate(self.shown.pages[path])

    def follow(self, label: str) -> Seen:
        """Click the page's link whose label starts with `label` (a "Next:" link, say)."""
        (page_hash,) = [h for text, h in self.shown.links.items() if text.startswith(label)]
        return self.navigate(page_hash)

    def use(self, control: Control, value: object = None) -> Seen:
        """Do what a person does with `control`: press a button, or set the control to
        `value` (an option's text, a number, a bool, a text or a list of options)."""
        widget = (control.id, control.fragment)
        if control.key and control.kind != "button":  # what the browser now holds
            self.values[control.key] = as_text(value)
        self.write_address(control, value)
        if control.kind == "button":
            return self.change(widget, trigger_value=True)
        if control.kind in ("multiselect", "button_group"):
            return self.change(widget, string_array_value=list(value))
        if control.kind == "slider" and control.options:  # a select_slider: an option's text
            return self.change(widget, string_array_value=[str(value)])
        field = VALUE_FIELDS[control.kind]
        if control.kind == "slider":
            value = [float(value)]
        elif control.kind == "number_input":
            value = float(value)
        return self.change(widget, **{field: value})

    def write_address(self, control: Control, value: object) -> None:
        """Write a bound control's new value into the address, as the browser does before
        it asks for the rerun (the server never sends it back): the key once per value,
        and no key at all for the control's default."""
        if not control.url_key:
            return
        pairs = parse_qsl(self.query, keep_blank_values=True)
        pairs = [(k, v) for k, v in pairs if k != control.url_key]
        if as_text(value) != control.default:
            values = value if isinstance(value, list | tuple) else [value]
            pairs += [(control.url_key, url_text(v)) for v in values]
        self.query = urlencode(pairs)

    def set(self, key: str, value: object) -> Seen:
        """Set the control with this key (a slider, a box, a select box…) to `value`."""
        return self.use(self.control(key), value)

    def choose(self, key: str, option: str) -> Seen:
        """Pick `option` of the radio buttons with this key (a browser sends its text)."""
        return self.use(self.control(key), option)

    def press(self, label: str) -> Seen:
        return self.change(self.shown.buttons[label], trigger_value=True)

    def start_class(self) -> str:
        """Press "Start a class"; the class code the page then shows."""
        self.press("Start a class")
        codes = [m[1] for text in self.shown.texts if (m := CLASS_CODE.search(text))]
        if not codes:
            raise AssertionError(f"no class code shown: {self.shown.notes or self.shown.texts}")
        return codes[0]

    def tick(self) -> list[Seen]:
        """Rerun every fragment whose timer is due, as the browser would."""
        runs = []
        for fragment, when in list(self.due.items()):
            if time.monotonic() >= when and fragment in self.due:
                self.due[fragment] = time.monotonic() + self.shown.timers[fragment]
                msg = self.message()
                msg.rerun_script.fragment_id = fragment
                msg.rerun_script.is_auto_rerun = True
                runs.append(self.send(msg))
        return runs

    def poll_from(self, page_hash: str, query: str) -> Seen:
        """Rerun the page's polling fragments as a browser still on another page (`page_hash`
        at address `query`) does: its timer fired before it heard the server switch pages."""
        seen = Seen()
        for fragment in self.shown.timers:
            msg = self.message()
            msg.rerun_script.page_script_hash = page_hash
            msg.rerun_script.query_string = query
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = True
            seen = self.send(msg)
        return seen

    @property
    def notes(self) -> list[str]:
        """Every note the page shows now: its last whole run's, then its fragments'."""
        return [n for seen in [self.shown, *self.fragments.values()] for n in seen.notes]

    def control(self, key: str) -> Control:
        """The control with this key, as the page last drew it (a fragment's copy first)."""
        for seen in [*self.fragments.values(), self.shown]:
            for control in seen.controls:
                if control.key == key:
                    return control
        raise KeyError(key)

    def notes_after(self, key: str) -> list[str]:
        """What the page says after the control `key`, in its latest run."""
        for seen in [*self.fragments.values(), self.shown]:
            if key in seen.notes_after:
                return seen.notes_after[key]
        raise KeyError(key)

    def chart(self, key: str) -> str:
        """The latest figure JSON of the chart with this key, from the page or a fragment."""
        for seen in [*self.fragments.values(), self.shown]:
            if key in seen.keyed_charts:
                return seen.keyed_charts[key]
        raise KeyError(key)

    def next_due(self) -> float:
        return min(self.due.values(), default=time.monotonic() + 1)


def xsrf_cookie(token: bytes, mask: bytes) -> str:
    """Streamlit's XSRF cookie as a browser holds it: the token masked, version 2."""
    masked = bytes(b ^ mask[k % 4] for k, b in enumerate(token))
    return f"_streamlit_xsrf=2|{mask.hex()}|{masked.hex()}|1767225600"


def as_text(value: object) -> str:
    """A value as Control.value writes it."""
    if isinstance(value, list | tuple):
        return "|".join(as_text(v) for v in value)
    if isinstance(value, float | int) and not isinstance(value, bool):
        return f"{value:g}"
    return str(value)


def url_text(value: object) -> str:
    """One value as the browser writes it into the address: true/false, 24 for 24.0."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


VALUE_FIELDS = {  # the field of a WidgetState each kind of control sends its value in
    "checkbox": "bool_value",
    "radio": "string_value",
    "selectbox": "string_value",
    "slider": "double_array_value",
    "number_input": "double_value",
    "text_input": "string_value",
    "text_area": "string_value",
}


def bar_counts(spec: str) -> dict[str, int]:
    """A bar chart's counts by label, read from the figure JSON a page sent."""
    (bars,) = json.loads(spec)["data"]
    labels, values = ("y", "x") if bars.get("orientation") == "h" else ("x", "y")
    return dict(zip(bars[labels], decode(bars[values]).astype(int).tolist(), strict=True))


def token_x1(seen: Seen) -> str:
    """x₁ of the token Home's plane shows, as its words name it, e.g. "1.5"; "" for a page
    without the plane. The whole page and the class view both draw the plane first."""
    for spec in seen.charts[:1]:
        alt = json.loads(spec)["layout"].get("meta", {}).get("alt", "")
        if alt.startswith(TOKEN):
            return alt.removeprefix(TOKEN).split(",")[0].replace("−", "-")
    return ""

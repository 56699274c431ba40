"""A visitor without a browser: one websocket speaking Streamlit's own protocol.

    with Visitor(server.port) as visitor:
        seen = visitor.open("Neurons", "d_model=8&seed=3")

Each `open` asks the server to run a page as a browser opening that link would, and
reads the page's elements until the run finishes. It costs the server what a real
visitor costs it, and nothing on this side beyond a socket, so many can run at once.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from dataclasses import dataclass, field

import numpy as np
import requests
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect


@dataclass(frozen=True)
class Control:
    """One control a person could use, as the page sent it."""

    kind: str  # the element's type: "slider", "radio", "selectbox", "button", …
    id: str
    fragment: str  # the fragment it lives in, or ""
    label: str
    key: str = ""  # the control's key, for keyed controls
    sidebar: bool = False  # in the sidebar rather than the page
    options: tuple[str, ...] = ()
    low: float = 0.0
    high: float = 0.0
    step: float = 1.0
    integer: bool = False
    disabled: bool = False
    value: str = ""  # what it shows, as text (a list of options joined by "|") …
    fresh: bool = False  # … as this run set it; else its default (the browser may hold another)
    max_chars: int = 0  # a text box's limit, which the browser keeps to (0: none)
    url_key: str = ""  # the address's key it is bound to (bind="query-params"), or ""
    default: str = ""  # its default, as `value` writes it


@dataclass
class Seen:
    """What one run of a page sent back."""

    page_hash: str = ""
    notes: list[str] = field(default_factory=list)  # st.warning/info/error/success texts
    # The notes drawn after each keyed control and before the next one: a question's key
    # -> what the page says about it.
    notes_after: dict[str, list[str]] = field(default_factory=dict)
    headings: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # markdown and captions
    charts: list[str] = field(default_factory=list)  # each Plotly chart's figure JSON
    metrics: dict[str, str] = field(default_factory=dict)  # a metric's label: its value
    keyed_charts: dict[str, str] = field(default_factory=dict)  # a keyed chart's key: JSON
    widgets: dict[str, tuple[str, str]] = field(default_factory=dict)  # key: (id, fragment)
    buttons: dict[str, tuple[str, str]] = field(default_factory=dict)  # label: (id, fragment)
    controls: list[Control] = field(default_factory=list)  # every control, in page order
    links: dict[str, str] = field(default_factory=dict)  # a page link's label: its page's hash
    pages: dict[str, str] = field(default_factory=dict)  # the menu: URL path -> page hash
    address: str | None = None  # the query string the page last put in the address bar
    timers: dict[str, float] = field(default_factory=dict)  # fragment id: seconds between runs
    exceptions: list[str] = field(default_factory=list)
    fragment_run: bool = False  # only fragments ran, not the whole page

    @property
    def title(self) -> str:
        """The page's title: its first heading."""
        return self.headings[0] if self.headings else ""


class Visitor:
    """One session on the server, opened by connecting and closed on exit."""

    def __init__(
        self,
        port: int,
        timeout: float = 120,
        cookie: str = "",
        source: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        """`cookie`: the Cookie header a browser would send (its XSRF cookie, say);
        `source`: the loopback address to connect from (127.0.0.5, say: a visitor from
        another address); `headers`: more headers to send, as a client may."""
        self.port = port
        self.timeout = timeout
        sent = {**({"Cookie": cookie} if cookie else {}), **(headers or {})}
        connection = connect(
            f"ws://127.0.0.1:{port}/_stcore/stream",
            subprotocols=["streamlit"],
            max_size=None,
            additional_headers=sent or None,
            source_address=(source, 0) if source else None,
        )
        self.ws = connection.__enter__()  # the websockets API opens it as a context
        self.session_id = ""  # the server's name for this session, from its first message

    def __enter__(self) -> Visitor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.ws.close()

    def open(self, page: str = "", query: str = "", page_hash: str = "") -> Seen:
        """Run `page` (its URL path, "" for home) as a link with `query` would open it."""
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.page_script_hash = page_hash
        msg.rerun_script.query_string = query
        msg.rerun_script.context_info.url = f"http://127.0.0.1:{self.port}/{page}?{query}"
        self.ws.send(msg.SerializeToString())
        return self.read()

    def rerun(self, page: str, page_hash: str, widget: tuple[str, str], value: float) -> Seen:
        """Move a slider (its widget id and fragment id) to `value`, as a person would."""
        msg = BackMsg()
        msg.rerun_script.page_name = page
        msg.rerun_script.page_script_hash = page_hash
        msg.rerun_script.context_info.url = f"http://127.0.0.1:{self.port}/{page}"
        state = msg.rerun_script.widget_states.widgets.add()
        state.id, msg.rerun_script.fragment_id = widget
        state.double_array_value.data.append(value)
        self.ws.send(msg.SerializeToString())
        return self.read()

    def upload(self, name: str, data: bytes) -> requests.Response:
        """Send a file to this session's upload address under a new file id, as the browser
        does before it tells the uploader (the XSRF check compares a cookie and a header,
        which a client sets alike)."""
        token = secrets.token_hex(16)
        return requests.put(
            f"http://127.0.0.1:{self.port}/_stcore/upload_file/{self.session_id}/{uuid.uuid4()}",
            files={"file": (name, data)},
            headers={"X-Xsrftoken": token},
            cookies={"_streamlit_xsrf": token},
            timeout=self.timeout,
        )

    def read(self) -> Seen:
        """ForwardMsgs until the run finishes (a run cut short for a rerun does not count)."""
        seen = Seen()
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=self.timeout))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "navigation":  # names the page that ran, and the menu's pages
                seen.page_hash = fwd.navigation.page_script_hash
                seen.pages = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
            elif kind == "page_info_changed":  # what the browser's address bar now says
                seen.address = fwd.page_info_changed.query_string
            elif kind == "auto_rerun":  # a fragment the browser reruns on a timer
                seen.timers[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                sidebar = fwd.metadata.delta_path[:1] == [1]  # the root: 0 main, 1 sidebar
                note(seen, fwd.delta.new_element, fwd.delta.fragment_id, sidebar)
            elif kind == "script_finished" and (
                fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                seen.fragment_run = (
                    fwd.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
                )
                return seen


def note(seen: Seen, element, fragment_id: str, sidebar: bool = False) -> None:
    """Record what the checks read from one new element."""
    which = element.WhichOneof("type")
    if which == "alert":
        seen.notes.append(element.alert.body)
        if seen.controls and seen.controls[-1].key:
            seen.notes_after.setdefault(seen.controls[-1].key, []).append(element.alert.body)
    elif which == "heading":
        seen.headings.append(element.heading.body)
    elif which == "markdown":
        seen.texts.append(element.markdown.body)
    elif which == "plotly_chart":
        seen.charts.append(element.plotly_chart.spec)
        if "-" in element.plotly_chart.id:
            seen.keyed_charts[element.plotly_chart.id.rsplit("-", 1)[1]] = element.plotly_chart.spec
    elif which == "metric":
        seen.metrics[element.metric.label] = element.metric.body
    elif which == "exception":
        seen.exceptions.append(f"{element.exception.type}: {element.exception.message}")
    elif which == "page_link":
        seen.links[element.page_link.label] = element.page_link.page_script_hash
    elif which in CONTROLS:
        control = read_control(which, getattr(element, which), fragment_id, sidebar)
        seen.controls.append(control)
        if which == "button":
            seen.buttons[control.label] = (control.id, fragment_id)
        if control.key:
            seen.widgets[control.key] = (control.id, fragment_id)
    else:
        widget_id = getattr(getattr(element, which), "id", "")
        if widget_id and "-" in widget_id:  # keyed widgets end their id with "-<key>"
            seen.widgets[widget_id.rsplit("-", 1)[1]] = (widget_id, fragment_id)


CONTROLS = ("button", "checkbox", "radio", "selectbox", "slider", "number_input",
            "text_input", "text_area", "multiselect", "button_group")  # fmt: skip


def read_control(kind: str, widget, fragment_id: str, sidebar: bool) -> Control:
    """A control's kind, id and what a person could set it to."""
    key = widget.id.rsplit("-", 1)[1] if "-" in widget.id else ""  # keyed ids end "-<key>"
    key = "" if key == "None" else key  # … and others end "-None"
    options = tuple(getattr(widget, "options", ()))
    if kind == "button_group":
        options = tuple(option.content for option in widget.options)
    low = high = 0.0
    step, integer = 1.0, False
    if kind == "slider":
        low, high, step = widget.min, widget.max, widget.step
        integer = widget.data_type == widget.INT
    elif kind == "number_input":
        low = widget.min if widget.has_min else -1e6
        high = widget.max if widget.has_max else 1e6
        step, integer = widget.step, widget.data_type == widget.INT
    label = getattr(widget, "label", "")
    return Control(
        kind, widget.id, fragment_id, label, key, sidebar, options, low, high, step, integer,
        bool(getattr(widget, "disabled", False)), shown_value(kind, widget, options),
        bool(getattr(widget, "set_value", False)), getattr(widget, "max_chars", 0),
        getattr(widget, "query_param_key", ""), shown_value(kind, widget, options, fresh=False),
    )  # fmt: skip


def shown_value(kind: str, widget, options: tuple[str, ...], fresh: bool | None = None) -> str:
    """The value a control shows: the one the run set (`set_value`), else its default;
    its default alone with `fresh=False`."""
    if fresh is None:
        fresh = getattr(widget, "set_value", False)
    if kind in ("radio", "selectbox"):
        if fresh:
            return widget.raw_value
        return options[widget.default] if 0 <= widget.default < len(options) else ""
    if kind in ("multiselect", "button_group"):
        if fresh:
            return "|".join(widget.raw_values)
        return "|".join(options[k] for k in widget.default if 0 <= k < len(options))
    if kind == "slider" and options:  # a select_slider: its values are options' indices
        if fresh and widget.raw_value:
            return "|".join(widget.raw_value)
        picked = widget.value if fresh else widget.default
        return "|".join(options[int(k)] for k in picked if 0 <= int(k) < len(options))
    if kind == "slider":
        return "|".join(f"{v:g}" for v in (widget.value if fresh else widget.default))
    if kind == "number_input":
        return f"{widget.value if fresh else widget.default:g}"
    if kind in ("checkbox", "text_input", "text_area"):
        return str(widget.value if fresh else widget.default)
    return ""


def decode(values) -> np.ndarray:
    """Plotly 6+ encodes NumPy arrays as {"dtype", "bdata" (base64), "shape"}; lists stay lists."""
    if isinstance(values, dict) and "bdata" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return arr.reshape(shape) if shape else arr
    return np.asarray(values)

"""A visitor without a browser: one websocket speaking Streamlit's own protocol.

    with Visitor(server.port) as visitor:
        seen = visitor.open("Neurons", "d_model=8&seed=3")

Each `open` asks the server to run a page as a browser opening that link would, and
reads the page's elements until the run finishes. It costs the server what a real
visitor costs it, and nothing on this side beyond a socket, so many can run at once.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import numpy as np
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect


@dataclass
class Seen:
    """What one run of a page sent back."""

    page_hash: str = ""
    notes: list[str] = field(default_factory=list)  # st.warning/info/error/success texts
    headings: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # markdown and captions
    charts: list[str] = field(default_factory=list)  # each Plotly chart's figure JSON
    widgets: dict[str, tuple[str, str]] = field(default_factory=dict)  # key: (id, fragment)
    buttons: dict[str, tuple[str, str]] = field(default_factory=dict)  # label: (id, fragment)
    timers: dict[str, float] = field(default_factory=dict)  # fragment id: seconds between runs
    exceptions: list[str] = field(default_factory=list)
    fragment_run: bool = False  # only fragments ran, not the whole page


class Visitor:
    """One session on the server, opened by connecting and closed on exit."""

    def __init__(self, port: int, timeout: float = 120) -> None:
        self.port = port
        self.timeout = timeout
        connection = connect(
            f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=None
        )
        self.ws = connection.__enter__()  # the websockets API opens it as a context

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

    def read(self) -> Seen:
        """ForwardMsgs until the run finishes (a run cut short for a rerun does not count)."""
        seen = Seen()
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=self.timeout))
            kind = fwd.WhichOneof("type")
            if kind == "navigation":  # names the page that ran
                seen.page_hash = fwd.navigation.page_script_hash
            elif kind == "auto_rerun":  # a fragment the browser reruns on a timer
                seen.timers[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                note(seen, fwd.delta.new_element, fwd.delta.fragment_id)
            elif kind == "script_finished" and (
                fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                seen.fragment_run = (
                    fwd.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
                )
                return seen


def note(seen: Seen, element, fragment_id: str) -> None:
    """Record what the checks read from one new element."""
    which = element.WhichOneof("type")
    if which == "alert":
        seen.notes.append(element.alert.body)
    elif which == "heading":
        seen.headings.append(element.heading.body)
    elif which == "markdown":
        seen.texts.append(element.markdown.body)
    elif which == "plotly_chart":
        seen.charts.append(element.plotly_chart.spec)
    elif which == "exception":
        seen.exceptions.append(f"{element.exception.type}: {element.exception.message}")
    elif which == "button":
        seen.buttons[element.button.label] = (element.button.id, fragment_id)
    else:
        widget = getattr(element, which)
        widget_id = getattr(widget, "id", "")
        if widget_id and "-" in widget_id:  # keyed widgets end their id with "-<key>"
            seen.widgets[widget_id.rsplit("-", 1)[1]] = (widget_id, fragment_id)


def decode(values) -> np.ndarray:
    """Plotly 6+ encodes NumPy arrays as {"dtype", "bdata" (base64), "shape"}; lists stay lists."""
    if isinstance(values, dict) and "bdata" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return arr.reshape(shape) if shape else arr
    return np.asarray(values)

"""What a teacher's page draws, written down as it runs, so that a following student's page
can draw it without running the page (ffn_ui/classroom/class_view.py).

    recorder = start()               before a teacher's whole run (follow.recorded)
    with recorder.listening():       around the page's run: its words, as it sends them
    heading("Neurons: who fires")    page_frame
    figure(fig, "ReLU: lowest 0 …")  ffn_ui.page.display.show, before presenter mode
    question(key, qid, text, options, answer, why)   predicted, in a class
    with paused(): ...               what the class's own lines draw: not the page's words
    digest, text = recorder.finish() after the page ran

Only a session that teaches records, and only during a whole run of its page: a
fragment's rerun (the tally's chart, the class line) records nothing. The text is JSON:
{"heading": ..., "items": [{"figure": <Plotly's JSON>, "alt": ...} |
{"question": {...}} | {"words": {"kind": ..., "text": ...}}]}; a question carries its
answer and why only once it is revealed. The words are every heading below the title,
sentence, caption, metric, note and code the page draws in its main part, in order (read
as Streamlit sends them: ffn_ui/streamlit_internals.elements_sent), so a student's page
says what the teacher's page says.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator

import plotly.graph_objects as go
import plotly.io
import streamlit as st
from streamlit.proto.Element_pb2 import Element

from ffn_ui.streamlit_internals import elements_sent

RECORDING = "class_recording"  # session only: the Recorder of this session's last whole run


class Recorder:
    """One whole run's record. It is finished without touching the session: after a page's
    st.stop(), every read of st.session_state stops the run again."""

    def __init__(self) -> None:
        self.heading, self.items, self.on, self.quiet = "", [], True, 0

    @contextlib.contextmanager
    def listening(self) -> Iterator[None]:
        """Record the page's words as the run sends them."""
        with elements_sent(self.sent):
            yield

    def sent(self, place: list[int], element: Element) -> None:
        if self.on and not self.quiet and place[:1] == [0]:  # the page, not the sidebar
            words = words_of(element)
            if words is not None:
                self.items.append({"words": words})

    def finish(self) -> tuple[str, str]:
        """The record as (digest, text); recording stops."""
        self.on = False
        text = json.dumps(
            {"heading": self.heading, "items": self.items}, sort_keys=True, ensure_ascii=False
        )
        self.items = []  # the session keeps the recorder, not its figures
        return digest_of(text), text


def digest_of(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def start() -> Recorder:
    recorder = st.session_state[RECORDING] = Recorder()
    return recorder


def recording() -> Recorder | None:
    """The record of the whole run in progress, or None (no teacher, or a fragment's run)."""
    recorder = st.session_state.get(RECORDING)
    return recorder if recorder is not None and recorder.on else None


def heading(text: str) -> None:
    if (record := recording()) is not None:
        record.heading = text


ALERTS = {1: "error", 2: "warning", 3: "info", 4: "success"}  # Streamlit's Alert.Format
KINDS = ("heading", "subheading", "markdown", "caption", "metric", "code", *ALERTS.values())


def words_of(element: Element) -> dict | None:
    """What a class view says for one element the page sent: {"kind", "text"} (and a
    metric's "label"); None for what it draws its own way (figures, questions, controls,
    the title, the figure in numbers) or does not draw (tables, spacing)."""
    which = element.WhichOneof("type")
    if which == "heading" and element.heading.tag in ("h2", "h3"):
        kind = "heading" if element.heading.tag == "h2" else "subheading"
        return {"kind": kind, "text": element.heading.body}
    if which == "markdown" and element.markdown.body and not element.markdown.allow_html:
        caption = element.markdown.element_type == element.markdown.CAPTION
        return {"kind": "caption" if caption else "markdown", "text": element.markdown.body}
    if which == "metric":
        return {"kind": "metric", "label": element.metric.label, "text": element.metric.body}
    if which == "alert" and element.alert.format in ALERTS:
        return {"kind": ALERTS[element.alert.format], "text": element.alert.body}
    if which == "code":
        return {"kind": "code", "text": element.code.code_text}
    return None


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """What the class's own lines draw inside a page's run (the class line, the count of
    answers, the teacher's verdict): not the page's words."""
    record = recording()
    if record is not None:
        record.quiet += 1
    try:
        yield
    finally:
        if record is not None:
            record.quiet -= 1


def figure(fig: go.Figure, alt: str) -> None:
    """The figure as the page built it (each student's own presenter mode and contrast
    apply on their page)."""
    if (record := recording()) is not None:
        record.items.append({"figure": plotly.io.to_json(fig, validate=False), "alt": alt})


def question(
    key: str, qid: str, text: str, options, answer: str | None = None, why: str | None = None
) -> None:
    if (record := recording()) is not None:
        asked = {"key": key, "qid": qid, "text": text, "options": list(options)}
        if answer is not None:
            asked.update(answer=answer, why=why)
        record.items.append({"question": asked})

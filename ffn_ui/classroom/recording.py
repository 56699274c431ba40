"""What a teacher's page draws, written down as it runs, so that a following student's page
can draw it without running the page (ffn_ui/classroom/class_view.py).

    recorder = start()               before a teacher's whole run (follow.recorded)
    heading("Neurons: who fires")    page_frame
    figure(fig, "ReLU: lowest 0 …")  ffn_ui.page.display.show, before presenter mode
    question(key, qid, text, options, answer, why)   predicted, in a class
    digest, text = recorder.finish() after the page ran

Only a session that teaches records, and only during a whole run of its page: a
fragment's rerun (the tally's chart, the class line) records nothing. The text is JSON:
{"heading": ..., "items": [{"figure": <Plotly's JSON>, "alt": ...} |
{"question": {...}}]}; a question carries its answer and why only once it is revealed.
"""

from __future__ import annotations

import hashlib
import json

import plotly.graph_objects as go
import plotly.io
import streamlit as st

RECORDING = "class_recording"  # session only: the Recorder of this session's last whole run


class Recorder:
    """One whole run's record. It is finished without touching the session: after a page's
    st.stop(), every read of st.session_state stops the run again."""

    def __init__(self) -> None:
        self.heading, self.items, self.on = "", [], True

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

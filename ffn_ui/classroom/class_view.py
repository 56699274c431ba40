"""A following student's page: the class view. The teacher's heading, figures and questions,
drawn from what the teacher's page drew (ffn_ui/classroom/recording.py), with the
student's own vote; the page's script does not run in the student's session.

    app.py:   content = class_content(followed())  # None: follow with the whole page
              class_view(page.title, content) if content else page.run()

A page's figures are built once, by the teacher's page; each server process reads a
version's text from the room store once and keeps the figures it makes from it
(`parsed`), so a teacher's change costs a following student one light run. Unticking
"Follow the teacher" brings back the whole page, at the teacher's settings (catch_up has
copied them). A page with no figure, or one whose work is the student's own (Build it),
is followed as the whole page.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

import plotly.graph_objects as go
import streamlit as st

from ffn_ui.classroom import recording
from ffn_ui.classroom.follow import class_controls
from ffn_ui.classroom.recording import digest_of
from ffn_ui.classroom.room import REVEALED, store
from ffn_ui.classroom.store import ClassConnectionError, Look, RoomError
from ffn_ui.classroom.votes import class_round
from ffn_ui.page.display import draw
from ffn_ui.page.predict import NOT_SURE, Question, ask
from ffn_ui.page.setup import display_toggles, setup_page

OWN_WORK = {"Build it"}  # pages whose point is what each student types: followed whole
KEPT = 32  # rooms whose newest figures a server process keeps
FIGURES_IN_NUMBERS = "Each figure in words, with its numbers"
WAITING = "The teacher has revealed the answer: it shows here within a few seconds."


class SharedFigure(go.Figure):
    """A figure every student's page draws. st.plotly_chart copies a figure (to_dict) at
    each draw; this one hands out the copy made once, which nothing writes to. A page
    that restyles it (presenter mode, high contrast) draws a go.Figure made from that."""

    def __init__(self, spec: dict):
        super().__init__(spec)
        self._spec = super().to_dict()

    def to_dict(self) -> dict:
        return self._spec


class Words(dict):
    """What the teacher's page said at one place: {"kind", "text"} (a metric's "label")."""


class Content:
    """One version of what the teacher's page drew: its heading and its items, each a
    figure (a go.Figure and its words), a question (a dict, as recorded) or words."""

    def __init__(self, text: str):
        record = json.loads(text)
        self.heading = str(record["heading"])
        self.items: list[tuple[SharedFigure, str] | dict] = [item_of(i) for i in record["items"]]

    @property
    def figures(self) -> int:
        return sum(isinstance(item, tuple) for item in self.items)


def item_of(item: dict) -> tuple[SharedFigure, str] | dict:
    """One recorded item, checked to be one this view draws (raises ValueError)."""
    if "figure" in item:
        return SharedFigure(json.loads(item["figure"])), str(item["alt"])
    if "words" in item:
        return said(item["words"])
    return asked(item["question"])


def said(words: dict) -> Words:
    """Recorded words, checked: a kind the view draws, and texts."""
    texts = (words.get("text"), words.get("label", ""))
    if words.get("kind") not in recording.KINDS or not all(isinstance(t, str) for t in texts):
        raise ValueError("not words this view can say")
    return Words(words)


def asked(question: dict) -> dict:
    """A recorded question, checked to have what the view draws (raises ValueError)."""
    texts = (question.get("key"), question.get("qid"), question.get("text"))
    options = question.get("options")
    if not all(isinstance(t, str) for t in texts) or not (
        isinstance(options, list) and all(isinstance(o, str) for o in options)
    ):
        raise ValueError("not a question this view can ask")
    return question


_kept: OrderedDict[str, tuple[str, Content]] = OrderedDict()  # room -> its newest version
_lock = threading.Lock()  # guards _kept
_making = threading.Lock()  # one version made at a time: its other followers wait for it


def held(code: str, digest: str) -> Content | None:
    with _lock:
        version, content = _kept.get(code, ("", None))
        if version != digest:
            return None
        _kept.move_to_end(code)
        return content


def parsed(code: str, digest: str) -> Content | None:
    """The content the room's view names, made once per server process; None when the
    room holds none (or not yet the one named: the next version brings it).

    A process keeps the newest version of each of the last KEPT rooms its students
    followed: a class's students all read its newest one, so other classes' changes do
    not push it out, and the followers who ask for a new version while it is being made
    wait for that one making instead of each making it again."""
    content = held(code, digest)
    if content is not None:
        return content
    with _making:
        content = held(code, digest)  # made while this run waited
        if content is not None:
            return content
        try:
            text = store().content(code)
        except (RoomError, ClassConnectionError):
            return None
        if not text or digest_of(text) != digest:
            return None
        try:
            content = Content(text)
        except (ValueError, KeyError, TypeError):  # not this version's form (another release
            return None  # writing to the same Redis, say): the page is followed whole
        with _lock:
            _kept[code] = (digest, content)
            _kept.move_to_end(code)
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return content


def class_content(following: tuple[str, Look] | None) -> Content | None:
    """What a following student's page draws instead of the page, or None for the whole
    page: no class followed, a page of the student's own work, or nothing to draw."""
    if following is None:
        return None
    code, look = following
    if look.view.get("page") in OWN_WORK:
        return None
    digest = look.view.get("content")
    if not isinstance(digest, str) or not digest:
        return None
    content = parsed(code, digest)
    return content if content is not None and content.figures else None


def class_view(page: str, content: Content) -> None:
    """The teacher's page as the class sees it: the frame (the student's own display
    settings and the class's controls), then the teacher's heading, figures and
    questions in the order the page drew them, and at the end every figure in numbers
    (fewer elements for each student's page to send than a text under each)."""
    setup_page(page)
    presenter = display_toggles(st.sidebar)
    st.title(content.heading)
    class_controls(st.sidebar, st.container(), presenter, viewing=True)
    words = []
    for number, item in enumerate(content.items):
        if isinstance(item, tuple):
            fig, alt = item
            if presenter or st.session_state.get("contrast"):
                fig = go.Figure(fig.to_dict())  # restyled for this page alone
            draw(fig, alt, presenter, words_below=False, key=f"class_figure_{number}")
            title = fig.layout.title.text
            named = f"Figure {len(words) + 1}" + (f", {title}" if title else "")
            words.append(f"{named}: {alt}")
        elif isinstance(item, Words):
            say(item)
        else:
            vote(item)
    # One element for every figure's words: each is also its chart's accessible name.
    st.expander(FIGURES_IN_NUMBERS).text("\n\n".join(words))


def say(words: Words) -> None:
    """The teacher's page's words, as that page drew them (Markdown that page made, with
    anything a visitor typed already quoted as literal text)."""
    kind, text = words["kind"], words["text"]
    if kind == "metric":
        st.metric(words.get("label", ""), text)
    elif kind == "code":
        st.code(text, language=None)
    else:
        draw_words = {"heading": st.header, "subheading": st.subheader, "markdown": st.markdown,
                      "caption": st.caption, "info": st.info, "warning": st.warning,
                      "success": st.success, "error": st.error}  # fmt: skip
        draw_words[kind](text)


def vote(asked: dict) -> None:
    """The teacher's question on this student's page, with their own answer; its verdict
    once the teacher reveals it."""
    guess = ask(asked["key"], asked["qid"], asked["text"], asked["options"])
    if asked["qid"] in st.session_state.get(REVEALED, frozenset()) and ("answer" not in asked):
        st.info(WAITING)  # the teacher's page has not drawn the answer yet
        return
    question = Question(
        asked["text"], asked["key"], asked["options"], asked.get("answer", ""), asked.get("why", "")
    )
    class_round(question, asked["qid"], guess, NOT_SURE, st)

"""A page's predict-then-reveal question, asked of the whole class.

In a class, `ffn_ui.predict.predicted` calls `take_part`: the teacher's page asks the room
the question and shows a live bar chart of the class's answers, with "Reveal to the class";
a student's page sends the student's guess ("not sure yet" until they choose), counted once
per student and question, anonymously (a random id the server keeps in the session). A
question is the page's question at its setting, so a changed setting starts a new count.
"""

from __future__ import annotations

import hashlib
import math
import secrets

import streamlit as st

from ffn_ui import figures
from ffn_ui.classroom import LIVE, REVEALED, TEACHER, asked, store, teaching
from ffn_ui.display import show
from ffn_ui.room_store import ClassConnectionError, RoomError

VOTED = "class_voted"  # session only: question -> the answer this session last sent
VOTER = "class_voter"  # session only: this session's anonymous id in the class's counts
TALLY_SECONDS = 1.0  # how often the teacher's chart of answers is redrawn
MAX_REMEMBERED = 200  # questions a session remembers having answered


def question_id(key: str, setting: object) -> str:
    """The question's URL key and a short digest of its setting: "guess_rows:3f2a9c01d4"."""
    return f"{key}:{hashlib.sha256(repr(setting).encode()).hexdigest()[:10]}"


def take_part(key: str, setting: object, choices: tuple[str, ...], guess: str) -> bool:
    """Ask or answer in the class; True once the teacher has revealed this question."""
    code = st.session_state.get(LIVE, "")
    if not code:
        return False
    qid = question_id(key, setting)
    if teaching(code):
        asked(store().ask, code, st.session_state[TEACHER][1], qid, choices)
        tally(code, qid)
    else:
        vote(code, qid, guess)
    revealed = asked(store().revealed, code) or ""
    st.session_state[REVEALED] = revealed
    return revealed == qid


def in_class() -> bool:
    return bool(st.session_state.get(LIVE))


def vote(code: str, qid: str, guess: str) -> None:
    """Send this student's guess, once per change; a refusal (too many votes) is said."""
    sent = st.session_state.setdefault(VOTED, {})
    if sent.get(qid) == guess:
        return
    if len(sent) >= MAX_REMEMBERED:
        sent.clear()
    try:
        voter = st.session_state.setdefault(VOTER, secrets.token_urlsafe(12))
        store().vote(code, qid, voter, guess)
        sent[qid] = guess
    except ClassConnectionError as err:
        st.warning(f"{err} Your guess counts on your own page.")
    except RoomError as err:
        st.warning(f"Your guess was not counted: {err}")


def reveal(code: str, qid: str) -> None:
    asked(store().reveal, code, st.session_state[TEACHER][1], qid)


@st.fragment(run_every=TALLY_SECONDS)
def tally(code: str, qid: str) -> None:
    """The teacher's live chart of the class's answers, and the button that reveals."""
    counts = asked(store().tally, code, qid)
    if counts is None:
        return
    title = f"the class's answers: {sum(counts.values())} so far"
    fig = figures.bars(list(counts), list(counts.values()), title, "students")
    fig.update_yaxes(dtick=max(1, math.ceil(max(counts.values(), default=0) / 5)))  # whole
    show(fig, st.session_state.get("presenter", False))
    st.button("Reveal to the class", on_click=reveal, args=(code, qid), key=f"reveal_{qid}")

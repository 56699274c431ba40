"""How far a class has got with Build it: each student's page reports which lines are
right, and the teacher's page shows how many students have each one, live.

It rides on the room's votes (ffn_ui/classroom/votes.py): each line is a question with one
answer, "right", asked by the teacher's page. A student's right line is a vote for it, and
a line that goes wrong again takes the vote back. What a student typed never leaves
their session: only right or not.
"""

from __future__ import annotations

import streamlit as st

from ffn_ui import figures
from ffn_ui.classroom.room import LIVE, STUDENTS, TEACHER, asked, client_address, store, teaching
from ffn_ui.classroom.store import ClassConnectionError, RoomError
from ffn_ui.classroom.voter import voter
from ffn_ui.page.display import show

RIGHT = "right"
SENT = "class_lines_sent"  # session only: "code/line" -> whether this session said right
TALLY_SECONDS = 2.0


def question(line: str) -> str:
    return f"build_{line}"


def class_progress(right: dict[str, bool]) -> None:
    """In a class: the teacher's page asks for every line and shows the counts; a
    student's page says which of its lines are right. Outside a class: nothing."""
    state = st.session_state
    code = state.get(LIVE)
    if not code:
        return
    if teaching(code):
        for line in right:
            asked(store().ask, code, state[TEACHER][1], question(line), (RIGHT,))
        counts(code, list(right))
        return
    for line, ok in right.items():
        report(code, line, ok)


def report(code: str, line: str, ok: bool) -> None:
    """Say once that a line is right, or no longer right. The teacher's page may not
    have asked yet (a student who got here first): then it is said on a later run."""
    sent = st.session_state.setdefault(SENT, {})
    said = f"{code}/{line}"
    if sent.get(said, False) == ok:
        return
    try:
        store().vote(code, question(line), voter(), RIGHT if ok else None, client_address())
    except (RoomError, ClassConnectionError):
        return
    sent[said] = ok


@st.fragment(run_every=TALLY_SECONDS)
def counts(code: str, lines: list[str]) -> None:
    """The teacher's chart: how many students have each line right."""
    students = st.session_state.get(STUDENTS, 0)
    right = [(asked(store().tally, code, question(line)) or {}).get(RIGHT, 0) for line in lines]
    title = f"students with each line right, of {students} on the class's pages"
    fig = figures.bars(lines, right, title, "students")
    show(fig, st.session_state.get("presenter", False), key="build_class_progress")

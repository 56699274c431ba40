"""A page's predict-then-reveal question, asked of the whole class, as Mentimeter or Kahoot
run one.

In a class, `ffn_ui.page.predict.predicted` hands its question to `class_round`:
- a student's guess is sent as their answer, counted once, anonymously; their page says
  "your answer is in" and shows no verdict and nothing that settles the question;
- the teacher's page shows, live, how many students have answered and how many not yet
  (not what they answered: a projector would sway those still thinking), and "Reveal to
  the class";
- once the teacher reveals, answers close, and every page shows the answer and its why:
  each student's with their own verdict ("you said …"), the teacher's with the chart of
  the class's answers.

"not sure yet" is no answer: it is not counted, and choosing it again takes an answer
back. A question is the page's question at its setting, so a changed setting starts a new
count.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from ffn_ui import figures
from ffn_ui.classroom import recording
from ffn_ui.classroom.room import (
    LIVE,
    REVEALED,
    STUDENTS,
    TEACHER,
    asked,
    client_address,
    store,
    teaching,
)
from ffn_ui.classroom.store import ClassConnectionError, RoomError
from ffn_ui.classroom.voter import voter
from ffn_ui.page.display import show
from ffn_ui.words import literal, sentence_start

VOTED = "class_voted"  # session only: "code/question" -> the answer this session's vote holds
TALLY_SECONDS = 1.0  # how often the teacher's chart of answers is redrawn
MAX_REMEMBERED = 200  # questions a session remembers having answered


def question_id(key: str, setting: object) -> str:
    """The question's URL key and a short digest of its setting: "guess_rows:3f2a9c01d4"."""
    return f"{key}:{hashlib.sha256(repr(setting).encode()).hexdigest()[:10]}"


def in_class() -> bool:
    return bool(st.session_state.get(LIVE))


def class_round(question, qid: str, guess: str, not_sure: str, container) -> bool:
    """Ask or answer `question` (its id in the class: `qid`) in the class, and say where
    the round stands; True once the teacher has revealed it, when the page may draw what
    settles it."""
    state = st.session_state
    code = state[LIVE]
    revealed = qid in state.get(REVEALED, frozenset())
    teacher = teaching(code)
    if teacher:
        asked(store().ask, code, state[TEACHER][1], qid, tuple(question.options))
        settled = question.resolved() if revealed else (None, None)
        recording.question(question.key, qid, question.text, question.options, *settled)
        key = f"class_tally_{hashlib.sha256(qid.encode()).hexdigest()[:12]}"
        place = st.container(key=key) if container is st else container
        with recording.paused(), place:  # the class's count: not the page's words
            tally(code, qid, settled[0])
    elif not revealed:
        send(code, qid, None if guess == not_sure else guess)
    if not revealed:
        if teacher:
            return False  # the count of answers and "Reveal to the class" say it
        if guess == not_sure:  # one small line: the figure below needs the room
            container.caption("Make your guess above. The teacher reveals the answer to everyone.")
            return False
        container.info(
            f"Your answer is in: {literal(guess)}. The teacher reveals the answer to the "
            "whole class; until then you may change it."
        )
        return False
    answer, why = settled if teacher else question.resolved()
    said = state.get(VOTED, {}).get(f"{code}/{qid}")
    if teacher:
        with recording.paused():  # the question's own line: each student's page says theirs
            container.success(
                f"Revealed to the class: the answer is {answer}. {sentence_start(why)}"
            )
    elif said is None:
        container.info(
            f"The teacher revealed the answer: {answer}. {sentence_start(why)} You did not answer."
        )
    elif said == answer:
        container.success(f"Right (you said {said}): {why}")
    else:
        container.error(
            f"Not this time: you said {said}, and the answer is {answer}. {sentence_start(why)}"
        )
    return True


def send(code: str, qid: str, answer: str | None) -> None:
    """Send this student's answer (None: take it back), once per change; a refusal (too
    many votes) is said."""
    sent = st.session_state.setdefault(VOTED, {})
    voted = f"{code}/{qid}"  # a vote counts in one class
    if sent.get(voted) == answer:
        return
    if len(sent) >= MAX_REMEMBERED:
        sent.clear()
    try:
        store().vote(code, qid, voter(), answer, client_address())
    except ClassConnectionError as err:
        st.warning(f"{err} Your guess counts on your own page.")
        return
    except RoomError as err:
        st.warning(f"Your guess was not counted: {err}")
        return
    if answer is None:
        sent.pop(voted, None)
    else:
        sent[voted] = answer


def reveal(code: str, qid: str) -> None:
    """The teacher's "Reveal to the class"; this run shows it too, even when only the
    question's fragment reruns (the room's revealed questions are read by the page's poll)."""
    state = st.session_state
    try:
        store().reveal(code, state[TEACHER][1], qid)
    except (RoomError, ClassConnectionError) as err:
        state["class_problem"] = str(err)  # said on the page by class_controls
        return
    state[REVEALED] = state.get(REVEALED, frozenset()) | {qid}


def answered_text(answered: int, students: int) -> str:
    """How many have answered, of the students on the class's pages now."""
    if not answered and not students:
        return "no students on the class's pages yet"
    if answered > students:
        return (
            f"{answered} answers, more than the {students} students on the class's pages "
            "now: some may come from pages that closed, or from one person in several tabs"
        )
    waiting, plural = students - answered, "s" if students != 1 else ""
    return f"{answered} of {students} student{plural} answered, {waiting} not yet"


@st.fragment(run_every=TALLY_SECONDS)
def tally(code: str, qid: str, answer: str | None) -> None:
    """The teacher's view of the class's answers. While they answer: how many have, and
    "Reveal to the class" (what they answered stays off the projector, so that it sways
    no one still thinking). Once revealed: the chart of their answers, and the answer."""
    counts = asked(store().tally, code, qid)
    if counts is None:
        return
    said = answered_text(sum(counts.values()), st.session_state.get(STUDENTS, 0))
    if answer is None:
        line, button = st.columns([3, 1], vertical_alignment="center")
        line.markdown(f"**The class's answers:** {said}.")
        if button.button(
            "Reveal to the class",
            key=f"reveal_{qid}",
            help="Every student's page shows the answer and their own verdict.",
        ):
            reveal(code, qid)
            st.rerun()  # the whole page: what the answer settles is drawn now
        return
    labels = [f"{a} (the answer)" if a == answer else a for a in counts]
    title = f"the class's answers: {said}; the answer is {answer}"
    fig = figures.class_answers(labels, list(counts.values()), title)
    show(fig, st.session_state.get("presenter", False), key=f"tally_{qid}")

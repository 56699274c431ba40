"""Predict, then reveal: a question before the answer, on every page.

    if predicted(Question("Which neuron fires for x = [-2, -2]?", "guess_home",
                          ("neuron 1", "neuron 2", "both", "neither"), answer="neither",
                          why="Neuron 1 scores -4 and neuron 2 scores 0: ReLU passes neither."),
                 setting=(x1, x2)):
        ...draw what settles it...

The question starts at "not sure yet", and nothing that gives the answer away is drawn
until the learner commits to a guess. A right guess says so; a wrong one says why in one
sentence, never just "wrong". Both are words, not only a colour. When the setting the
question is about changes, the question asks again; so does a question whose options
changed, quietly.

A guess lives in the learner's session and never in the address: a shared link shares the
view and leaves every question for its reader to answer. A link from an older version of
the app that still holds a guess opens with the question unanswered, and loses the guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from ffn_ui.classroom.votes import class_round, in_class, question_id
from ffn_ui.controls.url import forget_url_value
from ffn_ui.words import sentence_start

NOT_SURE = "not sure yet"


@dataclass(frozen=True)
class Question:
    text: str
    key: str  # the session key of the guess
    options: Sequence[str]  # the answers to choose from (NOT_SURE comes first by itself)
    # One of options, and one sentence of why. Either may be a function, called only after
    # a guess, when finding the answer is work the page should not do before (training).
    answer: str | Callable[[], str]
    why: str | Callable[[], str]

    def resolved(self) -> tuple[str, str]:
        """The answer and its why, computed now if the page gave functions."""
        return tuple(part() if callable(part) else part for part in (self.answer, self.why))


def predicted(question: Question, setting: object = None, container=st) -> bool:
    """Ask; once the learner has guessed, say whether it was right and why. Returns True
    after a guess, when the page may draw what settles the question. In a class, the
    teacher reveals the answer to everyone at once (ffn_ui/classroom/votes.py)."""
    qid = question_id(question.key, setting)
    guess = ask(question.key, qid, question.text, question.options, container)
    if in_class():
        return class_round(question, qid, guess, NOT_SURE, container)
    if guess == NOT_SURE:  # one small line: the figure below needs the room
        container.caption("Make your guess above to see the answer.")
        return False
    answer, why = question.resolved()
    if guess == answer:
        container.success(f"Right: {why}")
    else:
        container.error(f"Not this time: the answer is {answer}. {sentence_start(why)}")
    return True


def chosen_key(key: str) -> str:
    """The session key naming the question (its id at its setting) the learner last chose
    an answer to, by clicking it."""
    return f"{key}_chosen_for"


def chose(key: str, qid: str) -> None:
    """The radio's callback: the learner chose an answer to the question `qid`."""
    st.session_state[chosen_key(key)] = qid


def ask(key: str, qid: str, text: str, options: Sequence[str], container=st) -> str:
    """The question's radio, starting at "not sure yet"; the learner's guess. `qid` names
    the question at its setting (votes.question_id): a new one asks again, as do changed
    options. A class view asks the teacher's question through it too. In a class an answer
    counts only if the learner chose it for this question: an answer kept from another
    question, or another setting of it, is cleared, never sent as a vote."""
    state = st.session_state
    seen = f"{key}_setting"
    stale = state.get(seen, qid) != qid or (in_class() and state.get(chosen_key(key)) != qid)
    if stale and state.get(key, NOT_SURE) != NOT_SURE:
        state[key] = NOT_SURE  # a new question, or a new setting of it, asks again
    elif key in state:
        # The session's answer is the radio's: the class view and the page draw radios of
        # their own, and one drawn again would take the answer it last showed.
        state[key] = state[key]
    state[seen] = qid
    choices = (NOT_SURE, *options)
    if state.get(key, NOT_SURE) not in choices:
        state[key] = NOT_SURE  # the options changed: the question asks again
    if key in st.query_params:
        forget_url_value(key)  # an older version's link: its reader answers
    return container.radio(
        text,
        choices,
        key=key,
        horizontal=True,
        persist_state="session",
        on_change=chose,
        args=(key, qid),
    )

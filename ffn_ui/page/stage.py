"""A page's first screen, and its explanation after it.

    toy = setup("Neurons", "Neurons: who fires, per token", LEDE)   # heading, one sentence
    answered = predicted(QUESTION)                                  # the question
    figure, controls = stage(toy.presenter)                         # the figure, its controls
    with figure: show(heatmap(... hidden until answered ...))
    with controls: ...sliders, toggles...
    explained(INTRO, toy.presenter)                                 # why, having seen it

A learner sees the picture before the words: the heading and one sentence, the page's
question, then its key figure with the controls that drive it beside it (a column); the
figure holds back what answers the question until the guess. The explanation the page
carries comes after, where it is read having seen what it explains. On a phone the
columns stack, the figure first.
"""

from __future__ import annotations

import streamlit as st

WHY = "Why: what this figure shows"


def stage(presenter: bool):
    """(figure, controls): two columns, the figure the wider, then its controls. On a
    phone they stack in that order: the figure straight under the question."""
    figure, controls = st.columns([3, 2] if presenter else [5, 3], gap="medium")
    return figure, controls


def explained(text: str, presenter: bool, label: str = WHY) -> None:
    """The page's explanation, under its first figure: a short section in the page, or a
    closed expander on a projector, where the teacher says it aloud."""
    if presenter:
        st.expander(label).markdown(text)
    else:
        st.markdown(f"**{label}.** {text}")

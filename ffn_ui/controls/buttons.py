"""Buttons that set controls: presets, resets, "show me this".

    preset_button(st, "Zoom near 0", range=1.5)
    model_preset_button(st, "One token, d_ff = 64", T=1, d_ff=64)  # the sidebar's model

A button that changes the sidebar's model changes it for every page, so it says so on
the button, and until the learner changes the model again the page offers the way back
to the model they had.

The button hands its values to `st.session_state.update`, so no function of the page is
kept as its callback. A session keeps a widget's callback until it ends, and a function
defined in a page keeps that page's globals alive with it: every array of its last run,
67 MB at the caps, for each visitor who ever saw the button.
"""

from __future__ import annotations

import streamlit as st


def preset_button(container, label: str, help: str | None = None, key: str | None = None, **values):
    """A button that sets the controls named in `values` (by their keys) when pressed."""
    return container.button(
        label, on_click=st.session_state.update, kwargs=values, help=help, key=key
    )


BEFORE = "model_before_preset"  # session only: (the preset's values, the model's before)
MODEL_NOTE = " (changes the sidebar's model on every page)"


def model_preset_button(container, label: str, **values) -> None:
    """A preset of the sidebar's model: says on its face that every page changes, and,
    once pressed, offers "Back to your model" until the model is changed another way."""
    state = st.session_state
    container.button(label + MODEL_NOTE, on_click=remember_and_set, kwargs={"values": values})
    preset, before = state.get(BEFORE, ({}, {}))
    if preset and all(state.get(k) == v for k, v in preset.items()):
        shown = ", ".join(f"{k} = {v}" for k, v in before.items())
        container.button(
            f"Back to your model ({shown})", on_click=st.session_state.update, kwargs=before
        )
    elif preset:
        state.pop(BEFORE)  # the learner changed the model since: nothing to go back to


def remember_and_set(values: dict) -> None:
    state = st.session_state
    state[BEFORE] = (values, {k: state[k] for k in values if k in state})
    state.update(values)

"""Buttons that set controls: presets, resets, "show me this".

    preset_button(st, "Zoom near 0", range=1.5)

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

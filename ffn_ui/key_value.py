"""The Key–value page's controls for editing one token's hidden layer."""

from __future__ import annotations

import streamlit as st

from ffn_ui.buttons import preset_button
from ffn_ui.url import bound_multiselect, bound_slider


def edit_controls(neurons: list[str], j: int) -> tuple[list[str], float]:
    """(the neurons switched off, the scale of neuron j): a multiselect with a button for
    the picked neuron, and a slider that starts at 1 again for each newly picked neuron."""
    state = st.session_state
    if state.setdefault("scale_of", neurons[j]) != neurons[j]:
        state.update(scale=1.0, scale_of=neurons[j])  # a new neuron starts unscaled
    left, right = st.columns(2)
    gone = f"now that d_ff = {len(neurons)}"
    off = bound_multiselect("switched off", "off", neurons, left, gone=gone)
    if neurons[j] not in off:
        preset_button(
            left, f"Switch off {neurons[j]}", help="the neuron picked above", off=[*off, neurons[j]]
        )
    scale = bound_slider(
        f"scale {neurons[j]} by", "scale", 0.0, 3.0, 1.0, 0.1, right, disabled=neurons[j] in off
    )
    preset_button(right, "Reset", off=[], scale=1.0)
    return off, scale

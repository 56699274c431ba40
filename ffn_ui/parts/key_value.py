"""The Key–value page's edit of one token's hidden layer: its controls and its effect."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.predict import Question
from ffn_ui.controls.url import bound_multiselect, bound_slider
from ffn_ui.page.display import show


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


@st.fragment
def edit_section(
    neurons: list[str],
    j: int,
    h: np.ndarray,
    out: np.ndarray,
    shown: tuple[np.ndarray, list[str]],
    weights: Callable[[], dict[str, np.ndarray]],
    presenter: bool,
) -> None:
    """The edit and the output it gives rerun on their own, so a class moving the scale
    slider reruns only this section. h (d_ff,) is the token's hidden layer, out (d_model,)
    the FFN's output, `shown` the output coordinates the page shows and their labels.
    `weights` gives the model's weights when asked (Toy.again): a fragment keeps its
    arguments for as long as its session lives, and W2 can be 4096 × 1024."""
    off, scale = edit_controls(neurons, j)
    inspected_off = neurons[j] in off
    model = weights()
    W2, b2 = model["W2"], model["b2"]  # (d_ff, d_model), (d_model,)
    h_edit = h.copy()
    h_edit[[neurons.index(name) for name in off]] = 0.0
    h_edit[j] *= scale
    out_edit = h_edit @ W2 + b2  # (d_model,)
    caption = (
        "Switching a neuron off removes exactly its write, h_j × W2[j]; scaling it scales "
        f"that write. Largest change in any coordinate: {np.abs(out_edit - out).max():.4g}."
    )
    if inspected_off:
        caption += f" {neurons[j]} is switched off, so scaling it changes nothing."
    st.caption(caption)
    coords, coord_labels = shown
    bars = {"output": out[coords], "edited output": out_edit[coords]}
    show(figures.grouped_bars(bars, coord_labels, "before and after"), presenter)


SILENT_WRITES = ("nothing", "a little, its value sign-flipped", "its value, times its whole score")


def silent_write_question(name: str, score: float, h: float, token: str, toy) -> Question:
    """Does neuron `name`, which scored `score` ≤ 0 for `token`, still write? Under ReLU no;
    under GELU or SiLU a little, the other way; with no activation, all of its score."""
    act = toy.activation_label
    if toy.activation == "identity":
        answer, why = (
            SILENT_WRITES[2],
            (
                f"with no activation h is the score itself, {h:.3g}, so {name} writes {h:.3g} × "
                "its value: a neuron that misses pushes the other way as hard as it scored."
            ),
        )
    elif h == 0:
        answer, why = (
            SILENT_WRITES[0],
            (
                f"{act} passes nothing at or below zero: h = {act}({score:.3g}) = 0, so {name} "
                "writes 0 × its value. Under GELU or SiLU it would still write a little."
            ),
        )
    else:
        answer, why = (
            SILENT_WRITES[1],
            (
                f"{act} dips below zero for a negative score: h = {act}({score:.3g}) = {h:.3g}, "
                f"so {name} still writes {h:.3g} × its value, a small push the other way."
            ),
        )
    return Question(
        f"Predict: {name} scores {score:.3g} for “{token}” and does not fire. Under {act}, "
        "what does it write into the output?",
        "guess_kv",
        SILENT_WRITES,
        answer=answer,
        why=why,
    )

"""The Key–value page's pieces: how one token matches each key (the plain FFN's, or
SwiGLU's gate and up), the question of what a neuron that missed still writes, and the
edit of the token's hidden layer with its effect."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from ffn_core import get_activation
from ffn_core.forms import value_rows
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.url import bound_multiselect, bound_slider
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question

GATED_NOTE = (
    "SwiGLU is a gated FFN with three matrices (see Activations). With it a neuron has two "
    "keys and no bias: its gate, a column of `W_gate`, says how far it opens; its up, a "
    "column of `W_up`, gives a signed score. It writes silu(gate) · up times its value, its "
    "row of `W_down`, and there is no b2; silu(z) = z·σ(z), with σ the sigmoid, is a "
    "smooth ReLU."
)


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
    # Never greyed out (a disabled control's label is too faint to read): when the neuron
    # is switched off, a caption under the figure says that scaling it changes nothing.
    scale = bound_slider(f"scale {neurons[j]} by", "scale", 0.0, 3.0, 1.0, 0.1, right)
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
    arguments for as long as its session lives, and W2 can be 4096 × 1024. h is what each
    neuron passes on: for SwiGLU, silu(gate) · up, and the value rows are W_down's."""
    off, scale = edit_controls(neurons, j)
    inspected_off = neurons[j] in off
    model = weights()
    values, bias = value_rows(model)  # (d_ff, d_model), (d_model,)
    h_edit = h.copy()
    h_edit[[neurons.index(name) for name in off]] = 0.0
    h_edit[j] *= scale
    out_edit = h_edit @ values + bias  # (d_model,)
    row = "W_down[j]" if "W_down" in model else "W2[j]"
    caption = (
        f"Switching a neuron off removes exactly its write, h_j × {row}; scaling it scales "
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
    act, bend = toy.activation_label, toy.bend
    if not bend.bends:
        answer, why = (
            SILENT_WRITES[2],
            (
                f"with no activation h is the score itself, {h:.3g}, so {name} writes {h:.3g} × "
                "its value: a neuron that misses pushes the other way as hard as it scored."
            ),
        )
    elif bend.zero_below:
        answer, why = (
            SILENT_WRITES[0],
            (
                f"{act} passes nothing at or below zero: h = {act}({score:.3g}) = 0, so {name} "
                "writes 0 × its value. A smooth activation such as GELU (a smooth ReLU that "
                "dips just below 0 for negative scores: see Activations) would still let it "
                "write a little, sign-flipped."
            ),
        )
    elif h == 0:  # a smooth bend scored exactly 0 (the Lesson's first key): 0 · Φ(0)
        answer, why = (
            SILENT_WRITES[0],
            (
                f"at a score of exactly 0 even {act} passes nothing: h = {act}(0) = 0, so "
                f"{name} writes 0 × its value. Any score below 0 would still write a little, "
                "sign-flipped."
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
        f"Predict: {name} scores {score:.3g} for “{token}”, at or below 0. Under {act}, "
        "what does it write into the output?",
        "guess_kv",
        SILENT_WRITES,
        answer=answer,
        why=why,
    )


def plain_match(toy, t: int, j: int, names: list[str]) -> np.ndarray:
    """Section 1 for the plain FFN: the token's score against each key, orange where the
    neuron fires; returns the scores (d_ff,)."""
    h_pre = toy.x[t] @ toy.W1 + toy.b1  # (d_ff,)
    h = get_activation(toy.activation).fn(h_pre)
    shown = np.argsort(-np.abs(h_pre), kind="stable")[: figures.MAX_COLUMNS]
    if toy.d_ff <= figures.MAX_COLUMNS:
        shown = np.sort(shown)
    of = f" (the {len(shown)} largest of {toy.d_ff})" if len(shown) < toy.d_ff else ""
    show(
        figures.bars(
            [names[k] for k in shown],
            h_pre[shown],
            "key score x · W1[:, j] + b1[j]" + of,
            "score",
            colours=np.where(h[shown] > 0, figures.FIRED, figures.SILENT),
            highlight=int(np.flatnonzero(shown == j)[0]) if j in shown else None,
        ),
        toy.presenter,
    )
    # What a neuron that missed passes on is section 2's question: said of one that fired.
    passes = f" and passes on {h[j]:.4g}." if h_pre[j] > 0 else ": at or below 0, it does not fire."
    st.caption(
        f"**1. Match: how well “{toy.token_labels[t]}” fits each key.** "
        f"{int(np.sum(h > 0))} of {toy.d_ff} neurons fire (orange). "
        f"{names[j]} scores {h_pre[j]:.4g}{passes}"
    )
    return h_pre


def gate_and_up_figures(gate: np.ndarray, up: np.ndarray, names: list[str], j: int) -> list:
    """SwiGLU's two scores for one token, side by side: each neuron's gate, orange where it
    is open (above 0), and its up score, which gives the write its sign."""
    shown = np.argsort(-np.abs(gate * up), kind="stable")[: figures.MAX_COLUMNS]
    if len(gate) <= figures.MAX_COLUMNS:
        shown = np.sort(shown)
    mark = int(np.flatnonzero(shown == j)[0]) if j in shown else None
    of = f" (the {len(shown)} largest writes of {len(gate)})" if len(shown) < len(gate) else ""
    opened = np.where(gate[shown] > 0, figures.FIRED, figures.SILENT)
    return [
        figures.bars(
            [names[k] for k in shown],
            gate[shown],
            "gate x · W_gate[:, j]" + of,
            "gate",
            colours=opened,
            highlight=mark,
        ),
        figures.bars(
            [names[k] for k in shown], up[shown], "up x · W_up[:, j]" + of, "up", highlight=mark
        ),
    ]


def gated_match(toy, t: int, j: int, names: list[str]) -> np.ndarray:
    """Section 1 for SwiGLU: the token's gate and up scores; returns the gate (d_ff,)."""
    gate, up = toy.x[t] @ toy.W_gate, toy.x[t] @ toy.W_up  # (d_ff,) each
    for fig in gate_and_up_figures(gate, up, names, j):  # one under the other: a column
        show(fig, toy.presenter)
    # What a closed gate passes on is section 2's question: said of an open one only.
    passed = float(get_activation("silu").fn(gate[j])) * up[j]
    passes = "."
    if gate[j] > 0:
        passes = f", so it passes silu(gate) · up = {passed:.4g} (silu(z) = z·σ(z), a smooth ReLU)."
    st.caption(
        f"**1. Match: how well “{toy.token_labels[t]}” fits each key.** "
        f"{int(np.sum(gate > 0))} of {toy.d_ff} gates are open (orange, above 0). "
        f"{names[j]}'s gate is {gate[j]:.4g} and its up {up[j]:.4g}{passes}"
    )
    return gate


CLOSED_WRITES = (
    "nothing: the gate is shut",
    "a little, against its up's sign",
    "its up score times its value, whole",
)


def closed_gate_question(name: str, gate: float, up: float, passed: float, token: str) -> Question:
    """Can a SwiGLU neuron whose gate is closed (below 0) for `token` still write? silu of
    a negative gate is small and negative, so it writes a little, the other way."""
    silu = float(get_activation("silu").fn(np.float64(gate)))
    return Question(
        f"Predict: {name}'s gate is {gate:.3g} for “{token}”, closed (below 0), and its up "
        f"score is {up:.3g}. Can a neuron with a closed gate still write? What does it write "
        "into the output?",
        "guess_kv_gate",
        CLOSED_WRITES,
        answer=CLOSED_WRITES[1],
        why=(
            f"a closed gate still lets a little of the up score through, with its sign "
            f"flipped: silu({gate:.3g}) = {silu:.3g}, so {name} writes {passed:.3g} × its "
            "row of W_down. silu falls to its lowest, −0.28, at a gate of about −1.28, then only "
            "approaches 0 as the gate goes further down: no gate is ever fully shut."
        ),
    )

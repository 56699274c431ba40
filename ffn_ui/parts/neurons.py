"""The Neurons page's pieces: the hidden layer it shows (the plain FFN's, or SwiGLU's), its
view controls, the grid's caption, and what the question asks, counted per token (with
the table of each token's strongest neurons), per neuron and over the whole input."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import hidden, silu
from ffn_core.analysis import firing_count, firing_rate, silent_neurons, sparsity
from ffn_core.swiglu import swiglu_forward
from ffn_ui import figures
from ffn_ui.controls.url import bound_select, bound_slider, bound_toggle
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question

GATED_NOTE = (
    "SwiGLU gives each neuron two keys: a gate, a column of `W_gate`, and an up, a column "
    "of `W_up`. It passes silu(gate) · up, which may be positive or negative, so here a "
    "neuron *fires* when that value is far enough from 0: look at its size "
    "|silu(gate) · up|, and at its sign. The sign is up's where the gate is positive, and "
    "the opposite where the gate is negative, since silu is below 0 for every negative "
    "input (though tiny far down)."
)


def no_threshold(bend) -> str:
    """Why Neurons offers no threshold under an activation that is exactly 0 at and below 0,
    or is no bend at all."""
    if not bend.bends:
        return (
            "With no activation every score passes through unchanged, negatives too, so no "
            "neuron is silenced; “fires” here marks the scores above 0, to compare with ReLU."
        )
    return (
        f"{bend.label} outputs exactly 0 for a score of 0 or below, so a neuron fires only "
        "when its score is above 0: no threshold needed."
    )


@dataclass(frozen=True)
class Layer:
    """The hidden layer of the sidebar's toy on its tokens, as the page shows it."""

    views: dict[str, np.ndarray]  # each view's (T, d_ff) values, the first the one passed on
    passed: np.ndarray  # (T, d_ff): h, or silu(gate) · up: what multiplies each value row
    signed: bool  # True for SwiGLU: a neuron fires by its size |passed|, either sign

    @property
    def strength(self) -> np.ndarray:
        """(T, d_ff): what a threshold is compared with."""
        return np.abs(self.passed) if self.signed else self.passed


def hidden_layer(toy) -> Layer:
    """The plain FFN's activation and pre-activation; or SwiGLU's product, gate and up."""
    if toy.gated:
        _, cache = swiglu_forward(toy.x, toy.W_gate, toy.W_up, toy.W_down)
        views = {"product": cache.a, "gate": cache.gate, "up": cache.up}
        return Layer(views, cache.a, signed=True)
    h_pre, h = hidden(toy.x, toy.W1, toy.b1, toy.activation)  # (T, d_ff) each
    return Layer({"activation": h, "pre-activation": h_pre}, h, signed=False)


SHARES = ("fewer than a third", "about half", "more than two thirds")


def share_word(share: float) -> str:
    """Which of SHARES a fraction falls in."""
    return SHARES[0] if share < 1 / 3 else SHARES[1] if share <= 2 / 3 else SHARES[2]


def firing_question(
    fired: np.ndarray, threshold: float, random_weights: bool, gated: bool = False
) -> Question:
    """How many of the T × d_ff activations fire: a learner who has read that FFNs are
    sparse expects few; random weights fire about half the time, and SwiGLU's products are
    almost never exactly 0."""
    T, d_ff = fired.shape
    share = float(np.mean(fired))
    where = f" above {threshold:g}" if threshold > 0 else ""
    if gated:
        where = f" with |silu(gate) · up| above {threshold:g}"
    reason = (
        "with random weights (or tables edited by hand, which start from the random "
        "weights, rounded), a score x · k + b is a "
        "sum of products as often negative as "
        "positive, so it lands above zero, where the neuron fires, about as often as below. "
        "The sparse firing of a trained model is learned, not built in"
        if random_weights
        else "these weights come from a file, so what fires is whatever they make it"
    )
    if gated and threshold == 0:
        reason = (
            "silu(gate) · up is exactly 0 only where the gate or up is exactly 0, so at a "
            "threshold of 0 every product counts. Raise “fires above” to count only the "
            "ones large enough to matter"
        )
    return Question(
        f"Predict: of these {T} × {d_ff} = {T * d_ff} activations, how many fire{where}?",
        "guess_fire",
        SHARES,
        answer=share_word(share),
        why=f"{int(fired.sum())} of {T * d_ff} fired ({share:.0%}): {reason}.",
    )


VIEWS = {  # what each view of the grid shows, said where its name first appears
    "activation": "activation: what the activation passes on.",
    "pre-activation": "pre-activation: the neuron's score x · W1 + b1 (its key's match, "
    "plus its bias), before the activation acts.",
    "product": "product: silu(gate) · up, what the neuron passes on.",
    "gate": "gate: x · W_gate, the score that opens the neuron.",
    "up": "up: x · W_up, the signed score the gate lets through.",
}


def view_controls(toy, layer: Layer) -> tuple[str, float, bool, bool]:
    """(view, threshold, mask, sort), one under the other: which value the heatmap shows,
    the score a neuron must pass to count as firing (0 for ReLU and none), blank silent
    cells, sort by firing rate."""
    views = list(layer.views)
    view = bound_select("show", "view", views, views[0], radio=True, horizontal=True)
    st.caption("  \n".join(VIEWS[v] for v in views))  # one line each
    leaks = toy.gated or (toy.bend.bends and not toy.bend.zero_below)  # never exactly 0
    # A control that cannot act is not drawn greyed out (too faint to read): a line says why.
    if leaks:
        threshold = bound_slider(
            "fires above",
            "thr",
            0.0,
            1.0,
            0.0,
            0.01,
            help=f"{toy.activation_label} lets small values through where ReLU passes 0: a "
            "threshold ignores neurons that barely leak"
            + (" (by the size of silu(gate) · up)." if toy.gated else "."),
        )
    else:
        threshold = 0.0
        st.caption(no_threshold(toy.bend))
    scores = view != views[0]  # every score, the negative ones most of all
    if scores:
        st.caption(
            f"Nothing to blank in the {view} view: it shows every value before the "
            "activation acts, the ones it silences included."
        )
        mask = False
    else:
        mask = bound_toggle("Blank silent cells", "mask", True)
    sort = bound_toggle("Sort neurons by firing rate", "sort", toy.d_ff > 64)
    return view, threshold, mask, sort


def heatmap_caption(view: str, mask: bool, signed: bool, note: str, answered: bool) -> str:
    """What the grid shows, and its one "notice" sentence: what its colours say, or,
    before the answer, that they wait for it."""
    shows = f"The {view} of every neuron for every token"
    if not answered:
        return (
            f"{shows}: each cell is one token (a row) and one neuron (a column); which "
            "cells fired, and their values, are drawn with the answer to the question above."
        )
    colours = (
        "Notice: only the cells that fired are coloured, deeper red for a stronger "
        "activation"
        + (", blue for one that writes backward" if signed else "")
        + "; grey cells did not fire (a dot marks them when there is room)."
        if mask
        else "Every cell shows its value: red above zero, blue below, white at zero."
    )
    return (
        f"{shows}. {colours}"
        + " Hover over a cell (on a phone, tap it) for its exact value."
        + (f" Showing {note}." if note else "")
    )


def silent_caption(dead: np.ndarray, neurons: list[str], T: int, shown: int) -> str:
    """How many neurons stayed silent on every token, and which."""
    d_ff = len(neurons)
    silent = ", ".join(neurons[j] for j in dead[:20]) + (" …" if len(dead) > 20 else "")
    every, some = f"all {T} tokens", f"at least one of the {T} tokens"
    if T == 1:
        every = some = "the 1 token"
    return (
        f"{len(dead)} of {d_ff} neurons stayed silent on {every} ({silent})."
        if len(dead)
        else f"Every neuron fired on {some}."
    ) + (f" Showing the {shown} most active." if d_ff > shown else "")


def strongest_table(
    layer: Layer, fired: np.ndarray, neurons: list[str], token_labels: list[str]
) -> pd.DataFrame:
    """Per token (rows of the layer, T): how many neurons fired, and the three strongest
    that did (by size, for SwiGLU), with what they passed on."""
    h = layer.passed  # (T, d_ff)
    top = np.argsort(-layer.strength, axis=1, kind="stable")[:, :3]  # (T, 3)
    strongest = [
        ", ".join(f"{neurons[j]} ({h[t, j]:.3g})" for j in top[t] if fired[t, j]) or "—"
        for t in range(len(h))
    ]
    return pd.DataFrame({"fired": fired.sum(axis=1), "strongest": strongest}, index=token_labels)


def counted(toy, layer: Layer, fired: np.ndarray, threshold: float, neurons: list[str]) -> None:
    """What the question asks, counted three ways, drawn once it is answered: per token
    (how many fired, and which most strongly), per neuron (how often), and over the whole
    input (the share that fired, and the values' histogram)."""
    strength = layer.strength  # (T, d_ff)
    st.subheader("Per token: how many fired, and which most strongly")
    counts = firing_count(strength, threshold)
    show(figures.bars(toy.token_labels, counts, "neurons fired per token", "fired"), toy.presenter)
    st.dataframe(strongest_table(layer, fired, neurons, toy.token_labels))

    st.subheader("Per neuron: how often it fires")
    rate = firing_rate(strength, threshold)
    rate_order = np.argsort(-rate, kind="stable")[: figures.MAX_COLUMNS]
    dead = silent_neurons(strength, threshold)
    st.caption(silent_caption(dead, neurons, toy.T, len(rate_order)))
    rates = figures.bars(
        [neurons[j] for j in rate_order],
        rate[rate_order],
        "firing rate over tokens",
        "rate",
        colours=figures.FIRED,
    )
    show(rates, toy.presenter)

    st.subheader("Sparsity of the whole input")
    left, right = st.columns(2)
    left.metric("activations that fired", f"{np.mean(fired):.0%}")
    right.metric(
        "activations exactly zero",
        f"{sparsity(layer.passed):.0%}",
        help="ReLU's silence is exact zeros; GELU, SiLU and SwiGLU leave small values instead.",
    )
    kind = "products" if layer.signed else "activations"
    title = f"{toy.activation_label} {kind}, all tokens"
    show(figures.histogram(layer.passed, threshold, title, layer.signed), toy.presenter)


def closer_look(toy, layer: Layer, t: int, j: int, fired: bool, neuron: str) -> str:
    """One token and one neuron, in a sentence: its score and what the activation gives, or
    SwiGLU's gate, up and product."""
    token = toy.token_labels[t]
    if not layer.signed:
        score, h = layer.views["pre-activation"][t, j], layer.passed[t, j]
        state = "fires" if fired else "stays silent"
        return (
            f"Token **{token}** scores **{score:.4g}** on neuron **{neuron}**, which {state} "
            f"({toy.activation_label} gives {h:.4g})."
        )
    gate, up, a = (layer.views[v][t, j] for v in ("gate", "up", "product"))
    way = "forward" if a > 0 else "backward" if a < 0 else "nothing"
    return (
        f"Token **{token}** opens neuron **{neuron}**'s gate to **{gate:.4g}** (silu gives "
        f"{float(silu(gate)):.4g}) and scores **{up:.4g}** on its up key: it passes "
        f"silu(gate) · up = **{a:.4g}**, so it writes {a:.4g} × its value (its row of "
        f"W_down), {way}" + ("." if fired else ", below the threshold.")
    )

"""The Neurons page's pieces: the hidden layer it shows (the plain FFN's, or SwiGLU's), its
view controls and its table of each token's strongest neurons."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import hidden, silu
from ffn_core.swiglu import swiglu_forward
from ffn_ui.controls.predict import Question
from ffn_ui.controls.url import bound_select, bound_slider, bound_toggle

GATED_NOTE = (
    "SwiGLU gives each neuron two keys: a gate, a column of `W_gate`, and an up, a column "
    "of `W_up`. It passes silu(gate) · up, which may be positive or negative, so here a "
    "neuron *fires* when that value is far enough from 0: look at its size "
    "|silu(gate) · up|, and at its sign. The sign is up's where the gate is positive, and "
    "the opposite where the gate is negative, since silu is below 0 for every negative "
    "input (though tiny far down)."
)

NO_THRESHOLD = {  # why Neurons offers no threshold under these activations
    "relu": "ReLU outputs exactly 0 for a score of 0 or below, so a neuron fires only when "
    "its score is above 0: no threshold needed. GELU, SiLU and SwiGLU let small values "
    "leak through, so they offer one.",
    "identity": "With no activation every score passes through unchanged, negatives too, so "
    "no neuron is silenced; “fires” here marks the scores above 0, to compare with ReLU.",
}


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
        "with random weights (hand-edited tables start as them), a score x · k + b is a "
        "sum of products as often negative as "
        "positive, so it lands above zero about as often as below, and the neuron fires. "
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


def view_controls(toy, layer: Layer) -> tuple[str, float, bool, bool]:
    """(view, threshold, mask, sort): which value the heatmap shows, the score a neuron must
    pass to count as firing (0 for ReLU and none), blank silent cells, sort by firing rate."""
    left, mid, right = st.columns(3)
    views = list(layer.views)
    view = bound_select("show", "view", views, views[0], left, radio=True, horizontal=True)
    smooth = toy.activation not in ("relu", "identity")
    # A control that cannot act is not drawn greyed out (too faint to read): a line says why.
    if smooth:
        threshold = bound_slider(
            "fires above",
            "thr",
            0.0,
            1.0,
            0.0,
            0.01,
            mid,
            help="GELU, SiLU and SwiGLU are never exactly 0: a threshold ignores neurons "
            "that barely leak (for SwiGLU, by the size of silu(gate) · up).",
        )
    else:
        threshold = 0.0
        mid.caption(NO_THRESHOLD[toy.activation])
    scores = view != views[0]  # every score, the negative ones most of all
    if scores:
        right.caption(
            f"Nothing to blank in the {view} view: it shows every value before the "
            "activation acts, the ones it silences included."
        )
        mask = False
    else:
        mask = bound_toggle("Blank silent cells", "mask", True, right)
    sort = bound_toggle("Sort neurons by firing rate", "sort", toy.d_ff > 64, right)
    return view, threshold, mask, sort


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

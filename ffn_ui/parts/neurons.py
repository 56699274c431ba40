"""The Neurons page's pieces: its view controls and its table of each token's strongest
neurons."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ffn_ui.controls.predict import Question
from ffn_ui.controls.url import bound_select, bound_slider, bound_toggle

SHARES = ("fewer than a third", "about half", "more than two thirds")


def share_word(share: float) -> str:
    """Which of SHARES a fraction falls in."""
    return SHARES[0] if share < 1 / 3 else SHARES[1] if share <= 2 / 3 else SHARES[2]


def firing_question(fired: np.ndarray, threshold: float, random_weights: bool) -> Question:
    """How many of the T × d_ff activations fire: a learner who has read that FFNs are
    sparse expects few; random weights fire about half the time."""
    T, d_ff = fired.shape
    share = float(np.mean(fired))
    where = f" above {threshold:g}" if threshold > 0 else ""
    reason = (
        "with random weights (hand-edited tables start as them), a score x · k + b is a "
        "sum of products as often negative as "
        "positive, so it lands above zero about as often as below, and the neuron fires. "
        "The sparse firing of a trained model is learned, not built in"
        if random_weights
        else "these weights come from a file, so what fires is whatever they make it"
    )
    return Question(
        f"Predict: of these {T} × {d_ff} = {T * d_ff} activations, how many fire{where}?",
        "guess_fire",
        SHARES,
        answer=share_word(share),
        why=f"{int(fired.sum())} of {T * d_ff} fired ({share:.0%}): {reason}.",
    )


def view_controls(toy) -> tuple[str, float, bool, bool]:
    """(view, threshold, mask, sort): which value the heatmap shows, the score a neuron must
    pass to count as firing (0 for ReLU and none), blank silent cells, sort by firing rate."""
    left, mid, right = st.columns(3)
    view = bound_select(
        "show",
        "view",
        ("activation", "pre-activation"),
        "activation",
        left,
        radio=True,
        horizontal=True,
    )
    smooth = toy.activation not in ("relu", "identity")
    threshold = bound_slider(
        "fires above",
        "thr",
        0.0,
        1.0,
        0.0,
        0.01,
        mid,
        help="GELU and SiLU are never exactly 0: a threshold ignores neurons that barely leak.",
        disabled=not smooth,
    )
    scores = view == "pre-activation"  # every score, the negative ones most of all
    mask = bound_toggle(
        "Blank silent cells",
        "mask",
        True,
        right,
        disabled=scores,
        help="Off in the pre-activation view: its point is the scores below zero, which the "
        "activation view blanks."
        if scores
        else None,
    )
    sort = bound_toggle("Sort neurons by firing rate", "sort", toy.d_ff > 64, right)
    return view, threshold if smooth else 0.0, mask and not scores, sort


def strongest_table(
    h: np.ndarray, fired: np.ndarray, neurons: list[str], token_labels: list[str]
) -> pd.DataFrame:
    """Per token (rows of h (T, d_ff)): how many neurons fired, and the three strongest that
    did, with their activations."""
    top = np.argsort(-h, axis=1, kind="stable")[:, :3]  # (T, 3)
    strongest = [
        ", ".join(f"{neurons[j]} ({h[t, j]:.3g})" for j in top[t] if fired[t, j]) or "—"
        for t in range(len(h))
    ]
    return pd.DataFrame({"fired": fired.sum(axis=1), "strongest": strongest}, index=token_labels)

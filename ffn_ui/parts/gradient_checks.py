"""The Backprop page's gradient checks, cached (each costs thousands of forward passes),
and the plain FFN's check section."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.gradcheck import backward_ms, check_form, onto_kink
from ffn_ui import figures
from ffn_ui.controls.labels import position_labels
from ffn_ui.controls.url import bound_select_slider, bound_toggle
from ffn_ui.page.display import show
from ffn_ui.parts.backprop import error_table, no_kink, power_of_ten

EPSILONS = [10.0**-k for k in range(12, 0, -1)]  # 1e-12 up to 0.1: to the right, larger
MAX_CHECKED = 2000  # entries checked one by one, 2 forward passes each (RESULTS.md times it)
SWEEP_PASSES = 16_000  # forward passes the ε sweep may spend; past that it samples
SWEEP_SAMPLE = 20  # entries of each quantity the ε sweep then checks


def sweep_sample(entries: int) -> int | None:
    """Entries per quantity the ε sweep checks: all (None) if that fits its budget."""
    return None if 2 * len(EPSILONS) * entries <= SWEEP_PASSES else SWEEP_SAMPLE


@st.cache_data(max_entries=32, ttl=3600, show_spinner="Checking gradients…")
def checked_form(x, weights, ffn, eps, dtype_name, seed, per_parameter=None) -> dict[str, float]:
    """The gradient check (ffn_core.gradcheck.check_form) of either form, the plain FFN's
    weights or SwiGLU's, each weight's and x's largest relative error."""
    return check_form(x, weights, ffn, eps, seed, np.dtype(dtype_name).type, per_parameter)


@st.cache_data(max_entries=16, ttl=3600, show_spinner="Sweeping ε…")
def form_sweep(x, weights, ffn, dtype_name, seed) -> tuple[np.ndarray, int | None]:
    """The worst relative error at each ε of EPSILONS, and how many entries of each
    quantity it checked (None: all of them, when they fit the sweep's budget)."""
    sample = sweep_sample(x.size + sum(w.size for w in weights.values()))
    errors = [
        max(checked_form(x, weights, ffn, e, dtype_name, seed, sample).values()) for e in EPSILONS
    ]
    return np.array(errors), sample


def plain_check(toy, x: np.ndarray, weights: dict, cache, dout: np.ndarray) -> None:
    """The check of the plain FFN's backward pass, once its question is answered: ε, the
    precision and (under ReLU) a score put on the kink; the table of worst relative errors,
    the ε sweep and the count of forward passes. x (B, T, C); weights W1, b1, W2, b2."""
    entries = x.size + sum(w.size for w in weights.values())
    if entries > MAX_CHECKED:
        st.info(
            f"The check runs one entry at a time up to {MAX_CHECKED:,} entries; these sizes "
            f"have {entries:,}. Use the preset or smaller sizes to check."
        )
        return
    bend = toy.bend  # a kink is where a nudge of ±ε can straddle the bend
    left, mid, right = st.columns(3)
    eps = bound_select_slider("ε", "eps", EPSILONS, 1e-6, power_of_ten, left)
    float32 = bound_toggle("compute in float32", "f32", False, mid)
    kink = (
        bound_toggle(f"put one score on {bend.label}'s kink", "kink", False, right)
        if bend.kink
        else False
    )
    if not bend.kink:  # said, not greyed out: a disabled control's label is too faint to read
        right.caption(no_kink(toy))
    dtype_name = "float32" if float32 else "float64"
    if kink:
        b1, n, j = onto_kink(cache.h_pre, weights["b1"], eps)
        weights = {**weights, "b1": b1}
        st.caption(
            f"Score h_pre at {position_labels(*x.shape[:2])[n]}, neuron n{j + 1} set to ε/2 = "
            f"{eps / 2:.0e}: the nudge of ±ε now straddles the kink."
        )
    st.dataframe(error_table(checked_form(x, weights, toy.activation, eps, dtype_name, 0)))
    st.caption(
        f"Computed in {dtype_name}. Max relative error: the largest, over a quantity's "
        "entries, of |analytic − numerical| / (|analytic| + |numerical|). 1 means they disagree "
        "completely: opposite signs, or one of them 0 and the other not (in float32, often "
        "the numerical one: the nudge did not change the loss at all). Blue: within 1e-6, a "
        "correct backward pass. Yellow: within 1e-4. Red: above."
    )
    near = int(np.sum(np.abs(cache.h_pre) < eps)) if bend.kink and not kink else 0
    if near:  # the Lesson preset's x = [1, −1] puts neuron 1's score exactly on 0
        st.caption(
            f"{near} of the {cache.h_pre.size} scores h_pre {'is' if near == 1 else 'are'} "
            f"within ε of {bend.label}'s kink at 0 already: a nudge of ±ε straddles the bend "
            "there, so the check can report a large error for a correct backward pass."
        )
    sweep, sample = form_sweep(x, weights, toy.activation, dtype_name, 0)
    if sample:
        st.caption(f"The sweep checks {sample} random entries of each quantity at each ε.")
    show(figures.eps_sweep(np.array(EPSILONS), sweep, eps), toy.presenter)
    st.metric(
        "forward passes the check needs",
        f"{2 * entries:,}",
        help=f"2 per entry × {entries:,} entries; one backward pass took "
        f"{backward_ms(dout, cache):.2f} ms and gives all of them at once.",
    )

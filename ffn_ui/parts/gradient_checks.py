"""The Backprop page's gradient checks, cached: each costs thousands of forward passes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.gradcheck import check_form

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

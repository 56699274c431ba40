"""The Backprop page's gradient checks, cached: each costs thousands of forward passes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core import gradient_check

EPSILONS = [10.0**-k for k in range(12, 0, -1)]  # 1e-12 up to 0.1: to the right, larger
MAX_CHECKED = 2000  # entries checked one by one, 2 forward passes each (RESULTS.md times it)
SWEEP_PASSES = 16_000  # forward passes the ε sweep may spend; past that it samples
SWEEP_SAMPLE = 20  # entries of each quantity the ε sweep then checks


@st.cache_data(max_entries=32, ttl=3600, show_spinner="Checking gradients…")
def checked(
    x, W1, b1, W2, b2, activation, eps, dtype_name, seed, per_parameter=None
) -> dict[str, float]:
    dtype = np.dtype(dtype_name).type
    return gradient_check(x, W1, b1, W2, b2, activation, eps, seed, dtype, per_parameter)


def sweep_sample(entries: int) -> int | None:
    """Entries per quantity the ε sweep checks: all (None) if that fits its budget."""
    return None if 2 * len(EPSILONS) * entries <= SWEEP_PASSES else SWEEP_SAMPLE


@st.cache_data(max_entries=16, ttl=3600, show_spinner="Sweeping ε…")
def eps_sweep(x, W1, b1, W2, b2, activation, dtype_name, seed, per_parameter) -> np.ndarray:
    """The worst relative error at each ε of EPSILONS."""
    return np.array(
        [
            max(checked(x, W1, b1, W2, b2, activation, e, dtype_name, seed, per_parameter).values())
            for e in EPSILONS
        ]
    )

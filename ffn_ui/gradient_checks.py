"""The Backprop page's gradient checks, cached: each costs thousands of forward passes."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core import gradient_check

EPSILONS = [10.0**-k for k in range(1, 13)]


@st.cache_data(max_entries=32, ttl=3600, show_spinner="Checking gradients…")
def checked(x, W1, b1, W2, b2, activation, eps, dtype_name, seed) -> dict[str, float]:
    return gradient_check(x, W1, b1, W2, b2, activation, eps, seed, np.dtype(dtype_name).type)


@st.cache_data(max_entries=16, ttl=3600, show_spinner="Sweeping ε…")
def eps_sweep(x, W1, b1, W2, b2, activation, dtype_name, seed) -> np.ndarray:
    return np.array(
        [
            max(checked(x, W1, b1, W2, b2, activation, e, dtype_name, seed).values())
            for e in EPSILONS
        ]
    )

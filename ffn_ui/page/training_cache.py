"""Trained toy models, kept per process so a rerun or a second visitor reuses them.

Streamlit's cache holds a lock per setting: when twenty students open the same untrained
setting at once, one session trains and the others wait for its result.
"""

from __future__ import annotations

import streamlit as st

from ffn_core.lessons.memory import train_memory
from ffn_core.lessons.training import TASKS, TrainResult, make_task, train_ffn
from ffn_ui.shared_arrays import read_only

# Collapse can ask for 7 tasks x (the linear network and 4 activations) x 2 sizes: 70
# settings. A result is a few kB (d_ff <= 64 on two inputs, at most 2,000 losses).
MAX_KEPT = 80


@st.cache_resource(max_entries=MAX_KEPT, ttl=3 * 3600, show_spinner=False)
def trained(task: str, activation: str, d_ff: int, steps: int, seed: int) -> TrainResult:
    """Train once per setting, with a progress bar; shared read-only by every session."""
    X, y = make_task(task, seed=seed)
    bar = st.progress(0.0, text=f"Training with {activation} …")
    result = train_ffn(
        X,
        y,
        TASKS[task],
        d_ff,
        activation,
        steps,
        seed=seed,
        progress=lambda step: bar.progress(step / steps),
    )
    bar.empty()
    read_only([*result.weights.values(), result.losses, result.scores])
    return result


# A visitor can type any facts, so each fact-store training has a CPU budget: a table
# that cannot be learned (one subject with two objects) stops there with what it has.
MEMORY_SECONDS = 1.0


@st.cache_resource(max_entries=32, ttl=3600, show_spinner=False)
def trained_memory(facts: tuple, d_model: int, d_ff: int, activation: str, seed: int):
    """The Memory lab's fact store, trained once per setting, shared read-only."""
    bar = st.progress(0.0, text="Training the fact store …")
    result = train_memory(
        list(facts),
        d_model,
        d_ff,
        activation,
        seed,
        progress=lambda step: bar.progress(min(step / 1500, 1.0)),
        max_seconds=MEMORY_SECONDS,
    )
    bar.empty()
    read_only([*result.weights.values(), result.losses, result.recall])
    return result

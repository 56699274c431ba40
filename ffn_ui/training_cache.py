"""Trained toy models, kept per process so a rerun or a second visitor reuses them."""

from __future__ import annotations

from collections import OrderedDict

import streamlit as st

from ffn_core.training import TASKS, TrainResult, make_task, train_ffn
from ffn_ui.model import read_only

MAX_KEPT = 32


@st.cache_resource(show_spinner=False)
def _store() -> OrderedDict:
    return OrderedDict()


def trained(task: str, activation: str, d_ff: int, steps: int, seed: int) -> TrainResult:
    """Train once per setting, with a progress bar; later calls return the stored result."""
    store = _store()
    key = (task, activation, d_ff, steps, seed)
    if key not in store:
        X, y = make_task(task, seed=seed)
        bar = st.progress(0.0, text=f"Training with {activation} …")
        store[key] = train_ffn(
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
        result = store[key]
        read_only([*result.weights.values(), result.losses, result.scores])
        if len(store) > MAX_KEPT:
            store.popitem(last=False)
    return store[key]

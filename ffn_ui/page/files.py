"""Weights as files: download the current ones, upload replacements (checked first)."""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping

import numpy as np
import streamlit as st

from ffn_core.weights_io import weights_from_file, weights_to_json, weights_to_npz
from ffn_ui.words import literal

log = logging.getLogger(__name__)


def weight_files(weights: Callable[[], dict[str, np.ndarray]], container) -> None:
    """Download the current weights (built only on click, from `weights()`) and upload
    replacements."""
    container.caption("Weights as files (x @ W: W1, or W_gate and W_up, is d_model × d_ff)")
    left, right = container.columns(2)
    left.download_button(
        "NPZ",
        lambda: weights_to_npz(weights()),
        "ffn_weights.npz",
        "application/octet-stream",
        on_click="ignore",
    )
    right.download_button(
        "JSON",
        lambda: weights_to_json(weights()),
        "ffn_weights.json",
        "application/json",
        on_click="ignore",
    )
    container.file_uploader(
        "Upload weights", type=["npz", "json"], key="upload", on_change=read_upload
    )


def read_upload() -> None:
    """The uploader's callback: runs before the page, so the sidebar shows the new sizes."""
    file = st.session_state.get("upload")
    if file is not None:
        apply_upload(st.session_state, file.name, file.getvalue())


def apply_upload(state: MutableMapping, filename: str, data: bytes) -> None:
    """Check an uploaded file before anything uses it; on success, switch the model to it.

    On failure the current weights stay as they were and the message says why. The file
    name is the visitor's, so it is shown literally; the reasons ffn_core.weights_io gives
    quote nothing from the file but names it accepts as plain identifiers.
    This is the upload's boundary: whatever goes wrong reading a visitor's file, even an
    error no check foresaw, becomes a message here and never a traceback on the page.
    """
    name = literal(filename)
    try:
        weights = weights_from_file(data, filename)
    except ValueError as err:
        state["upload_result"] = ("error", f"{name} was not loaded: {err}.")
        return
    except Exception as err:  # the boundary (see the docstring); the log keeps the details
        log.exception("upload %r could not be read", filename)
        kind = type(err).__name__
        state["upload_result"] = ("error", f"{name} was not loaded: it could not be read ({kind}).")
        return
    state["uploaded_weights"] = weights
    gated = "W_gate" in weights
    d_model, d_ff = weights["W_gate" if gated else "W1"].shape
    state["d_model"], state["d_ff"], state["init"] = d_model, d_ff, "uploaded"
    form = ""
    if gated != (state.get("act") == "SwiGLU"):  # the file decides the FFN's form
        state["act"] = "SwiGLU" if gated else "ReLU"
        form = f"; the FFN is now {state['act']}, as the file's weights are"
    state["upload_result"] = (
        "success",
        f"Loaded {name}: {'SwiGLU, ' if gated else ''}d_model {d_model}, d_ff {d_ff}{form}.",
    )


def show_upload_result() -> None:
    result = st.session_state.pop("upload_result", None)
    if result:
        kind, message = result
        (st.error if kind == "error" else st.success)(message)

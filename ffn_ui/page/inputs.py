"""Where x and the weights come from: a sentence, random draws, edited tables, uploads."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import streamlit as st

from ffn_core.forms import is_gated, weight_shapes
from ffn_core.tokens import MAX_TOKENS, split_words
from ffn_core.typed_numbers import encode_arrays
from ffn_ui.controls.labels import labels, token_labels
from ffn_ui.controls.url import bound_number, bound_text, forget_url_value, register, whole_words
from ffn_ui.page import editing
from ffn_ui.shared_arrays import random_tokens, random_weights, sentence_vectors
from ffn_ui.toy import MAX_EDIT

DEFAULT_TEXT = "the cat sat on the mat"
SENTENCE_CHARS = 300  # the sentence box's limit: 64 words of about four letters
Arrays = dict[str, np.ndarray]
Source = Callable[[], Arrays]  # gives the weights again, when a download is clicked
T_HELP = "How many tokens: for random or edited x. A sentence has one per word."


def tokens(mode: str, d_model: int, seed: int, container) -> tuple[np.ndarray, list[str]]:
    """The input x (T, d_model) and one label per token."""
    if mode == "sentence":
        typed = bound_text(
            "sentence",
            "text",
            DEFAULT_TEXT,
            SENTENCE_CHARS,
            container,
            help=f"Each word is a token (at most {MAX_TOKENS}).",
        )
        words = split_words(whole_words(typed, SENTENCE_CHARS, container))
        if not words:
            st.warning("Type at least one word; showing “hello” meanwhile.")
            words = ["hello"]
        word_count(len(words), container)
        forget_url_value("x")
        return sentence_vectors(tuple(words), d_model), token_labels(words)
    T = bound_number("tokens T", "T", 1, MAX_TOKENS, 6, container, help=T_HELP)
    names = token_labels(labels("t", T))
    if mode == "edited" and d_model <= MAX_EDIT:
        return edited_tokens(T, d_model, seed), names
    if mode == "edited":
        st.info(f"x can be edited up to d_model = {MAX_EDIT}; showing random tokens instead.")
    forget_url_value("x")
    return random_tokens(T, d_model, seed), names


def word_count(n: int, container) -> None:
    """The T box, disabled and showing the sentence's count: one token per word, and what
    a word's vector is.

    It is drawn, not skipped: a preset that switches to random or edited tokens sets T,
    and Streamlit writes such a value into the address at once only for a control that
    was drawn in the run before.
    """
    if st.query_params.get("T") not in (None, str(n)):
        forget_url_value("T")  # with a sentence, the address's T means nothing
    st.session_state["T"] = n
    bound_number("tokens T", "T", 1, MAX_TOKENS, 6, container, disabled=True, help=T_HELP)
    register("T", "derived")  # set by the sentence here: no address value is used
    container.caption(
        "Each word's vector is fixed random numbers: the same word gets the same vector "
        "wherever it stands. It carries no meaning and no position."
    )


def edited_tokens(T: int, d_model: int, seed: int) -> np.ndarray:
    shapes = {"x": (T, d_model)}
    base = {"x": np.round(random_tokens(T, d_model, seed), 2)}
    arrays = editing.stored_arrays("edited_x", "x", shapes, lambda: base)
    version = st.session_state["edited_x_version"]
    with st.expander("Edit the input x", expanded=True):
        x = editing.edit_table(
            arrays["x"],
            labels("t", T),
            labels("x", d_model),
            f"edit_x_{version}",
            "x (T × d_model): row t is token t's vector",
        )
    editing.commit_edits("edited_x", "x", arrays, {"x": x})
    return x


def model_weights(init: str, d_model: int, d_ff: int, seed: int, ffn: str) -> tuple[Arrays, Source]:
    """The weights of the FFN named `ffn` (the plain form's four, or SwiGLU's three), and
    how to get them again later (for a download, when it is clicked).

    Random weights are shared through a bounded cache and may leave it; a session keeps
    only how to draw them again, never the arrays, so it cannot pin 67 MB per visitor.
    Edited and uploaded weights already live in the session.
    """
    gated = is_gated(ffn)
    shapes = weight_shapes(ffn, d_model, d_ff)
    if init in ("normal", "Xavier"):
        forget_url_value("w")
        return shared_random(d_model, d_ff, init.lower(), seed, gated)
    if init == "uploaded":
        uploaded = st.session_state.get("uploaded_weights")
        if editing.fits(uploaded, shapes):
            keep_small_weights_in_url(uploaded)
            return uploaded, lambda: uploaded
        if "w" in st.query_params and "uploaded_weights" not in st.session_state:
            return own(hand_weights(shapes, seed))  # a shared link carries them
        st.info(
            f"No uploaded weights of this size {'for SwiGLU ' if gated else ''}yet: upload a "
            "file under the weights settings. Showing random normal weights meanwhile."
        )
        forget_url_value("w")
        return shared_random(d_model, d_ff, "normal", seed, gated)
    if d_model > MAX_EDIT or d_ff > MAX_EDIT:
        st.info(
            f"Weights can be edited up to d_model, d_ff ≤ {MAX_EDIT}; showing random "
            "normal weights instead."
        )
        forget_url_value("w")
        return shared_random(d_model, d_ff, "normal", seed, gated)
    return own(hand_weights(shapes, seed))


def shared_random(
    d_model: int, d_ff: int, scheme: str, seed: int, gated: bool
) -> tuple[Arrays, Source]:
    return random_weights(d_model, d_ff, scheme, seed, gated), partial(
        random_weights, d_model, d_ff, scheme, seed, gated
    )


def own(weights: Arrays) -> tuple[Arrays, Source]:
    return weights, lambda: weights


# Each weight's table: its rows and columns (inputs, neurons or outputs), and its caption.
TABLES = {
    "W1": ("x", "n", "W1 (d_model × d_ff): column j is neuron j's key"),
    "b1": ("b1", "n", "b1 (d_ff): one bias per neuron"),
    "W2": ("n", "out", "W2 (d_ff × d_model): row j is neuron j's value"),
    "b2": ("b2", "out", "b2 (d_model): added to every output"),
    "W_gate": ("x", "n", "W_gate (d_model × d_ff): column j opens neuron j's gate"),
    "W_up": ("x", "n", "W_up (d_model × d_ff): column j is neuron j's signed key"),
    "W_down": ("n", "out", "W_down (d_ff × d_model): row j is neuron j's value"),
}


def hand_weights(shapes: dict[str, tuple[int, ...]], seed: int) -> dict[str, np.ndarray]:
    """Weights in tables (W1, b1, W2, b2, or SwiGLU's three), starting from rounded random
    ones, kept in the URL."""
    first, *_ = shapes
    d_model, d_ff = shapes[first]
    gated = "W_gate" in shapes

    def base() -> dict[str, np.ndarray]:
        uploaded = st.session_state.get("uploaded_weights")
        if editing.fits(uploaded, shapes):
            return dict(uploaded)
        drawn = random_weights(d_model, d_ff, "normal", seed, gated)
        return {n: np.round(a, 2) for n, a in drawn.items()}

    arrays = editing.stored_arrays("hand_weights", "w", shapes, base)
    version = st.session_state["hand_weights_version"]
    axes = {"x": labels("x", d_model), "n": labels("n", d_ff), "out": labels("out", d_model)}
    edited = {}
    with st.expander("Edit the weights", expanded=True):
        columns = st.columns(2)
        for k, name in enumerate(shapes):
            rows, cols, caption = TABLES[name]
            with columns[0 if k < (len(shapes) + 1) // 2 else 1]:
                edited[name] = editing.edit_table(
                    arrays[name],
                    axes.get(rows, [rows]),
                    axes[cols],
                    f"edit_{name}_{version}",
                    caption,
                )
    editing.commit_edits("hand_weights", "w", arrays, edited)
    return edited


def keep_small_weights_in_url(weights: dict[str, np.ndarray]) -> None:
    first, *_ = weights
    d_model, d_ff = weights[first].shape
    if d_model <= MAX_EDIT and d_ff <= MAX_EDIT:
        st.query_params["w"] = encode_arrays(list(weights.values()))
    else:
        forget_url_value("w")
        st.caption("A link cannot carry uploaded weights this large: share the file too.")

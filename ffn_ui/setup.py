"""The one call every page starts with: page config, the sidebar model, presets, presenter.

    model = setup("Neurons")

reads every control from the URL and the session, so a page works when opened first by
its own link, and returns the Model the page computes on.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.init import lesson_example
from ffn_core.tokens import MAX_TOKENS, split_words
from ffn_core.weights_io import (
    encode_arrays,
    weight_shapes,
    weights_from_file,
    weights_to_json,
    weights_to_npz,
)
from ffn_ui import editing
from ffn_ui.model import (
    ACTIVATION_LABELS,
    MAX_EDIT,
    Model,
    random_tokens,
    random_weights,
    sentence_vectors,
    token_labels,
)
from ffn_ui.url import bound_number, bound_select, bound_text, bound_toggle

DEFAULT_TEXT = "the cat sat on the mat"
INIT_OPTIONS = ("normal", "Xavier", "hand-edited", "uploaded")
TOKEN_OPTIONS = ("sentence", "random", "edited")
PRESENTER_CSS = """<style>
html { font-size: 24px !important; }
[data-testid="stSidebar"] { font-size: 20px; }
</style>"""


def setup_page(title: str) -> None:
    """Page config first: Streamlit requires it before any other element."""
    st.set_page_config(page_title=f"{title} · FFN Explorer", page_icon="⏳", layout="wide")


def setup(title: str) -> Model:
    setup_page(title)
    sidebar = st.sidebar
    presenter = bound_toggle(
        "Presenter mode",
        "presenter",
        container=sidebar,
        help="Larger text and figures for a projector; secondary controls tucked away.",
    )
    if presenter:
        st.html(PRESENTER_CSS)
    show_upload_result()
    presets(sidebar)

    sidebar.subheader("Model")
    d_model = bound_number("d_model", "d_model", 1, 1024, 4, sidebar, help="Token width.")
    sidebar.button("d_ff = 4 × d_model", on_click=set_d_ff_4x, use_container_width=True)
    d_ff = bound_number("d_ff", "d_ff", 1, 4096, 16, sidebar, help="Hidden neurons.")
    sidebar.caption(
        f"4 × d_model = {4 * d_model}. SwiGLU models use about 8/3 × d_model = "
        f"{round(8 * d_model / 3)} to keep the parameter count level."
    )
    act_label = bound_select("activation", "act", list(ACTIVATION_LABELS), "ReLU", sidebar)
    more = sidebar.expander("More settings") if presenter else sidebar
    seed = bound_number("seed", "seed", 0, 2**31 - 1, 0, more)
    init = bound_select(
        "weights",
        "init",
        INIT_OPTIONS,
        "normal",
        more,
        help="normal: N(0, 1/fan-in). Xavier: Glorot uniform. hand-edited: tables on the "
        f"page (d_model, d_ff ≤ {MAX_EDIT}). uploaded: an NPZ or JSON file.",
    )

    sidebar.subheader("Tokens")
    mode = bound_select(
        "tokens from", "tokens", TOKEN_OPTIONS, "sentence", sidebar, radio=True, horizontal=True
    )
    x, labels = tokens(mode, d_model, seed, sidebar)
    weights = model_weights(init, d_model, d_ff, seed)
    weight_files(weights, more)
    return Model(
        d_model=d_model,
        d_ff=d_ff,
        activation=ACTIVATION_LABELS[act_label],
        activation_label=act_label,
        weights=weights,
        x=x,
        token_labels=labels,
        presenter=presenter,
    )


# --- presets -------------------------------------------------------------------------


def presets(container) -> None:
    container.subheader("Presets")
    left, mid, right = container.columns(3)
    left.button("Lesson", on_click=preset_lesson, help="d_model = d_ff = 2, x = [1, −1] → [0, 2]")
    mid.button("Small", on_click=preset_small, help="d_model = 4, d_ff = 16, ReLU")
    right.button("GPT-2", on_click=preset_gpt2, help="768 → 3072, GELU, random weights")


def preset_lesson() -> None:
    x, weights = lesson_example()
    state = st.session_state
    state.update(d_model=2, d_ff=2, act="ReLU", init="hand-edited", tokens="edited", T=1)
    editing.replace_arrays("hand_weights", weights)
    editing.replace_arrays("edited_x", {"x": x})


def preset_small() -> None:
    st.session_state.update(d_model=4, d_ff=16, act="ReLU", init="normal", tokens="sentence")


def preset_gpt2() -> None:
    st.session_state.update(d_model=768, d_ff=3072, act="GELU", init="normal", tokens="sentence")


def set_d_ff_4x() -> None:
    st.session_state["d_ff"] = min(4 * st.session_state.get("d_model", 4), 4096)


# --- tokens --------------------------------------------------------------------------


def tokens(mode: str, d_model: int, seed: int, container) -> tuple[np.ndarray, list[str]]:
    """The input x (T, d_model) and one label per token."""
    # Always drawn, so that a preset's T reaches the URL like every other control's value.
    T = bound_number(
        "tokens T",
        "T",
        1,
        MAX_TOKENS,
        6,
        container,
        disabled=mode == "sentence",
        help="For random or edited x; a sentence has one per word.",
    )
    if mode == "sentence":
        text = bound_text(
            "sentence",
            "text",
            DEFAULT_TEXT,
            300,
            container,
            help=f"Each word is a token (at most {MAX_TOKENS}).",
        )
        words = split_words(text)
        if not words:
            st.warning("Type at least one word; showing “hello” meanwhile.")
            words = ["hello"]
        drop_url_value("x")
        return sentence_vectors(tuple(words), d_model), token_labels(words)
    labels = token_labels([f"t{i + 1}" for i in range(T)])
    if mode == "edited" and d_model <= MAX_EDIT:
        return edited_tokens(T, d_model, seed), labels
    if mode == "edited":
        st.info(f"x can be edited up to d_model = {MAX_EDIT}; showing random tokens instead.")
    drop_url_value("x")
    return random_tokens(T, d_model, seed), labels


def edited_tokens(T: int, d_model: int, seed: int) -> np.ndarray:
    shapes = {"x": (T, d_model)}
    base = {"x": np.round(random_tokens(T, d_model, seed), 2)}
    arrays = editing.stored_arrays("edited_x", "x", shapes, lambda: base)
    version = st.session_state["edited_x_version"]
    with st.expander("Edit the input x", expanded=True):
        x = editing.edit_table(
            arrays["x"],
            editing.labels("t", T),
            editing.labels("x", d_model),
            f"edit_x_{version}",
            "x (T × d_model): row t is token t's vector",
        )
    editing.commit_edits("edited_x", "x", arrays, {"x": x})
    return x


# --- weights -------------------------------------------------------------------------


def model_weights(init: str, d_model: int, d_ff: int, seed: int) -> dict[str, np.ndarray]:
    if init in ("normal", "Xavier"):
        drop_url_value("w")
        return random_weights(d_model, d_ff, init.lower(), seed)
    if init == "uploaded":
        uploaded = st.session_state.get("uploaded_weights")
        if editing.fits(uploaded, weight_shapes(d_model, d_ff)):
            keep_small_weights_in_url(uploaded)
            return uploaded
        if "w" in st.query_params and "uploaded_weights" not in st.session_state:
            return hand_weights(d_model, d_ff, seed)  # a shared link carries them
        st.info(
            "No uploaded weights of this size yet: upload a file under the weights "
            "settings. Showing random normal weights meanwhile."
        )
        drop_url_value("w")
        return random_weights(d_model, d_ff, "normal", seed)
    if d_model > MAX_EDIT or d_ff > MAX_EDIT:
        st.info(
            f"Weights can be edited up to d_model, d_ff ≤ {MAX_EDIT}; showing random "
            "normal weights instead."
        )
        drop_url_value("w")
        return random_weights(d_model, d_ff, "normal", seed)
    return hand_weights(d_model, d_ff, seed)


def hand_weights(d_model: int, d_ff: int, seed: int) -> dict[str, np.ndarray]:
    """Weights in four tables, starting from rounded random ones, kept in the URL."""
    shapes = weight_shapes(d_model, d_ff)

    def base() -> dict[str, np.ndarray]:
        uploaded = st.session_state.get("uploaded_weights")
        if editing.fits(uploaded, shapes):
            return dict(uploaded)
        return {n: np.round(a, 2) for n, a in random_weights(d_model, d_ff, "normal", seed).items()}

    arrays = editing.stored_arrays("hand_weights", "w", shapes, base)
    version = st.session_state["hand_weights_version"]
    inputs, neurons, outputs = (
        editing.labels(p, n) for p, n in (("x", d_model), ("n", d_ff), ("out", d_model))
    )
    with st.expander("Edit the weights", expanded=True):
        left, right = st.columns(2)
        with left:
            W1 = editing.edit_table(
                arrays["W1"],
                inputs,
                neurons,
                f"edit_W1_{version}",
                "W1 (d_model × d_ff): column j is neuron j's key",
            )
            b1 = editing.edit_table(
                arrays["b1"],
                ["b1"],
                neurons,
                f"edit_b1_{version}",
                "b1 (d_ff): one bias per neuron",
            )
        with right:
            W2 = editing.edit_table(
                arrays["W2"],
                neurons,
                outputs,
                f"edit_W2_{version}",
                "W2 (d_ff × d_model): row j is neuron j's value",
            )
            b2 = editing.edit_table(
                arrays["b2"],
                ["b2"],
                outputs,
                f"edit_b2_{version}",
                "b2 (d_model): added to every output",
            )
    editing.commit_edits("hand_weights", "w", arrays, {"W1": W1, "b1": b1, "W2": W2, "b2": b2})
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2}


def keep_small_weights_in_url(weights: dict[str, np.ndarray]) -> None:
    d_model, d_ff = weights["W1"].shape
    if d_model <= MAX_EDIT and d_ff <= MAX_EDIT:
        st.query_params["w"] = encode_arrays(list(weights.values()))
    else:
        drop_url_value("w")
        st.caption("A link cannot carry uploaded weights this large: share the file too.")


def drop_url_value(key: str) -> None:
    if key in st.query_params:
        del st.query_params[key]


# --- files ---------------------------------------------------------------------------


def weight_files(weights: dict[str, np.ndarray], container) -> None:
    """Download the current weights (built only on click) and upload replacements."""
    container.caption("Weights as files (x @ W: W1 is d_model × d_ff)")
    left, right = container.columns(2)
    left.download_button(
        "NPZ",
        lambda: weights_to_npz(weights),
        "ffn_weights.npz",
        "application/octet-stream",
        on_click="ignore",
    )
    right.download_button(
        "JSON",
        lambda: weights_to_json(weights),
        "ffn_weights.json",
        "application/json",
        on_click="ignore",
    )
    container.file_uploader(
        "Upload weights", type=["npz", "json"], key="upload", on_change=read_upload
    )


def read_upload() -> None:
    """Check an uploaded file before anything uses it; on success, switch to it."""
    state = st.session_state
    file = state.get("upload")
    if file is None:
        return
    try:
        weights = weights_from_file(file.getvalue(), file.name)
    except ValueError as err:
        state["upload_result"] = ("error", f"{file.name} was not loaded: {err}.")
        return
    state["uploaded_weights"] = weights
    d_model, d_ff = weights["W1"].shape
    state.update(d_model=d_model, d_ff=d_ff, init="uploaded")
    state["upload_result"] = ("success", f"Loaded {file.name}: d_model {d_model}, d_ff {d_ff}.")


def show_upload_result() -> None:
    result = st.session_state.pop("upload_result", None)
    if result:
        kind, message = result
        (st.error if kind == "error" else st.success)(message)

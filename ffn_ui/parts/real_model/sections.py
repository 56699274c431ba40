"""The Real model page's longer sections, each drawn by one call: the heatmap's settings,
switching neurons off (a fragment within the page's one-layer fragment), which neurons
matter for a similarity, and the toy pages' three facts checked on the model."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core import contributions
from ffn_core.models.minilm.model import MiniLM, Trace, cosine
from ffn_ui import figures
from ffn_ui.controls.labels import labels, token_labels
from ffn_ui.controls.url import bound_select, bound_slider, bound_toggle
from ffn_ui.models import minilm as rm
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted
from ffn_ui.parts.real_model.tables import value_sum_table

SIMILARITY = (
    "Each number below is a cosine similarity between two sentence embeddings. A sentence's "
    "embedding is its tokens' vectors after the last layer, averaged and scaled to length 1; "
    "the cosine is 1 when two embeddings point the same way, 0 when they are at right angles."
)
SIMILARITY_HELP = (
    "Cosine similarity of the two sentence embeddings (each the mean of its tokens' vectors "
    "after the last layer, scaled to length 1): 1 is the same direction."
)
ESTIMATE_VERDICTS = ("within a quarter of it", "the right sign, but further off", "the wrong sign")


def estimate_verdict(estimate: float, moved: float) -> str:
    """How a first-order estimate compares with the change it estimates."""
    if np.sign(estimate) != np.sign(moved):
        return ESTIMATE_VERDICTS[2]
    return ESTIMATE_VERDICTS[0 if abs(moved - estimate) <= 0.25 * abs(estimate) else 1]


def heatmap_controls(presenter: bool) -> tuple[str, int, bool]:
    """(view, neurons shown, blank silent cells), tucked away on a projector."""
    settings = st.expander("Heatmap settings") if presenter else st
    cols = settings.columns(3)
    view = bound_select(
        "show", "rm_view", ("activation", "pre-activation"), "activation", cols[0], radio=True
    )
    keep = bound_slider("neurons shown", "rm_cols", 16, figures.MAX_COLUMNS, 64, 16, cols[1])
    mask = bound_toggle("Blank silent cells", "rm_mask", True, cols[2])
    return view, keep, mask


@st.fragment
def switch_off_section(
    text: str, other_text: str, layer: int, neuron: int, token: int, presenter: bool
) -> None:
    """Section 3's switches and what they do; its controls rerun only this section.

    A session keeps a fragment's arguments between its reruns, so they are the sentences
    and choices only: the traces come from the shared cache, and a session never pins one.
    """
    trace, other = rm.run(text), rm.run(other_text)
    tokens, neurons = token_labels(trace.tokens, start=0), labels("n", trace.ffn_act.shape[-1])
    left, right = st.columns(2)
    mode = bound_select(
        "switch off",
        "rm_ablate",
        ("top-k at one token", "the chosen neuron everywhere"),
        "top-k at one token",
        left,
        radio=True,
    )
    top_k = mode == "top-k at one token"
    if top_k:  # else said, not greyed out: a disabled control's label is too faint to read
        k = bound_slider("k", "rm_k", 1, 256, 16, 1, right)
    else:
        right.caption(
            "k (how many of the strongest neurons to switch off at one token) is used in "
            "top-k mode only; this mode switches the chosen neuron off at every token."
        )
    if top_k:
        off = np.argsort(-trace.ffn_act[layer, token], kind="stable")[:k]
        states, embedding = rm.switched_off(text, layer, tuple(off.tolist()), token)
        what = f"the {k} strongest neurons of layer {layer + 1} at token {tokens[token]}"
    else:
        states, embedding = rm.switched_off(text, layer, (neuron,))
        what = f"{neurons[neuron]} of layer {layer + 1} at every token"
    before, after = rm.similarity(text, other_text), cosine(embedding, other.embedding)
    st.caption(SIMILARITY)
    left, mid, right = st.columns(3)
    original = cosine(trace.embedding, embedding)
    left.metric("original vs switched off", f"{original:.4f}", help=SIMILARITY_HELP)
    mid.metric("original vs second sentence", f"{before:.4f}", help=SIMILARITY_HELP)
    right.metric(
        "switched off vs second sentence",
        f"{after:.4f}",
        f"{after - before:+.4f}",
        help=SIMILARITY_HELP,
    )
    change = np.linalg.norm(states - trace.hidden_states, axis=-1)  # (L + 1, T)
    rows = ["embeddings", *[f"after layer {i + 1}" for i in range(len(states) - 1)]]
    show(figures.spread_heatmap(change, rows, tokens), presenter)
    st.caption(
        f"Switched off: {what}. Each cell is how far that token's vector moved. Up to this "
        "layer nothing moves; the FFN changes only the tokens it was edited at; attention in "
        "the later layers then carries the change to the others."
    )


def similarity_section(text: str, other: str, layer: int, presenter: bool) -> None:
    """Section 4: each neuron's activation × gradient for the two sentences' similarity,
    then a prediction about switching the ten most helpful off."""
    neurons = labels("n", rm.run(text).ffn_act.shape[-1])
    before, other_trace = rm.similarity(text, other), rm.run(other)
    scores = rm.attribution(text, other)  # (L, d_ff)
    ranked = np.argsort(-np.abs(scores[layer]), kind="stable")[:15]
    show(
        figures.bars(
            [neurons[j] for j in ranked],
            scores[layer, ranked],
            f"activation × gradient, layer {layer + 1}",
            "score",
            colours=np.where(scores[layer, ranked] > 0, figures.FIRED, figures.COLOURS[0]),
        ),
        presenter,
    )
    helpers = np.argsort(-scores[layer], kind="stable")[:10]
    _, without_helpers = rm.switched_off(text, layer, tuple(helpers.tolist()))
    moved = cosine(without_helpers, other_trace.embedding) - before
    st.caption(
        "For each neuron: its activation times the gradient of cos(sentence, second sentence), "
        "summed over tokens, a first-order estimate of how much switching it off would change "
        "the similarity; the gradient runs back through every layer above with the core's "
        "backward pass. Orange neurons push the sentences together, blue apart."
    )
    estimate = float(-scores[layer, helpers].sum())  # the first-order estimate of the change
    verdict = estimate_verdict(estimate, moved)
    question = Question(
        f"Predict: switch off layer {layer + 1}'s 10 most orange neurons (the largest positive "
        f"scores), everywhere. Their scores add up to an estimated change of {estimate:+.4f} in "
        "the similarity. How close is the real change?",
        "guess_similar",
        ESTIMATE_VERDICTS,
        answer=verdict,
        why=f"switched off, they change the similarity by {moved:+.4f}, against the estimate's "
        f"{estimate:+.4f}. "
        + (
            "Each neuron is estimated alone, as if the model were linear around it; switched "
            "off together, their effects interact through the layers above."
            if verdict != ESTIMATE_VERDICTS[0]
            else "Here the ten neurons' effects add up almost linearly; they need not."
        ),
    )
    if predicted(question, setting=(text, other, layer)):
        after = cosine(without_helpers, other_trace.embedding)
        st.metric("similarity without them", f"{after:.4f}", f"{moved:+.4f}")


def three_facts(
    minilm: MiniLM,
    trace: Trace,
    other_trace: Trace,
    where: tuple[int, int, int],
    examples: list,
    presenter: bool,
) -> None:
    """Section 5: keys fire on patterns, the output is a sum of values, and the FFN is
    position-wise, each checked on the model at (layer, neuron, token)."""
    layer, neuron, token = where
    tokens, neurons = token_labels(trace.tokens, start=0), labels("n", minilm.d_ff)
    h_pre, h = trace.ffn_pre[layer], trace.ffn_act[layer]  # (T, d_ff) each
    x1 = trace.ffn_in[layer]  # (T, d_model): what this layer's FFN read
    W1, b1, W2, b2 = minilm.layers[layer].ffn_weights
    key_error = np.abs(x1 @ W1[:, neuron] + b1[neuron] - h_pre[:, neuron]).max()
    pattern = ", ".join(dict.fromkeys(tokens_[p] for _, tokens_, p, _ in examples))
    st.markdown(
        f"**Keys fire on patterns.** {neurons[neuron]}'s score for each token is the dot product "
        f"of the token's vector with column {neuron + 1} of W1, plus b1 (largest difference from "
        f"the model's own h_pre: {key_error:.1e}). It fires hardest on: {pattern}."
    )
    parts = contributions(x1[token], W1, b1, W2, b2, "gelu")  # (d_ff, d_model)
    table, total = value_sum_table(parts, b2, h[token], neurons)
    st.markdown(
        f"**The output is a sum of value vectors.** At token {tokens[token]}, layer "
        f"{layer + 1}'s FFN output is h_j × (row j of W2), summed over all {minilm.d_ff} "
        f"neurons, plus b2; the sum "
        f"differs from the model's own output by at most "
        f"{np.abs(total - trace.ffn_out[layer, token]).max():.1e}."
    )
    st.dataframe(table, hide_index=True)
    swap = min(token, len(other_trace.tokens) - 1)
    changed_input = x1.copy()
    changed_input[token] = other_trace.ffn_in[layer, swap]  # one token's FFN input replaced
    moved = np.abs(minilm.ffn(layer, changed_input)[0] - trace.ffn_out[layer]).max(axis=1)  # (T,)
    st.markdown(
        f"**Position-wise.** Replace the FFN input at token {tokens[token]} with the one at "
        f"token {swap} of the second sentence, keep every other row, and run layer "
        f"{layer + 1}'s FFN again: the output changes at that token only (largest change "
        f"anywhere else: {np.delete(moved, token).max(initial=0.0):.1e})."
    )
    show(
        figures.bars(tokens, moved, "largest change in the FFN's output, per token", "change"),
        presenter,
    )
    if moved[token] == 0:
        st.caption(
            "The two rows were identical, so nothing changed: try a different second sentence."
        )

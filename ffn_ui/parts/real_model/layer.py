"""The Real model page's sections 1 to 5, which all look at one layer, as one fragment.

Moving the layer slider, or any control below it, reruns these sections alone: not the
sidebar, the sentence or the figure at the top. With a class on the page that is most of a
rerun's cost (benchmarks/RESULTS.md, Real model). A session keeps a fragment's arguments between
its reruns, so they are the sentence and two settings; the traces come from the shared
cache.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from ffn_core.analysis import firing_mask, neuron_order
from ffn_core.models.minilm.model import Trace
from ffn_ui import figures
from ffn_ui.controls.labels import labels, token_labels
from ffn_ui.controls.pickers import pick_token
from ffn_ui.controls.url import bound_number, bound_slider, bound_text, whole_words
from ffn_ui.models import minilm as rm
from ffn_ui.page.display import show
from ffn_ui.parts.real_model import sections as sections
from ffn_ui.parts.real_model.tables import corpus_table


@st.fragment
def one_layer(text: str, threshold: float, presenter: bool) -> None:
    """Who fires in one layer, one of its neurons up close, switching neurons off, which
    neurons matter for a similarity, and the toy pages' three facts."""
    minilm, trace = rm.minilm(), rm.run(text)
    tokens, neurons = token_labels(trace.tokens, start=0), labels("n", minilm.d_ff)
    layer = bound_slider(
        "layer",
        "rm_layer",
        1,
        minilm.n_layers,
        rm.DEFAULT.layer,
        1,
        width=320,
        help="Sections 1 to 5 all look at this layer; moving it reruns only them.",
    )
    layer -= 1
    who_fires(text, trace, tokens, neurons, (layer, threshold), presenter)
    neuron, examples = one_neuron(trace, tokens, neurons, layer, presenter)

    st.subheader("3. Switch neurons off, and watch the sentence embedding move")
    left, right = st.columns([3, 1])
    typed = bound_text("compare with", "rm_other", rm.DEFAULT.other, rm.MAX_CHARS, left)
    other = rm.fit(whole_words(typed, rm.MAX_CHARS, left))
    token = pick_token(tokens, key="rm_tok", container=right, default=2, gone="in this sentence")
    sections.switch_off_section(text, other, layer, neuron, token, presenter)

    # Sections 4 and 5 run only once opened: a closed expander's code is skipped.
    st.subheader("4. Which neurons matter for the similarity of the two sentences")
    st.caption(
        f"Here each of layer {layer + 1}'s neurons is scored by how much it pushes the two "
        "sentences' similarity up or down; then a question on switching the strongest off. "
        "It runs the model backwards, so it waits until you open it."
    )
    scores = st.expander(
        "Show each neuron's score, then predict", key="rm_open_5", on_change="rerun"
    )
    if scores.open:
        with scores:
            sections.similarity_section(text, other, layer, presenter)

    st.subheader("5. The toy pages' three facts, checked on this model")
    st.caption(
        "Keys fire on patterns, the output is a sum of value vectors, and the FFN works on "
        "each token alone: each checked on this layer's own numbers once you open it."
    )
    label = "Check them at this layer, neuron and token"
    facts = st.expander(label, key="rm_open_6", on_change="rerun")
    if facts.open:
        with facts:
            where = (layer, neuron, token)
            sections.three_facts(minilm, trace, rm.run(other), where, examples, presenter)


def who_fires(text: str, trace: Trace, tokens, neurons, at: tuple[int, float], presenter: bool):
    """Section 1: the layer's heatmap of activations, token by neuron, and its download."""
    layer, threshold = at
    h_pre, h = trace.ffn_pre[layer], trace.ffn_act[layer]  # (T, d_ff) each
    st.subheader(f"1. Who fires in layer {layer + 1}")
    view, keep, mask = sections.heatmap_controls(presenter)
    fired = firing_mask(h, threshold)  # (T, d_ff)
    shown, shown_fired, shown_labels, note = figures.most_active_columns(
        h if view == "activation" else h_pre, fired, neuron_order(h, threshold), neurons, keep
    )
    colours = (
        "Only the cells that fired are coloured, deeper red for stronger; grey cells did not."
        if mask
        else "Red above zero, blue below, white at zero."
    )
    st.caption(
        f"{len(tokens)} WordPiece tokens: the tokenizer splits rare words into pieces (## "
        "marks a piece that continues a word), and adds [CLS] at the start and [SEP] at the "
        f"end of every input. {colours} Hover for exact values. Showing {note}."
    )
    show(
        figures.firing_heatmap(shown, shown_fired, tokens, shown_labels, view, mask),
        presenter,
        key="rm_heatmap",
    )
    st.download_button(
        f"Download layer {layer + 1}'s activations, every token and all {len(neurons)} "
        "neurons (CSV)",
        data=partial(rm.layer_csv, text, layer),  # built only when clicked, from the cache
        file_name=f"minilm-layer{layer + 1}-activations.csv",
        mime="text/csv",
        on_click="ignore",
    )


def one_neuron(trace: Trace, tokens, neurons, layer: int, presenter: bool) -> tuple[int, list]:
    """Section 2: one neuron's activation per token, what its value vector points towards,
    and where it fires hardest in the corpus. Returns the neuron and those examples."""
    h = trace.ffn_act[layer]  # (T, d_ff)
    st.subheader("2. One neuron, up close")
    left, right = st.columns([2, 1])
    neuron = bound_number("neuron", "rm_neuron", 1, len(neurons), rm.DEFAULT.neuron, left) - 1
    words_only = h[1:-1] if len(h) > 2 else h  # [CLS] and [SEP] fire on nearly everything
    strongest = int(np.argmax(words_only.max(axis=0)))
    right.button(
        f"Strongest on these words: {neurons[strongest]}",
        on_click=st.session_state.update,
        kwargs={"rm_neuron": strongest + 1},
    )
    left, right = st.columns(2)
    with left:
        title = f"{neurons[neuron]}, layer {layer + 1}, per token"
        show(figures.bars(tokens, h[:, neuron], title, "h"), presenter)
    with right:
        words = rm.value_vocabulary(layer, neuron)
        show(
            figures.bars(
                [f"“{w}”" for w, _ in words],  # quoted: the word "nan" is a word, not a NaN
                [s for _, s in words],
                f"what {neurons[neuron]}'s value vector points towards",
                "score",
                horizontal=True,
            ),
            presenter,
        )
        st.caption(
            "Row j of W2 compared with every input word embedding. This encoder has no "
            "output layer over words, so this is a hint of what the neuron adds, not a "
            "prediction."
        )
    top = rm.corpus_top_tokens()
    examples = top.examples(layer, neuron)
    st.markdown(
        f"**Where {neurons[neuron]} fires hardest** in {len(top.sentences)} short sentences "
        "written for this app (the token in brackets):"
    )
    st.dataframe(corpus_table(examples), hide_index=True)
    return neuron, examples

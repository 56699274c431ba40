"""Neurons: which hidden neurons fire for each token."""

import hashlib

import numpy as np
import streamlit as st

from ffn_core.analysis import (
    firing_count,
    firing_mask,
    firing_rate,
    neuron_order,
    silent_neurons,
    sparsity,
)
from ffn_ui import figures
from ffn_ui.controls.labels import labels, repeated_word
from ffn_ui.controls.pickers import pick_token_and_neuron
from ffn_ui.controls.predict import predicted
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.parts.neurons import (
    GATED_NOTE,
    closer_look,
    firing_question,
    hidden_layer,
    strongest_table,
    view_controls,
)

INTRO = (
    "Each token's vector is scored against every neuron's key (a column of `W1`, plus "
    "`b1`); the activation then decides which neurons pass their score on. "
    "A neuron that passes a positive value *fires*: it will write into the output."
)

toy = setup("Neurons", "Neurons: who fires, per token", INTRO)
if toy.gated:
    st.info(GATED_NOTE)

layer = hidden_layer(toy)  # the activations, or SwiGLU's products, and what else it shows
view, threshold, mask, sort = view_controls(toy, layer)
h, strength = layer.passed, layer.strength  # (T, d_ff) each
fired = firing_mask(strength, threshold)  # (T, d_ff)
neurons = labels("n", toy.d_ff)
aggregate = toy.d_ff > figures.MAX_COLUMNS  # wide layers always keep their most active
order = neuron_order(strength, threshold) if sort or aggregate else np.arange(toy.d_ff)
values = layer.views[view]
shown, shown_fired, shown_labels, note = figures.most_active_columns(
    values,
    fired,
    order,
    neurons,
    figures.MAX_COLUMNS,
)

# Asked before the heatmap and the counts below it, which show the answer. Hand-edited
# tables start as the random weights, rounded, so they fire for the same random reason.
random_weights = st.session_state.get("init") in ("normal", "Xavier", "hand-edited")
question = firing_question(fired, threshold, random_weights, toy.gated)
answered = predicted(question, setting=hashlib.sha256(fired.tobytes()).hexdigest()[:12])

st.subheader(f"The {view} of every neuron for every token")
st.caption(
    (
        "Notice: only the cells that fired are coloured, deeper red for a stronger "
        "activation"
        + (", blue for one that writes backward" if layer.signed else "")
        + "; grey cells did not fire (a dot marks them when there is room)."
        if mask
        else "Every cell shows its value: red above zero, blue below, white at zero."
    )
    + " Hover over a cell (on a phone, tap it) for its exact value."
    + (f" Showing {note}." if note else "")
)
show(
    figures.firing_heatmap(shown, shown_fired, toy.token_labels, shown_labels, view, mask),
    toy.presenter,
    key="heatmap",
)

repeated = repeated_word(toy.token_labels) if toy.tokens_from == "sentence" else None
if repeated:
    word, a, b = repeated
    difference = np.abs(h[a] - h[b]).max()
    st.caption(
        f"Notice the rows of {toy.token_labels[a]} and {toy.token_labels[b]}: the largest "
        f"difference between them is {difference:g}. “{word}” is one fixed vector wherever it "
        "stands, and the FFN looks at one token at a time: same input, same output (that is "
        "what position-wise means). In a real model, a position signal and attention make "
        "the two inputs differ, so the rows would too: not because of the FFN."
    )

st.subheader("Per token: how many fired, and which most strongly")
counts = firing_count(strength, threshold)
show(figures.bars(toy.token_labels, counts, "neurons fired per token", "fired"), toy.presenter)
st.dataframe(strongest_table(layer, fired, neurons, toy.token_labels))

st.subheader("Per neuron: how often it fires")
rate = firing_rate(strength, threshold)
dead = silent_neurons(strength, threshold)
rate_order = np.argsort(-rate, kind="stable")[: figures.MAX_COLUMNS]
silent = ", ".join(neurons[j] for j in dead[:20]) + (" …" if len(dead) > 20 else "")
st.caption(
    (
        f"{len(dead)} of {toy.d_ff} neurons stayed silent on all {toy.T} tokens ({silent})."
        if len(dead)
        else f"Every neuron fired on at least one of these {toy.T} tokens."
    )
    + (f" Showing the {len(rate_order)} most active." if toy.d_ff > len(rate_order) else "")
)
show(
    figures.bars(
        [neurons[j] for j in rate_order],
        rate[rate_order],
        "firing rate over tokens",
        "rate",
        colours=figures.FIRED,
    ),
    toy.presenter,
)

st.subheader("Sparsity of the whole input")
if answered:  # these count what the question asks
    left, right = st.columns(2)
    left.metric("activations that fired", f"{np.mean(fired):.0%}")
    right.metric(
        "activations exactly zero",
        f"{sparsity(h):.0%}",
        help="ReLU's silence is exact zeros; GELU, SiLU and SwiGLU leave small values instead.",
    )
    title = f"{toy.activation_label} {'products' if layer.signed else 'activations'}, all tokens"
    show(figures.histogram(h, threshold, title, layer.signed), toy.presenter)
else:
    st.caption("Make your guess at the top of the page: this section counts its answer.")

st.subheader("Look closer")
t, j = pick_token_and_neuron(toy)
st.markdown(closer_look(toy, layer, t, j, fired[t, j], neurons[j]))

next_step("app_pages/Neurons.py")

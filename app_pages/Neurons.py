"""Neurons: which hidden neurons fire for each token."""

import hashlib

import numpy as np
import streamlit as st

from ffn_core.analysis import firing_mask, neuron_order
from ffn_ui import figures
from ffn_ui.controls.labels import labels, repeated_word
from ffn_ui.controls.pickers import pick_token_and_neuron
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.neurons import (
    GATED_NOTE,
    closer_look,
    counted,
    firing_question,
    heatmap_caption,
    hidden_layer,
    view_controls,
)

LEDE = (
    "Every token is scored against every neuron's key, and a neuron *fires* when the "
    "activation passes its score on: guess how many do, then see which."
)
INTRO = (
    "Each token's vector is scored against every neuron's key (a column of `W1`, plus "
    "`b1`): that score is the neuron's *pre-activation*, its value before the activation "
    "acts. The activation then decides which neurons pass their score on. A neuron that "
    "passes a positive value *fires*: it will write into the output."
)

toy = setup("Neurons", "Neurons: who fires, per token", LEDE)
asked = st.container()  # the question, above the grid it is about
grid, controls = stage(toy.presenter)

layer = hidden_layer(toy)  # the activations, or SwiGLU's products, and what else it shows
with controls:
    view, threshold, mask, sort = view_controls(toy, layer)
h, strength = layer.passed, layer.strength  # (T, d_ff) each
fired = firing_mask(strength, threshold)  # (T, d_ff)
neurons = labels("n", toy.d_ff)
aggregate = toy.d_ff > figures.MAX_COLUMNS  # wide layers always keep their most active
order = neuron_order(strength, threshold) if sort or aggregate else np.arange(toy.d_ff)
shown, shown_fired, shown_labels, note = figures.most_active_columns(
    layer.views[view],
    fired,
    order,
    neurons,
    figures.MAX_COLUMNS,
)

# Hand-edited tables start as the random weights, rounded, so they fire for the same
# random reason. The grid, its words and every count below wait for the guess.
random_weights = st.session_state.get("init") in ("normal", "Xavier", "hand-edited")
question = firing_question(fired, threshold, random_weights, toy.gated)
setting = hashlib.sha256(fired.tobytes()).hexdigest()[:12]
answered = predicted(question, setting=setting, container=asked)

with grid:
    show(
        figures.firing_heatmap(
            shown, shown_fired, toy.token_labels, shown_labels, view, mask, hidden=not answered
        ),
        toy.presenter,
        key="heatmap",
    )
    st.caption(heatmap_caption(view, mask, layer.signed, note, answered))
if toy.gated:
    st.info(GATED_NOTE)

repeated = repeated_word(toy.token_labels) if toy.tokens_from == "sentence" else None
if repeated and answered:
    word, a, b = repeated
    difference = np.abs(h[a] - h[b]).max()
    st.caption(
        f"Notice the rows of {toy.token_labels[a]} and {toy.token_labels[b]}: the largest "
        f"difference between them is {difference:g}. “{word}” is one fixed vector wherever it "
        "stands, and the FFN looks at one token at a time: same input, same output (that is "
        "what position-wise means). In a real model, a position signal and attention make "
        "the two inputs differ, so the rows would too: not because of the FFN."
    )
explained(INTRO, toy.presenter)

if answered:  # each of these counts what the question asks
    counted(toy, layer, fired, threshold, neurons)

st.subheader("Look closer")
t, j = pick_token_and_neuron(toy)
st.markdown(closer_look(toy, layer, t, j, fired[t, j], neurons[j]))

offer_notebook("Neurons", toy, threshold=threshold)
next_step("app_pages/Neurons.py")

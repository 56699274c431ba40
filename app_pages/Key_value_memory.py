"""Key–value memory: each firing neuron writes its value into the output."""

import numpy as np
import streamlit as st

from ffn_core.analysis import grouped_writes
from ffn_core.forms import writes
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement, labels
from ffn_ui.controls.pickers import pick_token_and_neuron
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.key_value import (
    GATED_NOTE,
    closed_gate_question,
    edit_section,
    gated_match,
    plain_match,
    silent_write_question,
)

MAX_COORDS = 24  # output coordinates drawn as bars; wider outputs keep the largest
TOP_WRITERS = 6  # neurons drawn one by one in the sum; the rest are gathered

LEDE = (
    "Each neuron's key scores the token, and its value, weighted by what the activation "
    "makes of that score, is added to the output."
)
INTRO = (
    "Geva and colleagues (2021) read the FFN as a memory. Each hidden neuron holds a "
    "**key**, its column of `W1`: a pattern it looks for in the token. The token's match "
    "score with the key, plus the neuron's bias, goes through the activation. Each neuron "
    "also holds a **value**, its row of `W2`: the vector it adds to the output, scaled by "
    "its activation. So the output is every value, weighted by its neuron's activation, "
    "plus the bias b2. In the smallest example (preset *Lesson*: d_model = d_ff = 2, W2 "
    "the identity, no biases), the token [1, −1] scores 0 against the key [1, 1] and 2 "
    "against the key [1, −1]: what the neuron that scored 0 writes is section 2's question. "
    "(This app writes x @ W, so keys are columns of W1; written as W @ x, as many texts "
    "do, they are rows: see the Glossary page.)"
)

toy = setup("Key–value memory", "Key–value memory: match a pattern, write a value", LEDE)
match, controls = stage(toy.presenter)
with controls:
    t, j = pick_token_and_neuron(toy)
    st.caption("The token is scored against every neuron's key; the picked neuron is outlined.")
written = writes(toy.x[t], toy.weights, toy.activation)  # one token, neuron by neuron
out, h, values, bias = written.out, written.coefficient, written.values, written.bias
neurons = labels("n", toy.d_ff)
token = toy.token_labels[t]
fired = h != 0  # what writes anything: a ReLU neuron that fired, any SwiGLU neuron
with match:  # 1. how well the token fits each key: the page's first figure
    h_pre = (gated_match if toy.gated else plain_match)(toy, t, j, neurons)  # gate, or score
if toy.gated:
    st.info(GATED_NOTE)
explained(INTRO, toy.presenter)

st.subheader("2. Write: the output is the sum of the values")
silent = np.flatnonzero(h_pre <= 0)  # the neurons that missed: no fire, or a closed gate
revealed = True  # the sum below shows what a silent neuron writes: it waits for the guess
if len(silent):
    k = int(silent[np.argmax(np.abs(h[silent]) + 1e-9 * h_pre[silent])])  # writes most
    if toy.gated:
        up = float(toy.x[t] @ toy.W_up[:, k])
        question = closed_gate_question(neurons[k], float(h_pre[k]), up, float(h[k]), token)
    else:
        question = silent_write_question(neurons[k], float(h_pre[k]), float(h[k]), token, toy)
    revealed = predicted(question, setting=(token, toy.activation, toy.d_model, toy.d_ff, k))
    if revealed:
        st.caption(
            f"{neurons[k]}'s write, h × its row of {'W_down' if toy.gated else 'W2'} (row "
            f"{k + 1}): largest entry {np.abs(h[k] * values[k]).max():.3g}, against "
            f"{np.abs(out).max():.3g} for the whole output."
        )
coords = np.arange(toy.d_model)
if toy.d_model > MAX_COORDS:
    coords = np.sort(np.argsort(-np.abs(out), kind="stable")[:MAX_COORDS])
coord_labels = [f"out{c + 1}" for c in coords]  # the shown coordinates, not 1..C
stacked, writers, rest = grouped_writes(h, values, coords, TOP_WRITERS)  # (≤ 7, C), (≤ 6,)
names = [neurons[k] for k in writers] + ([f"other {rest} neurons"] if rest else [])
gap = float(np.max(np.abs(stacked.sum(axis=0) + bias[coords] - out[coords])))
if not revealed:  # true on a teacher's page too, where the answer waits for the reveal
    st.caption("What every neuron writes, and their sum, are drawn with the answer.")
else:
    block = "silu(gate_j) · up_j × W_down[j]" if toy.gated else "h_j × W2[j]"
    st.caption(
        f"Each coloured block is {block} for one neuron"
        + ("; SwiGLU has no b2." if toy.gated else "; b2 is added last.")
        + f" The diamonds are the forward pass's output; the blocks add up to it {agreement(gap)}."
        + (
            f" Showing the {MAX_COORDS} largest of {toy.d_model} coordinates."
            if toy.d_model > MAX_COORDS
            else ""
        )
    )
    show(
        figures.neuron_writes_figure(
            stacked, out[coords], names, coord_labels, None if toy.gated else bias[coords]
        ),
        toy.presenter,
    )
    if toy.d_model == 2:
        st.caption("The same sum in the plane: each firing neuron's write, tip to tail, then b2.")
        show(
            figures.arrows_figure(
                h[fired, None] * values[fired], bias, [neurons[k] for k in np.flatnonzero(fired)]
            ),
            toy.presenter,
        )

st.subheader("3. Residual: x + FFN(x)")
down = int(np.sum(out < 0))
st.caption(
    "The block adds the FFN's output to the token, coordinate by coordinate: the token's "
    f"x1 and the output's out1, and so on. The output is signed: here it pushes {down} of "
    f"{toy.d_model} coordinates down."
)
show(
    figures.residual_bars(toy.x[t, coords], out[coords], coords, f"token “{token}”"), toy.presenter
)

st.subheader("4. Switch neurons off, or turn one up")
strongest = int(np.argmax(np.abs(h) if toy.gated else h))  # fired hardest, or wrote most
if h[strongest] != 0 and neurons[strongest] not in st.session_state.get("off", []):
    preset_button(
        st, f"Switch off {neurons[strongest]}, the strongest, below", off=[neurons[strongest]]
    )
edit_section(neurons, j, h, out, (coords, coord_labels), toy.again, toy.presenter)
st.page_link("app_pages/Real_model.py", label="The same keys and values in a trained model →")

offer_notebook("Key–value memory", toy, token=t)
next_step("app_pages/Key_value_memory.py")

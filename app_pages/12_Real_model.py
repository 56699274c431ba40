"""Real model: the same keys and values inside all-MiniLM-L6-v2, run by our NumPy code."""

from functools import partial

import numpy as np
import streamlit as st

from ffn_core import hidden
from ffn_core.analysis import firing_mask, neuron_order
from ffn_ui import figures
from ffn_ui import real_model as rm
from ffn_ui import real_model_sections as sections
from ffn_ui.display import show
from ffn_ui.labels import labels, token_labels
from ffn_ui.path import next_step
from ffn_ui.pickers import pick_token
from ffn_ui.real_model_tables import corpus_table, sparsity_shares
from ffn_ui.setup import setup
from ffn_ui.url import bound_number, bound_slider, bound_text

INTRO = (
    "Every toy page asks you to take the real thing on trust. Here is the real thing: "
    "**all-MiniLM-L6-v2**, a widely used sentence encoder (6 layers, d_model 384, "
    "d_ff 1536, GELU), run on your sentence by this app's own NumPy code. Each layer's FFN "
    "is the very `ffn_forward` the toy pages call, with the model's trained weights."
)

toy = setup("Real model", "Real model: keys and values in a trained transformer", INTRO)
minilm = rm.model_or_instructions()
neurons = labels("n", minilm.d_ff)

places = st.columns(len(rm.PRESETS))
for place, (name, preset) in zip(places, rm.PRESETS.items(), strict=True):
    place.button(name, on_click=rm.apply_preset, args=(name,), help=preset.why, width="stretch")
left, right = st.columns([3, 1])
text = rm.fit(bound_text("your sentence", "rm_text", rm.DEFAULT.text, rm.MAX_CHARS, left))
layer = bound_slider("layer", "rm_layer", 1, minilm.n_layers, rm.DEFAULT.layer, 1, right) - 1
trace = rm.run(text)
tokens = token_labels(trace.tokens, start=0)
h_pre, h = trace.ffn_pre[layer], trace.ffn_act[layer]  # (T, d_ff) each

st.subheader(f"1. Who fires in layer {layer + 1}")
view, threshold, keep, mask = sections.heatmap_controls(toy.presenter)
fired = firing_mask(h, threshold)  # (T, d_ff)
shown, shown_fired, shown_labels, note = figures.most_active_columns(
    h if view == "activation" else h_pre, fired, neuron_order(h, threshold), neurons, keep
)
st.caption(
    f"{len(trace.tokens)} WordPiece tokens: the tokenizer splits rare words into pieces (## "
    "marks a piece that continues a word), and adds [CLS] at the start and [SEP] at the end "
    "of every input. "
    + (
        "Only the cells that fired are coloured, deeper red for stronger; grey cells did not."
        if mask
        else "Red above zero, blue below, white at zero."
    )
    + f" Hover for exact values. Showing {note}."
)
show(
    figures.firing_heatmap(shown, shown_fired, tokens, shown_labels, view, mask),
    toy.presenter,
    key="rm_heatmap",
)
st.download_button(
    f"Download layer {layer + 1}'s activations, every token and all {minilm.d_ff} neurons (CSV)",
    data=partial(rm.layer_csv, text, layer),  # built only when clicked, from the cache
    file_name=f"minilm-layer{layer + 1}-activations.csv",
    mime="text/csv",
    on_click="ignore",
)

st.subheader("2. Soft sparsity: GELU here, ReLU in the toy")
_, toy_h = hidden(toy.x, toy.W1, toy.b1, "relu")  # the sidebar's toy toy, with ReLU
shares = sparsity_shares(trace.ffn_act, toy_h, threshold)
show(
    figures.grouped_bars(
        shares,
        [*[f"layer {i + 1}" for i in range(minilm.n_layers)], "toy ReLU"],
        "share of activations, this sentence",
    ),
    toy.presenter,
)
negative = float(np.mean(shares["slightly negative (h < 0)"][:-1]))
st.caption(
    "ReLU's silence is exact: a neuron that does not fire writes exactly nothing. GELU's "
    f"is soft: almost nothing is exactly 0, but {negative:.0%} of activations here are "
    f"slightly negative (GELU never goes below −0.17), so they write a little, backwards. "
    f"The toy column is the sidebar's {toy.d_model} → {toy.d_ff} toy, run with ReLU."
)

st.subheader("3. One neuron, up close")
left, right = st.columns([2, 1])
neuron = bound_number("neuron", "rm_neuron", 1, minilm.d_ff, rm.DEFAULT.neuron, left) - 1
words_only = h[1:-1] if len(h) > 2 else h  # [CLS] and [SEP] fire on nearly everything
strongest = int(np.argmax(words_only.max(axis=0)))
right.button(
    f"Strongest on these words: {neurons[strongest]}",
    on_click=st.session_state.update,
    kwargs={"rm_neuron": strongest + 1},
)
left, right = st.columns(2)
with left:
    show(
        figures.bars(tokens, h[:, neuron], f"{neurons[neuron]}, layer {layer + 1}, per token", "h"),
        toy.presenter,
    )
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
        toy.presenter,
    )
    st.caption(
        "Row j of W2 compared with every input word embedding. This encoder has no output "
        "layer over words, so this is a hint of what the neuron adds, not a prediction."
    )
top = rm.corpus_top_tokens()
examples = top.examples(layer, neuron)
st.markdown(
    f"**Where {neurons[neuron]} fires hardest** in {len(top.sentences)} short sentences "
    "written for this app (the token in brackets):"
)
st.dataframe(corpus_table(examples), hide_index=True)

st.subheader("4. Switch neurons off, and watch the sentence embedding move")
left, right = st.columns([3, 1])
other = rm.fit(bound_text("compare with", "rm_other", rm.DEFAULT.other, rm.MAX_CHARS, left))
token = pick_token(tokens, key="rm_tok", container=right, default=2, gone="in this sentence")
sections.switch_off_section(text, other, layer, neuron, token, toy.presenter)

# Sections 5 and 6 run only once opened: a closed expander's code is skipped, so the page
# loads and reruns lighter for a whole class.
st.subheader("5. Which neurons matter for the similarity of the two sentences")
scores = st.expander("Show each neuron's score, then predict", key="rm_open_5", on_change="rerun")
if scores.open:
    with scores:
        sections.similarity_section(text, other, layer, toy.presenter)

st.subheader("6. The toy pages' three facts, checked on this model")
label = "Check them at this layer, neuron and token"
facts = st.expander(label, key="rm_open_6", on_change="rerun")
if facts.open:
    with facts:
        where = (layer, neuron, token)
        sections.three_facts(minilm, trace, rm.run(other), where, examples, toy.presenter)
st.page_link("app_pages/2_Key_value_memory.py", label="The same idea on a model you can edit →")

next_step("app_pages/12_Real_model.py")

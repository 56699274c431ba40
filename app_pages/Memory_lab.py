"""Memory lab: train an FFN to store facts, then find, break and rewrite them."""

import numpy as np
import streamlit as st

from ffn_core.lessons import memory
from ffn_core.lessons.memory import VOCAB
from ffn_core.softmax import softmax
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_multiselect, bound_select, bound_slider, bound_toggle
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.page.training_cache import trained_memory
from ffn_ui.parts import memory_lab

LEDE = (
    "An FFN learns to map each subject's word to its object's (France → Paris): watch it "
    "train, then find the neurons that hold a fact, switch them off, and rewrite one."
)
INTRO = (
    "“The knowledge lives in the MLPs” is a claim about keys and values. A model small "
    "enough to see whole illustrates it (it cannot prove it): an FFN learns to map a "
    "subject's word vector to its object's, scored against every word of a 54-word "
    "vocabulary; the loss is how far those scores are from putting each fact's object "
    "first, the recall the share of facts whose object comes first. Then you can find the "
    "neurons that carry each fact, switch them off, and rewrite a fact with a single "
    "rank-one change to W2: one column times one row (u ⊗ d), so every neuron's value row "
    "moves along the same direction d, each by its own amount u_j."
)

toy = setup("Memory lab", "Memory lab: where the facts live", LEDE)
picture, controls = stage(toy.presenter)
with controls:
    readout = st.container()  # what training reached, above the controls that shape it
    tables = list(memory.FACT_TABLES)
    table_name = bound_select("fact table", "facts", tables, tables[0])
    d_ff = bound_slider("neurons d_ff", "mem_dff", 4, 256, 64, 4)
    facts = memory_lab.edited_facts(table_name, st.expander("The facts: read or edit them"))
    d_model, act = memory_lab.store_d_model(toy.d_model), memory_lab.store_activation(toy)

result = trained_memory(tuple(facts), d_model, d_ff, act, 0)
W = result.weights
E, X, objects = memory.fact_vectors(facts, d_model)  # (V, d_model), (F, d_model), (F,)
S, _ = memory.scores(W, X, E, act)  # (F, V)
P = softmax(S)  # (F, V)
recalled = S.argmax(axis=1) == objects  # (F,)
fact_labels, neuron_names = [f"{s} → {o}" for s, o in facts], labels("n", d_ff)
with picture:
    show(figures.loss_and_recall(result.losses, result.recall), toy.presenter)
with readout:
    memory_lab.training_summary(result, recalled)
explained(INTRO, toy.presenter)

st.subheader("1. Recall")
st.dataframe(memory_lab.recall_table(fact_labels, P, recalled))

st.subheader("2. Where each fact lives")
fact = bound_select("fact", "fact", fact_labels, fact_labels[0], gone="in this fact table")
f = fact_labels.index(fact)
subject, answer = facts[f]
shares, bias = memory.contributions_to(W, X[f], E[objects[f]], act)  # (d_ff,), b2 · e_object
order = np.argsort(-shares, kind="stable")  # (d_ff,): neurons, largest share first
n50, n90 = memory.neurons_carrying(shares, 0.5), memory.neurons_carrying(shares, 0.9)
st.caption(
    f"The score of “{answer}” for “{subject}” is {S[f, objects[f]]:.3f}: with e_object "
    f"the word vector of “{answer}”, the neurons' shares h_j (W2[j] · e_object) add up to "
    f"{shares.sum():.3f}, plus b2 · e_object = {bias:.3f}. {n50} neurons carry half of the "
    f"positive push, {n90} carry 90 %."
)
show(figures.largest_shares(shares, neuron_names, answer), toy.presenter)
own = memory.answer_shares(W, X, E[objects], act)  # (F, d_ff)
title = "every fact × every neuron: share of the fact's own answer"
show(figures.matrix_heatmap(own, fact_labels, neuron_names, title, "share"), toy.presenter)

st.subheader("3. One neuron as a key and a value")
gone = f"now that d_ff = {d_ff}"
neuron = bound_select("neuron", "mneuron", neuron_names, neuron_names[int(order[0])], gone=gone)
key_match, push = memory.key_and_value(W, X, E, neuron_names.index(neuron))  # (F,), (V,)
pair = figures.key_and_value_bars(neuron, [s for s, _ in facts], key_match, VOCAB, push)
show_in_pairs(pair, toy.presenter)
st.caption(
    "The value read against every word is the vocabulary projection of Geva et al. (2022), "
    "which LM-Debugger (Geva et al., EMNLP 2022 demos) shows for GPT-2's neurons. "
    "Neuroscope (Nanda, 2022) shows something else: the texts that make a neuron fire "
    "hardest. The Real model page shows both for MiniLM, a trained model that reads a "
    "whole sentence at once; here every number can be checked."
)

st.subheader("4. Switch neurons off")
left, right = st.columns(2)
off_names = bound_multiselect("switched off", "moff", neuron_names, left, gone=gone)
top_n = bound_slider(f"plus the top n neurons for “{subject}”", "topn", 0, 20, 0, 1, right)
off = np.unique([neuron_names.index(n) for n in off_names] + list(order[:top_n])).astype(int)
survived = memory.ablated_scores(W, X, E, act, off).argmax(axis=1) == objects  # (F,)
broken = [fact_labels[i] for i in np.flatnonzero(recalled & ~survived)]
lost = int(survived.sum() - recalled.sum())
st.metric("facts still recalled", f"{survived.sum()} of {len(facts)}", delta=lost)
st.caption(f"{len(off)} neurons off. Broken: {', '.join(broken) if broken else 'none'}.")
memory_lab.redundancy(W, (E, X, objects), facts, d_model, act, toy.presenter)

st.subheader("5. Rewrite one fact")
st.markdown(
    "Editing methods such as ROME (Rank-One Model Editing, Meng et al. 2022) treat an FFN's "
    "second matrix as a memory of key → value pairs and change it directly. The subject's "
    "hidden activation is the key; one rank-one change to W2 moves that key's output toward "
    "the new object, chosen so that keys unlike it barely move. The analogy has limits: a "
    "real model spreads a fact over many layers and tokens, and an edit can leak into "
    "related facts."
)
left, mid, right = st.columns(3)
words, gone = [w for w in VOCAB if w != answer], f"as a new object: it is already {subject}'s"
new_word = bound_select(f"new object for “{subject}”", "new_obj", words, words[0], left, gone=gone)
apply = bound_toggle("Apply the edit", "apply_edit", False, mid)
preset_button(right, "Reset", apply_edit=False)
preset_button(right, "Fewer neurons than facts: d_ff 4", mem_dff=4)
new_index = VOCAB.index(new_word)
W2_new, change = memory.rank_one_edit(W, X, f, E[new_index], E[objects[f]], E, act)
S_new, _ = memory.scores({**W, "W2": W2_new}, X, E, act)  # (F, V); change: (d_ff, d_model)
top_new = S_new.argmax(axis=1)  # (F,)
moved = [i for i in range(len(facts)) if i != f and top_new[i] != S[i].argmax()]
shares_of_edit = memory.edit_shares(W, X, f, act)  # (F,): each key's share of the edit
question = memory_lab.edit_question(moved, shares_of_edit, f, fact_labels)
if apply and predicted(question, setting=(tuple(facts), f, new_word, d_model, d_ff, act)):
    P_new = softmax(S_new)  # (F, V)
    memory_lab.say_recall(subject, f, new_index, S, S_new, P_new)
    st.caption(f"Other facts whose answer changed: {len(moved)} of {len(facts) - 1}.")
    if moved:
        table = memory_lab.changed_answers(fact_labels, moved, S, P, S_new, P_new, shares_of_edit)
        st.dataframe(table)
    show(figures.rank_one_change(change, neuron_names, labels("c", d_model)), toy.presenter)
st.page_link(
    "app_pages/Real_model.py",
    label="Neurons that fire on countries, years, animals in a real model →",
)

offer_notebook("Memory lab", toy, weights=W, E=E, X=X, objects=objects, facts=facts, act=act)
next_step("app_pages/Memory_lab.py")

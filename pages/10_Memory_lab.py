"""Memory lab: train an FFN to store facts, then find, break and rewrite them."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.memory import (
    FACT_TABLES,
    VOCAB,
    ablated_scores,
    contributions_to,
    fact_indices,
    rank_one_edit,
    scores,
    usable_facts,
    vocab_embeddings,
)
from ffn_core.softmax import softmax
from ffn_ui import figures
from ffn_ui.buttons import preset_button
from ffn_ui.charts import show
from ffn_ui.path import next_step
from ffn_ui.predict import Question, predicted
from ffn_ui.setup import setup
from ffn_ui.training_cache import MEMORY_SECONDS, trained_memory
from ffn_ui.url import bound_multiselect, bound_select, bound_slider, bound_toggle, literal

MAX_FACTS = 60  # rows the store learns: each costs every training step a little
MIN_D_MODEL = 16  # 54 word vectors need room to be told apart
MAX_D_MODEL = 128  # wider adds nothing to 54 words, and each trained store is kept in memory
CAPACITY_WIDTHS = (1, 2, 3, 4, 8, 16, 32, 64)
INTRO = (
    "“The knowledge lives in the MLPs” is a claim about keys and values. Here it can be "
    "checked on a model small enough to see whole: an FFN learns to map a subject's word "
    "vector to its object's (France → Paris), scored against every word of a 54-word "
    "vocabulary. Then you can find the neurons that carry each fact, switch them off, and "
    "rewrite a fact with a single rank-one change to W2."
)


toy = setup("Memory lab", "Memory lab: where the facts live", INTRO)
d_model = min(toy.d_model, MAX_D_MODEL) if toy.d_model >= MIN_D_MODEL else 32
if d_model != toy.d_model:
    st.info(
        f"The fact store uses d_model = {d_model} (the sidebar has {toy.d_model}): it needs "
        f"at least {MIN_D_MODEL} to tell 54 words apart, and at most {MAX_D_MODEL} is plenty."
    )
act = toy.activation

st.subheader("1. The facts, and training")
left, right = st.columns(2)
tables = list(FACT_TABLES)
table_name = bound_select("fact table", "facts", tables, tables[0], left)
d_ff = bound_slider("neurons d_ff", "mem_dff", 4, 256, 64, 4, right)
edited = st.data_editor(
    pd.DataFrame(FACT_TABLES[table_name], columns=["subject", "object"]),
    num_rows="dynamic",
    key=f"facts_{table_name}",
    width="content",
)
facts, left_out = usable_facts(list(edited.itertuples(index=False)), MAX_FACTS)
if left_out:
    st.warning(
        "Left out pairs with words outside the vocabulary: "
        + literal(", ".join(f"{s} → {o}" for s, o in left_out))
        + f". The vocabulary: {', '.join(VOCAB)}."
    )
if len(facts) == MAX_FACTS:
    st.info(f"The store learns at most {MAX_FACTS} facts; rows past that are left out.")
if not facts:
    st.error("Add at least one pair of words from the vocabulary.")
    st.stop()
result = trained_memory(tuple(facts), d_model, d_ff, act, 0)
E = vocab_embeddings(d_model)
subjects, objects = fact_indices(facts)
X = E[subjects]  # (F, d_model)
S, cache = scores(result.weights, X, E, act)  # (F, V)
P = softmax(S)
recalled = S.argmax(axis=1) == objects
left, right = st.columns(2)
left.metric("facts recalled", f"{recalled.sum()} of {len(facts)}")
right.metric(
    "training steps",
    f"{len(result.losses)}",
    help="Training stops 20 steps after every fact is recalled, or at 1,500, or when its "
    f"{MEMORY_SECONDS:g} s of server time run out.",
)
if result.out_of_time:
    st.warning(
        f"Training stopped after {len(result.losses)} steps, when its {MEMORY_SECONDS:g} s of "
        "server time ran out, with the facts not all recalled: what follows is that partial "
        "store. A table with a subject that has two objects can never be learned whole."
    )
steps = np.arange(1, len(result.losses) + 1)
show(
    figures.log_lines(
        steps,
        {"loss": result.losses, "recall": np.maximum(result.recall, 1e-3)},
        "training",
        "step",
        "loss / recall",
    ),
    toy.presenter,
)

st.subheader("2. Recall")
labels = [f"{s} → {o}" for s, o in facts]
top3 = np.argsort(-P, axis=1)[:, :3]
st.dataframe(
    pd.DataFrame(
        {
            "recalled": ["✓" if r else "✗" for r in recalled],
            "top predictions": [
                ", ".join(f"{VOCAB[w]} {P[i, w]:.0%}" for w in top3[i]) for i in range(len(facts))
            ],
        },
        index=labels,
    )
)

st.subheader("3. Where each fact lives")
fact = bound_select("fact", "fact", labels, labels[0], gone="in this fact table")
f = labels.index(fact)
shares, bias = contributions_to(result.weights, X[f], E[objects[f]], act)
order = np.argsort(-shares, kind="stable")
positive = np.clip(shares[order], 0, None)
cumulative = np.cumsum(positive) / max(positive.sum(), 1e-12)
n50, n90 = int(np.searchsorted(cumulative, 0.5) + 1), int(np.searchsorted(cumulative, 0.9) + 1)
neuron_names = [f"n{j + 1}" for j in range(d_ff)]
st.caption(
    f"The score of “{facts[f][1]}” for “{facts[f][0]}” is {S[f, objects[f]]:.3f}: the "
    f"neurons' shares h_j (W2[j] · e_object) add up to {shares.sum():.3f}, plus "
    f"b2 · e_object = {bias:.3f}. {n50} neurons carry half of the positive push, {n90} carry 90 %."
)
shown = order[:30]
show(
    figures.bars(
        [neuron_names[j] for j in shown],
        shares[shown],
        f"each neuron's share of the score of “{facts[f][1]}”",
        "share",
        colours=np.where(shares[shown] > 0, figures.FIRED, figures.SILENT),
    ),
    toy.presenter,
)
own = cache.h * (E[objects] @ result.weights["W2"].T)  # (F, d_ff): each fact's own shares
show(
    figures.matrix_heatmap(
        own,
        labels,
        neuron_names,
        "every fact × every neuron: share of the fact's own answer",
        "share",
    ),
    toy.presenter,
)

st.subheader("4. One neuron as a key and a value")
neuron = bound_select(
    "neuron", "mneuron", neuron_names, neuron_names[int(order[0])], gone=f"now that d_ff = {d_ff}"
)
j = neuron_names.index(neuron)
key_match = X @ result.weights["W1"][:, j] + result.weights["b1"][j]  # (F,)
promoted = E @ result.weights["W2"][j]  # (V,)
left, right = st.columns(2)
with left:
    best = np.argsort(-key_match)[:8]
    show(
        figures.bars(
            [facts[i][0] for i in best],
            key_match[best],
            f"{neuron}'s key: subjects it matches",
            "match",
            horizontal=True,
        ),
        toy.presenter,
    )
with right:
    best_words = np.argsort(-promoted)[:8]
    show(
        figures.bars(
            [VOCAB[w] for w in best_words],
            promoted[best_words],
            f"{neuron}'s value: words it promotes",
            "push",
            horizontal=True,
        ),
        toy.presenter,
    )
st.caption(
    "The value read against every word is the vocabulary projection of Geva et al. (2022), "
    "which LM-Debugger (Geva et al., EMNLP 2022 demos) shows for GPT-2's neurons. "
    "Neuroscope (Nanda, 2022) shows something else: the texts that make a neuron fire "
    "hardest. The Real model page shows both for a trained encoder; here every number can "
    "be checked."
)

st.subheader("5. Switch neurons off")
left, right = st.columns(2)
off_names = bound_multiselect(
    "switched off", "moff", neuron_names, left, gone=f"now that d_ff = {d_ff}"
)
top_n = bound_slider(f"plus the top n neurons for “{facts[f][0]}”", "topn", 0, 20, 0, 1, right)
off = np.unique([neuron_names.index(n) for n in off_names] + list(order[:top_n])).astype(int)
S_off = ablated_scores(result.weights, X, E, act, off)
survived = S_off.argmax(axis=1) == objects
broken = [labels[i] for i in np.flatnonzero(recalled & ~survived)]
st.metric(
    "facts still recalled",
    f"{survived.sum()} of {len(facts)}",
    delta=int(survived.sum() - recalled.sum()),
)
st.caption(f"{len(off)} neurons off. Broken: {', '.join(broken) if broken else 'none'}.")
rng = np.random.default_rng(0)
fractions = np.linspace(0, 0.9, 10)
curve = [
    np.mean(
        [
            np.mean(
                ablated_scores(
                    result.weights, X, E, act, rng.choice(d_ff, int(q * d_ff), replace=False)
                ).argmax(axis=1)
                == objects
            )
            for _ in range(5)
        ]
    )
    for q in fractions
]
widths = list(CAPACITY_WIDTHS)
capacity = bound_toggle(
    f"Also train the store at {len(widths)} widths, for its capacity curve", "capacity", False
)
left, right = st.columns(2)
with left:
    show(
        figures.curves(
            fractions,
            {"recall": np.array(curve)},
            "recall as random neurons go",
            "recall",
            "share of neurons switched off",
        ),
        toy.presenter,
    )
if capacity:
    by_width = [trained_memory(tuple(facts), d_model, w, act, 0).recall[-1] for w in widths]
    with right:
        show(
            figures.curves(
                np.array(widths, float),
                {"recall": np.array(by_width)},
                "recall after training at each width",
                "recall",
                "d_ff",
            ),
            toy.presenter,
        )

st.caption(
    "A trained store is redundant: random neurons can go long before facts break."
    + (
        " And with only a dozen facts, two or three neurons already suffice, because the "
        "readout against every word does much of the work; a single neuron can only point "
        "one way and loses some facts."
        if capacity
        else ""
    )
)

st.subheader("6. Rewrite one fact")
st.markdown(
    "Editing methods such as ROME (Rank-One Model Editing, Meng et al. 2022) treat an FFN's "
    "second matrix as a memory of key → value "
    "pairs and change it directly. The subject's hidden activation is the key; one "
    "rank-one change to W2 moves that key's output toward the new object, chosen so that "
    "keys unlike it barely move. The analogy has limits: a real model spreads a fact over "
    "many layers and tokens, and an edit can leak into related facts."
)
left, mid, right = st.columns(3)
others = [w for w in VOCAB if w != facts[f][1]]
new_word = bound_select(
    f"new object for “{facts[f][0]}”",
    "new_obj",
    others,
    others[0],
    left,
    gone=f"as a new object: it is already {facts[f][0]}'s",
)
apply = bound_toggle("Apply the edit", "apply_edit", False, mid)
preset_button(right, "Reset", apply_edit=False)
new_index = VOCAB.index(new_word)
W2_new, change = rank_one_edit(result.weights, X, f, E[new_index], E[objects[f]], E, act)
S_new, _ = scores({**result.weights, "W2": W2_new}, X, E, act)
top_new = S_new.argmax(axis=1)
moved = [i for i in range(len(facts)) if i != f and top_new[i] != S[i].argmax()]
question = Question(
    f"Predict: after the edit, will the other {len(facts) - 1} facts change their answer?",
    "guess_edit",
    ("none of them", "one or two", "more than two"),
    answer="none of them" if not moved else "one or two" if len(moved) <= 2 else "more than two",
    why=f"{len(moved)} of them change here. The change to W2 is u ⊗ d, with u chosen so that "
    "the edited fact's key gets the whole of d and keys unlike it get little; keys that "
    "resemble it move too.",
)
if apply and predicted(question, setting=(tuple(facts), f, new_word, d_model, d_ff, act)):
    P_new = softmax(S_new)
    (st.success if top_new[f] == new_index else st.warning)(
        f"“{facts[f][0]}” now recalls “{VOCAB[top_new[f]]}” "
        f"(probability {P_new[f, top_new[f]]:.0%}; it was {VOCAB[S[f].argmax()]})."
    )
    rows = {
        labels[i]: {
            "before": f"{VOCAB[S[i].argmax()]} {P[i].max():.0%}",
            "after": f"{VOCAB[top_new[i]]} {P_new[i].max():.0%}",
        }
        for i in moved
    }
    st.caption(f"Other facts whose answer changed: {len(moved)} of {len(facts) - 1}.")
    if rows:
        st.dataframe(pd.DataFrame(rows).T)
    show(
        figures.matrix_heatmap(
            change[:64],
            neuron_names[:64],
            [f"c{c + 1}" for c in range(d_model)],
            "the rank-one change to W2 (d_ff × d_model)",
            "change",
        ),
        toy.presenter,
    )
st.page_link(
    "pages/11_Real_model.py",
    label="Neurons that fire on countries, years, animals in a real model →",
)

next_step("pages/10_Memory_lab.py")

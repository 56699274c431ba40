"""The Language model page's fact rewrite: ROME's rank-one edit, cached and shown.

The keys' covariance (once per block, per process) and each rewrite (per fact, new
answer and block) are cached and shared read-only; the edit never copies W_down.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.corpus import load_corpus
from ffn_core.fact_edit import FACTS, LAYER, Rewrite, key_covariance, rewrite_fact
from ffn_core.softmax import softmax
from ffn_ui import language_model as lm
from ffn_ui.predict import Question, predicted
from ffn_ui.shared_arrays import read_only
from ffn_ui.url import bound_select, bound_slider, bound_text, literal

MAX_ANSWER = 24  # characters: a word or two; only its first token is the target
LAST_BLOCK = 24  # δ must reach the last token through later blocks' attention: 6 at least


@st.cache_resource(max_entries=2, ttl=3600, show_spinner="Reading the corpus's keys, once …")
def covariance(layer: int) -> np.ndarray:
    """(d_ff, d_ff) float64, 19 MB: the keys' covariance of block `layer` over the corpus."""
    c = key_covariance(lm.smollm(), layer, load_corpus())
    read_only([c])
    return c


@st.cache_resource(max_entries=32, ttl=3600, show_spinner="Finding the new value δ …")
def rewrite(name: str, target: int, layer: int) -> Rewrite:
    fact = FACTS[name]
    result = rewrite_fact(lm.smollm(), fact.prompt, fact.subject, target, covariance(layer), layer)
    read_only([result.edit.u, result.edit.v, result.key, result.delta])
    return result


@dataclass(frozen=True)
class Outcome:
    before: float  # p(target) after the prompt, unedited
    after: float  # and edited
    top: str  # the edited model's top token after the prompt
    paraphrases: pd.DataFrame  # prompt, answer before, answer after
    neighbours: pd.DataFrame
    continuation: str


@st.cache_data(max_entries=32, ttl=3600, show_spinner="Asking the edited model …")
def outcome(name: str, target: int, layer: int) -> Outcome:
    model, fact, edit = lm.smollm(), FACTS[name], rewrite(name, target, layer).edit

    def answer(text: str, fact_edit=None) -> str:
        return lm.token_label(int(np.argmax(model.run(text, fact=fact_edit).logits[-1])))

    def table(prompts: tuple[str, ...]) -> pd.DataFrame:
        rows = [(p, answer(p), answer(p, edit)) for p in prompts]
        return pd.DataFrame(rows, columns=["prompt", "answer before", "answer after the edit"])

    def p_target(fact_edit) -> float:
        return float(
            softmax(model.run(fact.prompt, fact=fact_edit).logits[-1].astype(float))[target]
        )

    continuation = model.generate(fact.prompt, 12, fact=edit)
    return Outcome(
        p_target(None),
        p_target(edit),
        answer(fact.prompt, edit),
        table(fact.paraphrases),
        table(fact.neighbours),
        continuation,
    )


def rewrite_section() -> None:
    """Pick a fact, a new answer and a block; predict; then see what the edit did."""
    names = list(FACTS)
    left, middle, right = st.columns(3)
    name = bound_select("fact", "lm_fact", names, names[0], left)
    fact = FACTS[name]
    new = bound_text("new answer", "lm_new_answer", fact.new, MAX_ANSWER, middle)
    layer = (
        bound_slider(
            "edit block",
            "lm_edit_block",
            1,
            LAST_BLOCK,
            LAYER + 1,
            1,
            right,
            help=f"Up to block {LAST_BLOCK}: the new value is written at the subject's token "
            "and must travel to the last token through the attention of the blocks after it.",
        )
        - 1
    )
    ids = lm.smollm().encode(new)
    if not ids.size:
        st.info("Type a new answer: a word, with the space before it, as “ Rome”.")
        return
    target = int(ids[0])
    word = lm.token_label(target)
    st.caption(
        f"The edit reads the key at “{fact.subject}” in “{fact.prompt}” and makes block "
        f"{layer + 1}'s W_down write a new value there, so that the next token is {literal(word)} "
        "(the first token of your answer; a leading space is part of a word here)."
    )
    neighbour = fact.neighbours[0]
    question = Question(
        f"After the edit, does “{neighbour}” still get the answer it had before?",
        "guess_neighbour",
        ("yes, unchanged", "no, it changes too"),
        answer=lambda: "yes, unchanged" if _kept(name, target, layer, 0) else "no, it changes too",
        why=lambda: (
            "the change adds (h · k̂) δ at every token, and this prompt's keys, its subject's "
            "and the shared words', line up with k̂ only a little, so they get little of δ."
            if _kept(name, target, layer, 0)
            else "the change adds (h · k̂) δ at every token, and this prompt's keys (its "
            "subject's, and the words it shares with the edited prompt) line up with k̂ "
            "enough to receive much of δ: a rank-one edit is not a surgical one."
        ),
    )
    if not predicted(question, setting=(name, new, layer)):
        return
    result = outcome(name, target, layer)
    st.metric(
        f"p({literal(word)}) after “{fact.prompt}”",
        f"{result.after:.2f}",
        f"{result.after - result.before:+.2f} from {result.before:.2f}",
    )
    left, right = st.columns(2)
    left.markdown("**The same fact, asked otherwise** (should follow the edit)")
    left.dataframe(result.paraphrases, hide_index=True)
    right.markdown("**Other facts of the same kind** (should not change)")
    right.dataframe(result.neighbours, hide_index=True)
    st.code(fact.prompt + result.continuation, language=None, wrap_lines=True)
    followed = int((result.paraphrases["answer after the edit"] == word).sum())
    kept = int(
        (result.neighbours["answer before"] == result.neighbours["answer after the edit"]).sum()
    )
    took = (
        f"The edit took: {literal(word)} is now the top answer"
        if result.top == word
        else f"The edit did not take: the top answer is {literal(result.top)}, not {literal(word)}"
    )
    st.caption(
        f"{took}. {followed} of {len(result.paraphrases)} paraphrases follow it and {kept} of "
        f"{len(result.neighbours)} neighbours keep their answer. That is the honest reach of "
        "one rank-one change in a 135M model: it moves what this subject's key writes, so "
        "prompts that reach the fact through other words may not follow, and keys that look "
        "like the subject's may move too."
    )


def _kept(name: str, target: int, layer: int, row: int) -> bool:
    table = outcome(name, target, layer).neighbours
    return bool(table["answer before"].iloc[row] == table["answer after the edit"].iloc[row])

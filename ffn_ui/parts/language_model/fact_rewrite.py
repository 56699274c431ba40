"""The Language model page's fact rewrite: ROME's rank-one edit, prepared and shown.

A rewrite costs 9-19 s of CPU, so the page offers each fact's few new answers at a few
blocks, every one prepared ahead (ffn_core/models/smollm/prepared_facts.py): a link reads what
the edited model says from the shipped file, and never runs the search for δ.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ffn_core.models.smollm.fact_edit import FACTS, LAYER, LAYERS
from ffn_core.models.smollm.prepared_facts import Outcome, key, load_outcomes
from ffn_ui.controls.url import bound_select
from ffn_ui.models import smollm as lm
from ffn_ui.page.predict import Question, predicted
from ffn_ui.process_wide import once_per_process
from ffn_ui.words import literal

BLOCKS = [str(layer + 1) for layer in LAYERS]  # as the page names them, from 1


@once_per_process()
def outcomes() -> dict[str, Outcome]:
    """Every prepared rewrite's outcome, read once per process (a few kB)."""
    return load_outcomes()


def tables(result: Outcome) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paraphrases and the neighbours, each token shown as the page shows tokens."""
    show = lm.visible
    paraphrases = pd.DataFrame(
        [(p, show(b), show(a)) for p, b, a in result.paraphrases],
        columns=["prompt", "answer before", "answer after the edit"],
    )
    neighbours = pd.DataFrame(
        [
            (n.prompt, show(n.before), show(n.after), round(n.share, 2), show(n.at))
            for n in result.neighbours
        ],
        columns=["prompt", "answer before", "answer after the edit", "largest h·k̂", "at token"],
    )
    return paraphrases, neighbours


def rewrite_section() -> None:
    """Pick a fact, a new answer and a block; predict; then see what the edit did."""
    name, new, block = rewrite_controls()
    fact, layer = FACTS[name], int(block) - 1
    result = outcomes()[key(name, new, layer)]
    word = lm.visible(new)
    st.caption(
        f"The edit reads the key at the last token of “{fact.subject}” in “{fact.prompt}” and "
        f"makes block {layer + 1} of 30 add a change δ to what its FFN writes there, so that "
        f"the next token is {literal(word)} (a leading space is part of a word here). Every "
        "other token's FFN output gets (h · k̂) δ added: its key h decides how much."
    )
    if predicted(neighbour_question(result, new), setting=(name, new, block)):
        rewrite_result(fact.prompt, result, new)


def rewrite_controls() -> tuple[str, str, str]:
    """The fact, its new answer and the block to edit (as the page names it, from 1)."""
    names = list(FACTS)
    left, middle, right = st.columns(3)
    name = bound_select("fact", "lm_fact", names, names[0], left)
    fact = FACTS[name]
    new = bound_select("new answer", "lm_new_answer", list(fact.answers), fact.new, middle)
    block = bound_select(
        "edit block",
        "lm_edit_block",
        BLOCKS,
        str(LAYER + 1),
        right,
        help="The blocks whose rewrites are prepared. The new value is written at the "
        "subject's token and must travel to the last token through the attention of the "
        "blocks after it.",
    )
    return name, new, block


def neighbour_question(result: Outcome, new: str) -> Question:
    """Does a neighbouring fact keep its answer? Asked of the first neighbour whose answer
    is not already the new one: for it the question is real."""
    neighbour = next((n for n in result.neighbours if n.before != new), result.neighbours[0])
    kept = neighbour.before == neighbour.after
    share = f"{neighbour.share:.2f}"
    return Question(
        f"After the edit, does “{neighbour.prompt}” still get the answer it had before?",
        "guess_neighbour",
        ("yes, unchanged", "no, it changes too"),
        answer=lambda: "yes, unchanged" if kept else "no, it changes too",
        why=lambda: (
            f"the change adds (h · k̂) δ at every token; at the token "
            f"{literal(lm.visible(neighbour.at))} of this prompt h · k̂ is {share} (about 1 at "
            "the edited subject's key). "
            + (
                f"Its answer {literal(lm.visible(neighbour.before))} stays."
                if kept
                else f"Its answer moves to {literal(lm.visible(neighbour.after))}: a rank-one "
                "edit is not a surgical one."
            )
            + " Whether an answer moves depends on that number, on how sure the model was, "
            "and on whether the later blocks carry the push to the last token."
        ),
    )


def rewrite_result(prompt: str, result: Outcome, new: str) -> None:
    """What the edit did: the new answer's probability, the paraphrases, the neighbours."""
    word = lm.visible(new)
    st.metric(
        f"p({literal(word)}) after “{prompt}”",
        f"{result.after:.2f}",
        f"{result.after - result.before:+.2f} from {result.before:.2f}",
    )
    paraphrases, neighbours = tables(result)
    # One above the other, each the page's width: side by side, their last columns (what
    # the edit did) were cut off at 1280 pixels.
    st.markdown("**The same fact, asked otherwise** (should follow the edit)")
    st.dataframe(paraphrases, hide_index=True)
    st.markdown("**Other facts of the same kind** (should not change)")
    st.dataframe(neighbours, hide_index=True)
    st.code(prompt + result.continuation, language=None, wrap_lines=True)
    followed = int((paraphrases["answer after the edit"] == word).sum())
    others = [n for n in result.neighbours if n.before != new]  # not already the new answer
    kept_count = sum(n.before == n.after for n in others)
    already = len(result.neighbours) - len(others)
    moved = [n for n in others if n.before != n.after]
    took = (
        f"The edit took: {literal(word)} is now the top answer"
        if lm.visible(result.top) == word
        else f"The edit did not take: the top answer is {literal(lm.visible(result.top))}, "
        f"not {literal(word)}"
    )
    reach = (
        "Moved: "
        + ", ".join(f"to {literal(lm.visible(n.after))} (h·k̂ {n.share:.2f})" for n in moved)
        if moved
        else "No neighbour moved"
    )
    also = f" ({already} already answered {literal(word)})" if already else ""
    widest = max(n.share for n in result.neighbours)
    st.caption(
        f"{took}. {followed} of {len(paraphrases)} paraphrases follow it, and {kept_count} of "
        f"{len(others)} neighbours keep their answer{also}. {reach}. The column “largest "
        "h·k̂” is the largest h · k̂ over each prompt's tokens (about 1 at the edited subject's "
        "key): how much of δ that prompt receives. That is the honest reach of one rank-one "
        f"change in a 135M model: paraphrases may not follow, and a neighbour's key lines up "
        f"with k̂ up to {widest:.2f} here, against the subject's 1."
    )

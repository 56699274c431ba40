"""The Memory lab's Streamlit pieces that are not its story: the store's width, the fact
editor, the training summary, how redundant the store is, and the tables of answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.lessons import memory
from ffn_core.lessons.memory import FACT_TABLES, VOCAB, MemoryResult, usable_facts
from ffn_ui import figures
from ffn_ui.controls.url import bound_toggle
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question
from ffn_ui.page.training_cache import MEMORY_SECONDS, trained_memory
from ffn_ui.words import literal

MAX_FACTS = 60  # rows the store learns: each costs every training step a little
MIN_D_MODEL = 16  # 54 word vectors need room to be told apart
MAX_D_MODEL = 128  # wider adds nothing to 54 words, and each trained store is kept in memory
CAPACITY_WIDTHS = (1, 2, 3, 4, 8, 16, 32, 64)  # the stores trained for the capacity curve


def store_activation(toy) -> str:
    """The store's bend: the sidebar's activation; for SwiGLU, SiLU, with a note. The store
    is a plain two-matrix FFN, kept simple for this page."""
    if not toy.gated:
        return toy.activation
    st.info(
        "The fact store is a plain two-matrix FFN, W1 then W2, kept simple for this page; "
        "with SwiGLU chosen it bends with SiLU, the function SwiGLU's gate goes through. A "
        "rank-one rewrite works the same way on SwiGLU's W_down, as the Language model "
        "page's does on SmolLM2."
    )
    return "silu"


def store_d_model(sidebar: int) -> int:
    """The fact store's d_model: the sidebar's within [MIN_D_MODEL, MAX_D_MODEL], or 32 when
    the sidebar's is below; a note says so when it differs."""
    d_model = min(sidebar, MAX_D_MODEL) if sidebar >= MIN_D_MODEL else 32
    if d_model != sidebar:
        st.info(
            f"The fact store uses d_model = {d_model} (the sidebar has {sidebar}): it uses "
            f"at least {MIN_D_MODEL} dimensions, so that the 54 words' random vectors overlap "
            f"little (two random directions in {MIN_D_MODEL} dimensions have a cosine of about "
            f"±{1 / MIN_D_MODEL**0.5:.2f}), and at most {MAX_D_MODEL}."
        )
    return d_model


def edited_facts(table_name: str, place=st) -> list[tuple[str, str]]:
    """The table in an editor (in `place`), and the pairs the store can learn, with a note
    on any left out. With none to learn, the page stops here and says so."""
    edited = place.data_editor(
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
    return facts


def training_summary(result: MemoryResult, recalled: np.ndarray) -> None:
    """Facts recalled (recalled: (F,) bool) and steps run, one above the other (they sit
    in the figure's narrow column), and a warning if time ran out."""
    st.metric("facts recalled", f"{recalled.sum()} of {len(recalled)}")
    st.metric(
        "training steps",
        f"{len(result.losses)}",
        help="Training stops 20 steps after every fact is recalled, or at 1,500, or when its "
        f"{MEMORY_SECONDS:g} s of server time run out.",
    )
    if result.out_of_time:
        st.warning(
            f"Training stopped after {len(result.losses)} steps, when its {MEMORY_SECONDS:g} s "
            "of server time ran out, with the facts not all recalled: what follows is that "
            "partial store. A table with a subject that has two objects can never be learned "
            "whole."
        )


def recall_table(fact_labels: list[str], P: np.ndarray, recalled: np.ndarray) -> pd.DataFrame:
    """One row a fact: recalled or not, and its three likeliest words. P: (F, V)."""
    top3 = np.argsort(-P, axis=1)[:, :3]  # (F, 3)
    return pd.DataFrame(
        {
            "recalled": ["✓" if r else "✗" for r in recalled],
            "top predictions": [
                ", ".join(f"{VOCAB[w]} {P[i, w]:.0%}" for w in top3[i]) for i in range(len(P))
            ],
        },
        index=fact_labels,
    )


def redundancy(W: dict, vectors: tuple, facts: list, d_model: int, act: str, presenter: bool):
    """Recall as random neurons go, and, on request, recall after training at each width.
    vectors: E (V, d_model), X (F, d_model) and the objects (F,)."""
    E, X, objects = vectors
    fractions = np.linspace(0, 0.9, 10)
    curve = memory.recall_under_ablation(W, X, E, objects, act, fractions)  # (10,)
    label = f"Also train the store at {len(CAPACITY_WIDTHS)} widths, for its capacity curve"
    capacity = bound_toggle(label, "capacity", False)
    left, right = st.columns(2)
    with left:
        title, xtitle = "recall as random neurons go", "share of neurons switched off"
        show(figures.curves(fractions, {"recall": curve}, title, xtitle, "recall"), presenter)
    if capacity:
        widths = CAPACITY_WIDTHS
        by_width = memory.recall_by_width(facts, d_model, widths, act, train=trained_memory)
        with right:
            x, title = np.array(widths, float), "recall after training at each width"
            show(figures.curves(x, {"recall": by_width}, title, "d_ff", "recall"), presenter)
    few = (
        " And with only a dozen facts, two or three neurons already suffice, because the "
        "readout against every word does much of the work; a single neuron can only point "
        "one way and loses some facts."
    )
    redundant = "A trained store is redundant: random neurons can go long before facts break."
    st.caption(redundant + (few if capacity else ""))


ORTHOGONAL = 0.005  # other keys' largest share of an edit below which none of them gets any


def edit_why(moved: int, shares: np.ndarray, row: int, fact_labels: list[str]) -> str:
    """Why `moved` other facts changed their answer after the rank-one edit of fact `row`,
    from each stored key's share k·u of the edit's d (memory.edit_shares, (F,))."""
    others = np.delete(np.abs(shares), row)
    d_ff_text = f"{len(fact_labels)} facts"
    start = (
        f"{moved} of them change here. The change to W2 is u ⊗ d: the edited fact's key "
        "gets the whole of d, and every other stored key k gets the share k·u of it"
    )
    if others.max() < ORTHOGONAL:
        return (
            f"{start}, here at most {others.max():.3f}. With at least as many neurons as the "
            f"{d_ff_text}, and keys that are linearly independent, u can be orthogonal to every "
            "other stored key, so none of them moves: by construction, however alike the facts. "
            "With fewer neurons than facts (d_ff 4) it cannot, and the edit leaks."
        )
    top = int(np.argmax(np.where(np.arange(len(shares)) == row, -np.inf, np.abs(shares))))
    return (
        f"{start}, here up to {abs(shares[top]):.2f} ({fact_labels[top]}: {shares[top]:+.2f}). "
        f"With too few neurons for {d_ff_text}, u cannot be orthogonal to every other key, so "
        "the keys that resemble the edited one move too, and an answer flips where its lead "
        "was small."
    )


def edit_question(moved: list[int], shares: np.ndarray, row: int, fact_labels: list[str]):
    """The rewrite's question: will the other facts change their answer after the edit?"""
    answer = "none of them" if not moved else "one or two" if len(moved) <= 2 else "more than two"
    return Question(
        f"Predict: after the edit, will the other {len(fact_labels) - 1} facts change their "
        "answer?",
        "guess_edit",
        ("none of them", "one or two", "more than two"),
        answer=answer,
        why=edit_why(len(moved), shares, row, fact_labels),
    )


def say_recall(subject: str, row: int, new: int, S, S_new, P_new) -> None:
    """What the edited fact recalls now, and what it recalled: S, S_new, P_new (F, V)."""
    top = int(S_new[row].argmax())
    (st.success if top == new else st.warning)(
        f"“{subject}” now recalls “{VOCAB[top]}” "
        f"(probability {P_new[row, top]:.0%}; it was {VOCAB[S[row].argmax()]})."
    )


def changed_answers(
    fact_labels: list[str],
    moved: list[int],
    S: np.ndarray,
    P: np.ndarray,
    S_new: np.ndarray,
    P_new: np.ndarray,
    shares: np.ndarray,
) -> pd.DataFrame:
    """The facts in `moved`, with their answer before and after an edit and their share of
    it. S, P, S_new, P_new: (F, V) scores and probabilities; shares (F,)."""
    rows = {
        fact_labels[i]: {
            "before": f"{VOCAB[S[i].argmax()]} {P[i].max():.0%}",
            "after": f"{VOCAB[S_new[i].argmax()]} {P_new[i].max():.0%}",
            "share k·u of d": f"{shares[i]:+.2f}",
        }
        for i in moved
    }
    return pd.DataFrame(rows).T

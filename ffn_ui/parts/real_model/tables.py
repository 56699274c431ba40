"""The Real model page's tables and summaries: plain NumPy and pandas, no Streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd


def in_context(tokens: list[str], position: int) -> str:
    """The sentence rebuilt from its WordPiece tokens, the one at `position` in brackets."""
    words = []
    for i, token in enumerate(tokens[1:-1], start=1):
        piece = f"[{token.removeprefix('##')}]" if i == position else token.removeprefix("##")
        joins = token.startswith("##") or token in ATTACHED
        if joins and words:
            words[-1] += piece
        else:
            words.append(piece)
    return " ".join(words)


ATTACHED = frozenset(".,!?;:)'")  # written against the word before them


def sparsity_shares(acts: np.ndarray, toy_h: np.ndarray, threshold: float) -> dict[str, list]:
    """Per layer, then for the toy ReLU model: the share of activations in each state.

    acts (L, T, d_ff) from the real model; toy_h (T', d_ff') from the sidebar's model.
    """
    groups = [*acts.reshape(len(acts), -1), np.ravel(toy_h)]
    return {
        f"fires (h > {threshold:g})": [float(np.mean(g > threshold)) for g in groups],
        "slightly negative (h < 0)": [float(np.mean(g < 0)) for g in groups],
        "exactly 0": [float(np.mean(g == 0)) for g in groups],
    }


def corpus_table(examples: list[tuple[str, list[str], int, float]]) -> pd.DataFrame:
    """Where a neuron fires hardest: the token, its activation, and its sentence."""
    return pd.DataFrame(
        {
            "token": [f"“{tokens[p]}”" for _, tokens, p, _ in examples],  # "nan" is a word
            "h": [v for *_, v in examples],
            "in context": [in_context(tokens, p) for _, tokens, p, _ in examples],
        }
    )


def value_sum_table(parts: np.ndarray, b2: np.ndarray, h: np.ndarray, neurons: list[str]):
    """The biggest terms of out = sum_j h_j W2[j] + b2, the rest lumped, and the total.

    parts (d_ff, d_model): what each neuron wrote at one token; h (d_ff,) its activations.
    """
    size = np.linalg.norm(parts, axis=1)  # (d_ff,)
    biggest = np.argsort(-size, kind="stable")[:5]
    rest = parts[np.setdiff1d(np.arange(len(parts)), biggest)].sum(axis=0)  # (d_model,)
    total = parts.sum(axis=0) + b2  # (d_model,)
    rows = [(f"{neurons[j]}: h = {h[j]:.3f}", parts[j]) for j in biggest]
    rows += [(f"the other {len(parts) - len(biggest)} neurons", rest), ("b2", b2)]
    rows += [("sum = FFN output", total)]
    table = pd.DataFrame(
        {
            "term": [name for name, _ in rows],
            "length": [float(np.linalg.norm(v)) for _, v in rows],
            "first 3 coordinates": [", ".join(f"{c:.3f}" for c in v[:3]) for _, v in rows],
        }
    )
    return table, total

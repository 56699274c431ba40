"""A fact store small enough to see whole: an FFN that maps a subject's word vector to its
object's, read out against every word of a toy vocabulary.

    scores = FFN(e_subject) @ E.T        (V,)   E: (V, d_model), the unit word vectors
    p      = softmax(scores)                    trained with cross-entropy to the object

Each hidden neuron j adds h_j * (W2[j] · e_w) to word w's score, so a fact's score splits
exactly into per-neuron contributions plus b2 · e_w.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ffn_core.ffn import ffn_backward, ffn_forward
from ffn_core.init import init_weights
from ffn_core.lessons.training import Adam
from ffn_core.softmax import softmax
from ffn_core.tokens import word_vector

FACT_TABLES: dict[str, list[tuple[str, str]]] = {
    "countries → capitals": [
        ("france", "paris"),
        ("germany", "berlin"),
        ("italy", "rome"),
        ("spain", "madrid"),
        ("japan", "tokyo"),
        ("egypt", "cairo"),
        ("kenya", "nairobi"),
        ("peru", "lima"),
        ("canada", "ottawa"),
        ("india", "delhi"),
        ("china", "beijing"),
        ("russia", "moscow"),
    ],
    "words → opposites": [
        ("hot", "cold"),
        ("up", "down"),
        ("big", "small"),
        ("fast", "slow"),
        ("light", "dark"),
        ("open", "closed"),
        ("happy", "sad"),
        ("early", "late"),
        ("wet", "dry"),
        ("full", "empty"),
    ],
    "numbers → successors": [
        ("one", "two"),
        ("two", "three"),
        ("three", "four"),
        ("four", "five"),
        ("five", "six"),
        ("six", "seven"),
        ("seven", "eight"),
        ("eight", "nine"),
        ("nine", "ten"),
    ],
}
VOCAB: list[str] = sorted({w for table in FACT_TABLES.values() for pair in table for w in pair})


def vocab_embeddings(d_model: int) -> np.ndarray:
    """E: (V, d_model), each word's fixed toy vector scaled to length 1."""
    E = np.array([word_vector(w, d_model) for w in VOCAB])
    return E / np.linalg.norm(E, axis=1, keepdims=True)


def fact_indices(facts: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Vocabulary indices of the subjects and objects; unknown words raise ValueError."""
    unknown = sorted({w for pair in facts for w in pair} - set(VOCAB))
    if unknown:
        raise ValueError(f"not in the vocabulary: {', '.join(unknown)}")
    index = {w: i for i, w in enumerate(VOCAB)}
    return np.array([index[s] for s, _ in facts]), np.array([index[o] for _, o in facts])


def fact_vectors(
    facts: Sequence[tuple[str, str]], d_model: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E, X, objects): every word's vector E (V, d_model), the subjects' vectors
    X = E[subjects] (F, d_model), and the objects' vocabulary indices (F,)."""
    E = vocab_embeddings(d_model)  # (V, d_model)
    subjects, objects = fact_indices(facts)  # (F,), (F,)
    return E, E[subjects], objects  # E[subjects]: (F, d_model)


def scores(weights: dict[str, np.ndarray], X: np.ndarray, E: np.ndarray, activation: str):
    """(scores (F, V), cache): every subject's output read out against every word."""
    out, cache = ffn_forward(X, **weights, activation=activation)  # (F, d_model)
    return out @ E.T, cache


@dataclass(frozen=True)
class MemoryResult:
    weights: dict[str, np.ndarray]
    losses: np.ndarray  # (steps run,)
    recall: np.ndarray  # (steps run,): share of facts whose object ranks first
    out_of_time: bool = False  # stopped by max_seconds before it was done


def usable_facts(
    pairs: list[tuple[object, object]], most: int = 60
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(facts, left out): the first `most` distinct (subject, object) pairs whose words are
    in VOCAB, lower-cased and trimmed; and the filled-in pairs that are not."""
    cleaned = [(str(s).strip().lower(), str(o).strip().lower()) for s, o in pairs if s and o]
    known = [(s, o) for s, o in cleaned if s in VOCAB and o in VOCAB]
    return list(dict.fromkeys(known))[:most], [p for p in cleaned if p not in known]


def train_memory(
    facts: Sequence[tuple[str, str]],
    d_model: int,
    d_ff: int,
    activation: str = "relu",
    seed: int = 0,
    max_steps: int = 1500,
    lr: float = 0.02,
    progress: Callable[[int], None] | None = None,
    max_seconds: float | None = None,
) -> MemoryResult:
    """Adam on softmax cross-entropy until every fact is recalled (and 20 steps more, for a
    margin), max_steps pass, or max_seconds of CPU time do. Deterministic for a seed when
    the time is not what stopped it (then `out_of_time` is True)."""
    E, X, objects = fact_vectors(facts, d_model)  # (V, d_model), (F, d_model), (F,)
    weights = {k: v.copy() for k, v in init_weights(d_model, d_ff, "normal", seed).items()}
    optimiser = Adam(weights, lr)
    losses, recall, done_at = [], [], None
    deadline = time.process_time() + (max_seconds if max_seconds is not None else np.inf)
    out_of_time = False
    for step in range(max_steps):
        if step and done_at is None and time.process_time() > deadline:
            out_of_time = True
            break
        s, cache = scores(weights, X, E, activation)
        p = softmax(s)  # (F, V)
        losses.append(float(-np.mean(np.log(p[np.arange(len(facts)), objects] + 1e-300))))
        recall.append(float(np.mean(s.argmax(axis=1) == objects)))
        if recall[-1] == 1.0 and done_at is None:
            done_at = step
        if done_at is not None and step >= done_at + 20:
            break
        dscores = p
        dscores[np.arange(len(facts)), objects] -= 1
        dout = dscores @ E / len(facts)  # (F, d_model), as scores = out @ E.T
        _, *grads = ffn_backward(dout, cache)
        optimiser.step(dict(zip(weights, grads, strict=True)))
        if progress is not None and step % 100 == 0:
            progress(step)
    return MemoryResult(weights, np.array(losses), np.array(recall), out_of_time)


def contributions_to(
    weights: dict[str, np.ndarray], x: np.ndarray, word: np.ndarray, activation: str
) -> tuple[np.ndarray, float]:
    """Each neuron's share of one word's score for one subject: h_j (W2[j] · e_w), and b2 · e_w.

    x, word: (d_model,). The shares plus the bias term equal the score exactly.
    """
    _, cache = ffn_forward(x, **weights, activation=activation)
    return cache.h[0] * (weights["W2"] @ word), float(weights["b2"] @ word)


def ablated_scores(weights, X, E, activation: str, off: np.ndarray) -> np.ndarray:
    """Scores (F, V) with the neurons in `off` silenced (their activation set to 0)."""
    _, cache = ffn_forward(X, **weights, activation=activation)
    h = cache.h.copy()
    h[:, off] = 0.0
    return (h @ weights["W2"] + weights["b2"]) @ E.T


def neurons_carrying(shares: np.ndarray, part: float) -> int:
    """How many neurons, largest share first, carry `part` of a fact's positive push.

    shares: (d_ff,), one fact's per-neuron shares (contributions_to). With the positive
    shares sorted largest first, s_(1) >= s_(2) >= ..., the answer is the smallest n with
    s_(1) + ... + s_(n) >= part * (s_(1) + s_(2) + ...); d_ff + 1 when no share is positive.
    """
    positive = np.clip(shares[np.argsort(-shares, kind="stable")], 0, None)  # (d_ff,)
    cumulative = np.cumsum(positive) / max(positive.sum(), 1e-12)  # (d_ff,), rising to 1
    return int(np.searchsorted(cumulative, part) + 1)


def answer_shares(
    weights: dict[str, np.ndarray], X: np.ndarray, answers: np.ndarray, activation: str
) -> np.ndarray:
    """Every fact's per-neuron shares of its own answer's score: h_fj (W2[j] · a_f).

    X: (F, d_model), the subjects; answers: (F, d_model), the word vector a_f whose score
    row f splits. Returns (F, d_ff); row f is contributions_to(weights, X[f], answers[f]).
    """
    _, cache = ffn_forward(X, **weights, activation=activation)  # cache.h: (F, d_ff)
    return cache.h * (answers @ weights["W2"].T)  # (F, d_ff)


def key_and_value(
    weights: dict[str, np.ndarray], X: np.ndarray, E: np.ndarray, j: int
) -> tuple[np.ndarray, np.ndarray]:
    """Neuron j as a key and as a value.

    key match: X @ W1[:, j] + b1[j], (F,): how well each subject matches the key (h_pre_j).
    value push: E @ W2[j], (V,): how far the value moves each word's score per unit of h_j.
    X: (F, d_model), E: (V, d_model).
    """
    key_match = X @ weights["W1"][:, j] + weights["b1"][j]  # (F,)
    return key_match, E @ weights["W2"][j]  # (V,)


def recall_under_ablation(
    weights: dict[str, np.ndarray],
    X: np.ndarray,
    E: np.ndarray,
    objects: np.ndarray,
    activation: str,
    fractions: np.ndarray,
    repeats: int = 5,
    seed: int = 0,
) -> np.ndarray:
    """Recall as random neurons go, by Monte Carlo.

    For each fraction q: the mean, over `repeats` draws, of the share of facts whose object
    still ranks first when floor(q d_ff) neurons, drawn without replacement, are silenced.
    X: (F, d_model), E: (V, d_model), objects: (F,), fractions: (Q,). Returns (Q,).
    The draws come from one generator seeded by `seed`, fraction by fraction.
    """
    rng = np.random.default_rng(seed)
    d_ff = weights["W1"].shape[1]
    curve = []
    for q in fractions:
        recalls = []
        for _ in range(repeats):
            off = rng.choice(d_ff, int(q * d_ff), replace=False)  # (floor(q d_ff),)
            S_off = ablated_scores(weights, X, E, activation, off)  # (F, V)
            recalls.append(np.mean(S_off.argmax(axis=1) == objects))
        curve.append(np.mean(recalls))
    return np.array(curve)  # (Q,)


def recall_by_width(
    facts: Sequence[tuple[str, str]],
    d_model: int,
    widths: Sequence[int],
    activation: str,
    seed: int = 0,
    train: Callable[..., MemoryResult] = train_memory,
) -> np.ndarray:
    """The share of facts recalled at the end of training, for a store of each width.

    Trains one store per d_ff in widths, (W,), and returns its last recall, (W,). `train`
    is train_memory or a cache of it (it gets the facts as a tuple, so they can be hashed).
    """
    return np.array([train(tuple(facts), d_model, w, activation, seed).recall[-1] for w in widths])


def rank_one_edit(
    weights: dict[str, np.ndarray],
    X: np.ndarray,
    row: int,
    new_word: np.ndarray,
    old_word: np.ndarray,
    E: np.ndarray,
    activation: str,
    ridge: float = 1e-3,
) -> tuple[np.ndarray, np.ndarray]:
    """Rewrite one fact by a rank-one change to W2, in closed form (the idea behind ROME).

    The subject's hidden activation k = h(X[row]) is the key. The change moves its output by
    d = c (e_new - e_old), with c just large enough that the new word wins. W2 gains
    u ⊗ d with u = C^-1 k / (k · C^-1 k), where C = sum of every fact's key outer product
    (plus a small ridge): the edited key gets exactly d, and keys unlike it get little.
    Returns (new W2, the change u ⊗ d), both (d_ff, d_model).
    """
    _, cache = ffn_forward(X, **weights, activation=activation)
    K = cache.h  # (F, d_ff): every fact's key
    k = K[row]
    out = k @ weights["W2"] + weights["b2"]  # (d_model,): the subject's output now
    direction = new_word - old_word  # (d_model,)
    s, gain = E @ out, E @ direction  # (V,): scores, and how each moves per unit of c
    s_new, g_new = float(new_word @ out), float(new_word @ direction)
    # The new word must beat every word w: s_new + c g_new > s_w + c gain_w.
    needed = [(s[w] - s_new) / (g_new - gain[w]) for w in range(len(s)) if g_new - gain[w] > 1e-9]
    c = 1.0 + 1.5 * max([0.0, *needed])
    u = edit_direction(K, row, ridge)
    change = np.outer(u, c * direction)  # (d_ff, d_model)
    return weights["W2"] + change, change


def edit_direction(K: np.ndarray, row: int, ridge: float = 1e-3) -> np.ndarray:
    """u = C^-1 k / (k · C^-1 k) for the keys K (F, d_ff) and k = K[row], with C = K^T K plus
    a small ridge: (d_ff,). K @ u is each stored key's share of the edit's d (the edited
    one's is exactly 1)."""
    k = K[row]
    C = K.T @ K + ridge * np.eye(K.shape[1])  # (d_ff, d_ff)
    u = np.linalg.solve(C, k)
    return u / (k @ u)


def edit_shares(
    weights: dict[str, np.ndarray], X: np.ndarray, row: int, activation: str, ridge: float = 1e-3
) -> np.ndarray:
    """How much of a rank-one edit of fact `row` (rank_one_edit) each stored fact's output
    receives: k_i · u, shape (F,), 1 for the edited fact. With at least as many neurons as
    facts, and independent keys, u can be orthogonal to every other key: they get about 0."""
    _, cache = ffn_forward(X, **weights, activation=activation)
    return cache.h @ edit_direction(cache.h, row, ridge)

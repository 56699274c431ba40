"""The fact store: training, shares, ablation and the rank-one edit, each against an
independent computation."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import MEMORY_D_FF as D_FF
from helpers import MEMORY_D_MODEL as D_MODEL
from helpers import setup_table

from ffn_core.lessons.memory import (
    FACT_TABLES,
    VOCAB,
    MemoryResult,
    ablated_scores,
    answer_shares,
    contributions_to,
    edit_shares,
    fact_indices,
    fact_vectors,
    key_and_value,
    neurons_carrying,
    rank_one_edit,
    recall_by_width,
    recall_under_ablation,
    scores,
    train_memory,
    vocab_embeddings,
)
from ffn_core.tokens import word_vector


def test_vocabulary_is_small_and_covers_every_table():
    assert 20 <= len(VOCAB) <= 60 and len(set(VOCAB)) == len(VOCAB)
    for facts in FACT_TABLES.values():  # every word of every table has its own vector
        subjects, objects = fact_indices(facts)
        assert [VOCAB[i] for i in subjects] == [s for s, _ in facts]
        assert [VOCAB[i] for i in objects] == [o for _, o in facts]
    np.testing.assert_allclose(np.linalg.norm(vocab_embeddings(8), axis=1), 1.0)
    with pytest.raises(ValueError, match="not in the vocabulary: england, london"):
        fact_indices([("england", "london")])


@pytest.mark.parametrize("name", list(FACT_TABLES))
def test_training_recalls_every_fact_and_is_deterministic(name):
    facts, result, E, X, objects = setup_table(name)
    S, _ = scores(result.weights, X, E, "relu")
    assert np.all(S.argmax(axis=1) == objects)
    assert result.recall[-1] == 1.0
    again = train_memory(facts, D_MODEL, D_FF, "relu", seed=0)
    np.testing.assert_array_equal(again.weights["W2"], result.weights["W2"])


def test_shares_plus_bias_equal_the_score():
    facts, result, E, X, objects = setup_table("countries → capitals", activation="gelu")
    S, _ = scores(result.weights, X, E, "gelu")
    for f in range(len(facts)):
        shares, bias = contributions_to(result.weights, X[f], E[objects[f]], "gelu")
        assert shares.sum() + bias == pytest.approx(S[f, objects[f]], abs=1e-10)


def test_ablating_a_neuron_moves_each_score_by_exactly_its_share():
    facts, result, E, X, objects = setup_table("words → opposites")
    S, _ = scores(result.weights, X, E, "relu")
    for j in (0, 7, 33):
        S_off = ablated_scores(result.weights, X, E, "relu", np.array([j]))
        for f in range(len(facts)):
            shares, _ = contributions_to(result.weights, X[f], E[objects[f]], "relu")
            assert S[f, objects[f]] - S_off[f, objects[f]] == pytest.approx(shares[j], abs=1e-10)


@pytest.mark.parametrize("name", list(FACT_TABLES))
def test_a_rank_one_edit_rewrites_one_fact_and_leaves_the_rest(name):
    facts, result, E, X, objects = setup_table(name)
    S, _ = scores(result.weights, X, E, "relu")
    changed = []
    for f in range(len(facts)):
        new = objects[(f + 1) % len(facts)]
        W2, change = rank_one_edit(result.weights, X, f, E[new], E[objects[f]], E, "relu")
        assert np.linalg.matrix_rank(change) == 1
        S_new, _ = scores({**result.weights, "W2": W2}, X, E, "relu")
        assert S_new[f].argmax() == new
        others = np.delete(np.arange(len(facts)), f)
        changed.append(int(np.sum(S_new[others].argmax(axis=1) != S[others].argmax(axis=1))))
    assert max(changed) <= 1, changed  # reported: at most one other fact moves


@pytest.mark.parametrize("d_ff", [4, 64])
def test_each_facts_share_of_an_edit_is_how_far_its_output_moves_along_d(d_ff):
    """Measured by running the edited store: fact i's output moves by share_i · d, d the
    edited fact's own move. With 64 neurons for 12 facts the others get nothing; with 4,
    some get a large part."""
    facts = FACT_TABLES["countries → capitals"]
    result = train_memory(list(facts), D_MODEL, d_ff, "relu", 0)
    E, X, objects = fact_vectors(facts, D_MODEL)
    W = result.weights
    W2, _ = rank_one_edit(W, X, 0, E[objects[1]], E[objects[0]], E, "relu")
    before = relu_outputs(W, X)
    after = relu_outputs({**W, "W2": W2}, X)
    d = after[0] - before[0]  # (d_model,)
    moved = (after - before) @ d / (d @ d)  # (F,)
    np.testing.assert_allclose(after - before, np.outer(moved, d), atol=1e-9)  # rank one
    shares = edit_shares(W, X, 0, "relu")
    np.testing.assert_allclose(shares, moved, atol=1e-9)
    assert shares[0] == pytest.approx(1.0)
    if d_ff == 64:
        assert np.abs(shares[1:]).max() < 0.005
    else:
        assert np.abs(shares[1:]).max() > 0.1


def relu_outputs(weights, X):
    """Every fact's output, with ReLU written out: max(0, X W1 + b1) W2 + b2."""
    return np.maximum(0.0, X @ weights["W1"] + weights["b1"]) @ weights["W2"] + weights["b2"]


def random_weights(d_model, d_ff, seed=0):
    """Weights with nonzero biases, so a test that forgets b1 or b2 fails."""
    rng = np.random.default_rng(seed)
    shapes = {"W1": (d_model, d_ff), "b1": (d_ff,), "W2": (d_ff, d_model), "b2": (d_model,)}
    return {name: rng.standard_normal(shape) for name, shape in shapes.items()}


def relu_hidden(weights, x):
    """h for one input (d_model,), one neuron at a time: max(0, sum_k x_k W1[k, j] + b1[j])."""
    d_model, d_ff = weights["W1"].shape
    return np.array(
        [
            max(0.0, sum(x[k] * weights["W1"][k, j] for k in range(d_model)) + weights["b1"][j])
            for j in range(d_ff)
        ]
    )


def test_fact_vectors_are_the_unit_word_vectors_of_each_subject():
    facts = FACT_TABLES["words → opposites"]
    E, X, objects = fact_vectors(facts, 12)
    assert E.shape == (len(VOCAB), 12) and X.shape == (len(facts), 12)
    for f, (subject, obj) in enumerate(facts):
        v = word_vector(subject, 12)
        np.testing.assert_allclose(X[f], v / np.sqrt(sum(c * c for c in v)))
        assert VOCAB[objects[f]] == obj


@pytest.mark.parametrize("seed", range(5))
def test_neurons_carrying_counts_the_largest_positive_shares(seed):
    shares = np.random.default_rng(seed).standard_normal(37)  # (d_ff,), some negative
    positive = sorted((s for s in shares if s > 0), reverse=True)
    for part in (0.25, 0.5, 0.9):
        running, n = 0.0, 0
        while running < part * sum(positive):
            running, n = running + positive[n], n + 1
        assert neurons_carrying(shares, part) == n
    assert neurons_carrying(-np.abs(shares), 0.5) == 38  # none positive: one past every neuron


def test_answer_shares_split_each_facts_own_score_neuron_by_neuron():
    weights, rng = random_weights(16, 24), np.random.default_rng(1)
    X, answers = rng.standard_normal((5, 16)), rng.standard_normal((5, 16))  # (F, d_model)
    own = answer_shares(weights, X, answers, "relu")
    assert own.shape == (5, 24)
    for f in range(5):
        h = relu_hidden(weights, X[f])
        for j in range(24):
            push = sum(weights["W2"][j, k] * answers[f, k] for k in range(16))
            assert own[f, j] == pytest.approx(h[j] * push, abs=1e-12)
        out = h @ weights["W2"] + weights["b2"]
        bias = weights["b2"] @ answers[f]
        assert own[f].sum() + bias == pytest.approx(out @ answers[f], abs=1e-10)


@pytest.mark.parametrize("j", [0, 7, 23])
def test_key_and_value_read_one_neurons_column_of_w1_and_row_of_w2(j):
    weights, rng = random_weights(16, 24), np.random.default_rng(2)
    X, E = rng.standard_normal((5, 16)), rng.standard_normal((9, 16))
    key_match, push = key_and_value(weights, X, E, j)
    assert key_match.shape == (5,) and push.shape == (9,)
    for f in range(5):
        expected = sum(X[f, k] * weights["W1"][k, j] for k in range(16)) + weights["b1"][j]
        assert key_match[f] == pytest.approx(expected, abs=1e-12)
    for w in range(9):
        expected = sum(E[w, k] * weights["W2"][j, k] for k in range(16))
        assert push[w] == pytest.approx(expected, abs=1e-12)


def test_recall_under_ablation_averages_seeded_random_silencings():
    facts = FACT_TABLES["countries → capitals"]
    E, X, objects = fact_vectors(facts, 16)
    weights = train_memory(facts, 16, 24, "relu", seed=0).weights
    fractions = np.array([0.0, 0.3, 0.6, 0.95])
    curve = recall_under_ablation(weights, X, E, objects, "relu", fractions, repeats=3, seed=5)
    rng, expected = np.random.default_rng(5), []
    for q in fractions:
        recalls = []
        for _ in range(3):
            off = rng.choice(24, int(q * 24), replace=False)
            h = np.maximum(X @ weights["W1"] + weights["b1"], 0.0)  # (F, d_ff)
            h[:, off] = 0.0
            S = (h @ weights["W2"] + weights["b2"]) @ E.T  # (F, V)
            recalls.append(sum(S[i].argmax() == objects[i] for i in range(len(facts))) / 12)
        expected.append(sum(recalls) / 3)
    np.testing.assert_allclose(curve, expected)
    assert curve[0] == 1.0 and curve[-1] < 1.0


def test_recall_by_width_trains_one_store_per_width_and_reads_its_last_recall():
    asked = []

    def fake_train(facts, d_model, d_ff, activation, seed):
        asked.append((facts, d_model, d_ff, activation, seed))
        return MemoryResult({}, np.zeros(2), np.array([0.5, d_ff / 100]))

    facts = FACT_TABLES["numbers → successors"]
    by_width = recall_by_width(facts, 16, (3, 40), "gelu", seed=2, train=fake_train)
    np.testing.assert_array_equal(by_width, [0.03, 0.40])
    assert asked == [(tuple(facts), 16, 3, "gelu", 2), (tuple(facts), 16, 40, "gelu", 2)]
    by_width = recall_by_width(facts, 16, (5, 24), "relu")  # trained for real: both learn it
    for width, recall in zip((5, 24), by_width, strict=True):
        weights = train_memory(list(facts), 16, width, "relu", seed=0).weights
        E, X, objects = fact_vectors(facts, 16)
        S_rows = [
            (relu_hidden(weights, X[i]) @ weights["W2"] + weights["b2"]) @ E.T
            for i in range(len(facts))
        ]
        assert recall == np.mean([s.argmax() == o for s, o in zip(S_rows, objects, strict=True)])

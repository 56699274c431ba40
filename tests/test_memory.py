"""The fact store: training, per-neuron shares, ablation and the rank-one edit, in the core,
and the Memory lab page in AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from pages_helpers import MEMORY, open_page, warnings_text

from ffn_core.memory import (
    FACT_TABLES,
    VOCAB,
    ablated_scores,
    contributions_to,
    fact_indices,
    rank_one_edit,
    scores,
    train_memory,
    vocab_embeddings,
)

D_MODEL, D_FF = 32, 64  # the page's defaults when the sidebar's d_model is small


def setup_table(name, d_model=D_MODEL, d_ff=D_FF, activation="relu"):
    facts = FACT_TABLES[name]
    result = train_memory(facts, d_model, d_ff, activation, seed=0)
    E = vocab_embeddings(d_model)
    subjects, objects = fact_indices(facts)
    return facts, result, E, E[subjects], objects


def test_vocabulary_is_small_and_covers_every_table():
    assert 20 <= len(VOCAB) <= 60
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


@pytest.mark.parametrize("table", list(FACT_TABLES))
def test_the_page_runs_on_each_table_and_shows_the_cores_numbers(fresh_caches, table):
    at = open_page(MEMORY, {"facts": table})
    assert not at.exception
    facts, result, _E, _X, _objects = setup_table(table)
    assert at.metric[0].value == f"{len(facts)} of {len(facts)}"
    assert at.metric[1].value == str(len(result.losses))


def test_editing_and_resetting_on_the_page(fresh_caches):
    query = {"facts": "countries → capitals", "fact": "france → paris", "new_obj": "rome"}
    at = open_page(MEMORY, {**query, "apply_edit": "true"})
    assert not any("now recalls" in s.value for s in at.success)  # a guess comes first
    at.radio(key="guess_edit").set_value("more than two").run()
    assert at.error[0].value.startswith("Not this time: the answer is none of them. 0 of them")
    assert any("“france” now recalls “rome”" in s.value for s in at.success)
    assert "Other facts whose answer changed: 0 of 11." in " ".join(c.value for c in at.caption)
    (reset,) = [b for b in at.button if b.label == "Reset"]
    reset.click().run()
    assert not at.success
    assert at.toggle(key="apply_edit").value is False


def test_ablating_the_top_neurons_breaks_the_fact(fresh_caches):
    at = open_page(MEMORY, {"fact": "france → paris", "topn": "20"})
    facts, result, E, X, objects = setup_table("countries → capitals")
    shares, _ = contributions_to(result.weights, X[0], E[objects[0]], "relu")
    off = np.argsort(-shares, kind="stable")[:20]
    survived = ablated_scores(result.weights, X, E, "relu", off).argmax(axis=1) == objects
    assert at.metric[2].value == f"{survived.sum()} of {len(facts)}"


def test_pairs_outside_the_vocabulary_are_left_out_with_a_note(fresh_caches):
    at = open_page(MEMORY)
    key = "facts_countries → capitals"
    at.session_state[key] = {
        "edited_rows": {0: {"object": "london"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception
    assert "france → london" in warnings_text(at)
    assert at.metric[0].value == "11 of 11"


def test_the_tools_are_named_for_what_each_shows(fresh_caches):
    text = " ".join(c.value for c in open_page(MEMORY).caption)
    assert "vocabulary projection of Geva et al. (2022), which LM-Debugger" in text
    assert "Neuroscope (Nanda, 2022) shows something else: the texts that make" in text

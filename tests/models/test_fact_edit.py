"""The rank-one fact edit on SmolLM2: its gradient, its algebra, and what it does.

Figures measured on the France fact are in benchmarks/RESULTS.md; the tests hold the
issue's bar: the new target on top, at least 8 of 10 neighbours unchanged, and at least
1 of 3 paraphrases (that the unedited model answers right) following the edit.
"""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core.models.minilm.corpus import load_corpus
from ffn_core.models.smollm.fact_edit import (
    FACTS,
    LAYER,
    LAYERS,
    context,
    key_covariance,
    loss_and_gradient,
    rewrite_fact,
    subject_end,
)
from ffn_core.models.smollm.prepared_facts import key, load_edit, load_outcomes, outcome

FRANCE = FACTS["France's capital"]


@pytest.fixture(scope="module")
def covariance(smollm):
    return key_covariance(smollm, LAYER, load_corpus())


@pytest.fixture(scope="module")
def rewrite(smollm, covariance):
    return rewrite_fact(
        smollm, FRANCE.prompt, FRANCE.subject, int(smollm.encode(FRANCE.new)[0]), covariance
    )


def top(lm, text, fact=None) -> str:
    return lm.piece(lm.top_next(lm.run(text, fact=fact), 1)[0][0])


def test_the_subject_s_last_token_is_found(smollm):
    prompt = "The Eiffel Tower is located in the city of"
    end = subject_end(smollm, prompt, "The Eiffel Tower")
    assert smollm.piece(smollm.encode(prompt)[end]) == " Tower"
    with pytest.raises(ValueError, match="not in the prompt"):
        subject_end(smollm, prompt, "Paris")


def test_the_gradient_matches_centred_differences_along_random_directions(smollm):
    target = int(smollm.encode(" Rome")[0])
    contexts = [
        context(smollm, p, "France", LAYER) for p in (FRANCE.prompt, "Note: " + FRANCE.prompt)
    ]
    rng = np.random.default_rng(0)
    delta = rng.standard_normal(576) * 0.5  # float64: every block then runs in float64
    _, grad = loss_and_gradient(smollm, LAYER, contexts, delta, target)
    for _ in range(3):
        d = rng.standard_normal(576)
        eps = 1e-4
        plus, _ = loss_and_gradient(smollm, LAYER, contexts, delta + eps * d, target)
        minus, _ = loss_and_gradient(smollm, LAYER, contexts, delta - eps * d, target)
        assert grad @ d == pytest.approx((plus - minus) / (2 * eps), rel=1e-4)


def test_the_edit_makes_the_mean_key_write_exactly_delta_more(rewrite):
    assert rewrite.key @ rewrite.edit.u == pytest.approx(1.0, rel=1e-5)
    assert rewrite.edit.layer == LAYER and np.array_equal(rewrite.edit.v, rewrite.delta)


def test_the_new_target_becomes_the_prediction(smollm, rewrite):
    assert top(smollm, FRANCE.prompt) == " Paris"
    assert top(smollm, FRANCE.prompt, rewrite.edit) == " Rome"
    assert rewrite.losses[-1] < rewrite.losses[0]


def test_at_least_eight_of_ten_neighbours_keep_their_answer(smollm, rewrite):
    kept = [top(smollm, n) == top(smollm, n, rewrite.edit) for n in FRANCE.neighbours]
    assert sum(kept) >= 8, [n for n, k in zip(FRANCE.neighbours, kept, strict=True) if not k]


def test_at_least_one_paraphrase_follows(smollm, rewrite):
    assert all(top(smollm, p) == " Paris" for p in FRANCE.paraphrases)  # right before the edit
    assert sum(top(smollm, p, rewrite.edit) == " Rome" for p in FRANCE.paraphrases) >= 1


def test_the_shipped_default_rewrite_is_the_one_computed_here(smollm, rewrite):
    """The page shows prepared rewrites: the default one, computed again here, is the
    shipped edit, and what the edited model says is the shipped outcome."""
    shipped = load_edit("France's capital", FRANCE.new, LAYER)
    np.testing.assert_allclose(shipped.u, rewrite.edit.u, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(shipped.v, rewrite.edit.v, rtol=1e-3, atol=1e-5)
    target = int(smollm.encode(FRANCE.new)[0])
    again = outcome(smollm, FRANCE, target, shipped, len(rewrite.losses))
    told = load_outcomes()[key("France's capital", FRANCE.new, LAYER)]
    assert (again.top, again.paraphrases, again.continuation) == (
        told.top,
        told.paraphrases,
        told.continuation,
    )
    assert again.after == pytest.approx(told.after, abs=1e-3)
    assert again.before == pytest.approx(told.before, abs=1e-3)
    for mine, theirs in zip(again.neighbours, told.neighbours, strict=True):
        assert (mine.prompt, mine.before, mine.after, mine.at) == (
            theirs.prompt,
            theirs.before,
            theirs.after,
            theirs.at,
        )
        assert mine.share == pytest.approx(theirs.share, abs=1e-3)


def test_every_offered_rewrite_is_shipped_and_its_shares_are_its_keys(smollm):
    """Every fact, answer and block the page offers has its edit and outcome; for one
    other block, the neighbours' shares of δ are h · u recomputed from the shipped u."""
    told = load_outcomes()
    offered = {key(n, a, layer) for n, f in FACTS.items() for a in f.answers for layer in LAYERS}
    assert offered == set(told)
    name, fact = "The Eiffel Tower", FACTS["The Eiffel Tower"]
    edit = load_edit(name, fact.others[0], LAYERS[-1])
    for neighbour in told[key(name, fact.others[0], LAYERS[-1])].neighbours[:3]:
        shares = smollm.keys(smollm.encode(neighbour.prompt), edit.layer) @ edit.u
        assert float(shares.max()) == pytest.approx(neighbour.share, abs=1e-3)

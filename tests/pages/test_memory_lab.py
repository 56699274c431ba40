"""The Memory lab page in AppTest: each table, editing and resetting, ablating, and the tools
named for what each shows."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import MEMORY, edit_table, open_page, setup_table, warnings_text

from ffn_core.memory import (
    FACT_TABLES,
    ablated_scores,
    contributions_to,
)


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
    edit_table(at, key, {0: {"object": "london"}})
    at.run()
    assert not at.exception
    assert "france → london" in warnings_text(at)
    assert at.metric[0].value == "11 of 11"


def test_the_tools_are_named_for_what_each_shows(fresh_caches):
    text = " ".join(c.value for c in open_page(MEMORY).caption)
    assert "vocabulary projection of Geva et al. (2022), which LM-Debugger" in text
    assert "Neuroscope (Nanda, 2022) shows something else: the texts that make" in text

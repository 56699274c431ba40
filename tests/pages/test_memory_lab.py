"""The Memory lab page in AppTest: each table, editing and resetting, ablating, and the tools
named for what each shows."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import (
    MEMORY,
    chart_traces,
    decode,
    edit_table,
    open_page,
    page_words,
    setup_table,
    warnings_text,
)

from ffn_core.lessons.memory import (
    FACT_TABLES,
    ablated_scores,
    contributions_to,
    edit_shares,
    train_memory,
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


def test_the_edits_why_says_when_no_other_fact_can_move_and_offers_a_store_where_edits_leak(
    fresh_caches,
):
    """d_ff 64 for 12 facts: the other keys' shares of the edit are 0, by construction.
    The d_ff 4 button: shares up to the core's largest, a table of them, and facts move."""
    query = {"facts": "countries → capitals", "fact": "france → paris", "new_obj": "rome"}
    at = open_page(MEMORY, {**query, "apply_edit": "true", "guess_edit": "none of them"})
    (right,) = at.success[:1]
    assert "u can be orthogonal to every other stored key" in right.value
    assert "by construction" in right.value
    (leaky,) = [b for b in at.button if b.label == "Fewer neurons than facts: d_ff 4"]
    leaky.click().run()
    assert at.slider(key="mem_dff").value == 4
    at.radio(key="guess_edit").set_value("more than two").run()  # a new store: asked again
    facts, _, E, X, _ = setup_table("countries → capitals")
    result = train_memory(list(facts), E.shape[1], 4, "relu", 0)
    shares = edit_shares(result.weights, X, 0, "relu")
    top = 1 + int(np.argmax(np.abs(shares[1:])))
    verdict = " ".join(m.value for m in [*at.success, *at.error])
    assert f"here up to {abs(shares[top]):.2f}" in verdict
    assert f": {shares[top]:+.2f})" in verdict and "u cannot be orthogonal" in verdict
    (table,) = [d.value for d in at.dataframe if "share k·u of d" in d.value.columns]
    assert len(table) >= 1
    for label, row in table.iterrows():
        i = [f"{s} → {o}" for s, o in facts].index(label)
        assert row["share k·u of d"] == f"{shares[i]:+.2f}"


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


def test_loss_and_recall_each_have_their_own_axis_and_a_recall_of_0_is_drawn_at_0(fresh_caches):
    """M4: the loss on a log axis, the recall on a linear one from 0 to 100 %: a recall of
    0 is drawn at 0 (a log axis had drawn it at 10⁻³, unsaid)."""
    at = open_page(MEMORY, {"facts": "countries → capitals", "mem_dff": "4"})
    _facts, result, _E, _X, _objects = setup_table("countries → capitals", d_ff=4)
    assert result.recall.min() == 0  # the store starts recalling nothing
    loss, recall = chart_traces(at)[0]
    np.testing.assert_allclose(decode(loss["y"]), result.losses, rtol=1e-6)
    np.testing.assert_allclose(decode(recall["y"]), result.recall, rtol=1e-6)
    assert loss.get("yaxis", "y") == "y" and recall["yaxis"] == "y2"
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert layout["yaxis"]["type"] == "log" and layout["yaxis2"].get("type") != "log"
    assert layout["yaxis2"]["range"][0] == 0
    titles = layout["yaxis"]["title"]["text"], layout["yaxis2"]["title"]["text"]
    assert "loss" in titles[0] and "recall" in titles[1] and "/" not in titles[0]


def test_rank_one_is_said_before_the_rewrite_uses_it(fresh_caches):
    said = page_words(open_page(MEMORY).main, questions=False)
    where = said.index("rank-one change to W2: one column times one row (u ⊗ d)")
    assert where < said.index("Editing methods such as ROME")


def test_before_the_guess_no_word_or_figure_says_which_facts_the_edit_moves(fresh_caches):
    """The question asks whether other facts change their answer: their count, the table
    of changed answers, the edited fact's new answer and the change to W2 wait for it."""
    query = {"facts": "countries → capitals", "fact": "france → paris", "new_obj": "rome"}
    at = open_page(MEMORY, {**query, "apply_edit": "true", "mem_dff": "4"})
    before = page_words(at.main, questions=False)
    for answer in ("Other facts whose answer changed", "now recalls", "share k·u of d"):
        assert answer not in before, answer
    assert "the rank-one change to W2" not in before
    at.radio(key="guess_edit").set_value("none of them").run()
    after = page_words(at.main, questions=False)
    assert "Other facts whose answer changed" in after and "the rank-one change to W2" in after


def test_the_loss_axis_labels_only_powers_of_ten_so_its_labels_never_crowd(fresh_caches):
    at = open_page(MEMORY, {"facts": "countries → capitals"})
    _facts, result, _E, _X, _objects = setup_table("countries → capitals")
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    ticks = np.array(layout["yaxis"]["tickvals"])
    assert np.allclose(np.log10(ticks), np.round(np.log10(ticks)))  # 1, 10, 0.1, …: no 2 or 5
    assert ticks.min() <= result.losses.min() and ticks.max() >= result.losses.max()


def test_e_object_and_minilm_are_said_in_words_where_they_appear(fresh_caches):
    said = page_words(open_page(MEMORY, {"facts": "countries → capitals"}).main, questions=False)
    first = said.index("e_object")
    assert "e_object the word vector of “paris”" in said[first - 20 : first + 40]
    assert "encoder" not in said  # the Real model's MiniLM, said in words instead
    assert "MiniLM, a trained model that reads a whole sentence at once" in said

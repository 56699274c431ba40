"""The Position-wise page in AppTest: a nudge moves one row, a shuffle shuffles the rows, and
the cost of T."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers import (
    ANSWERS,
    POSITION_WISE,
    decode,
    metric,
    open_page,
    page_words,
    traces,
)

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.mark.parametrize("token", ["1: the", "3: sat", "6: mat"])
def test_nudging_a_token_changes_only_its_row(token):
    query = {"ptok": token, "nudge": "-2.5", "coord": "2", **ANSWERS[POSITION_WISE]}
    at = open_page(POSITION_WISE, query)
    change = decode(traces(at, 0)[0]["z"])
    t = int(token.split(":")[0]) - 1
    assert np.all(np.delete(change, t, axis=0) == 0)
    assert np.any(change[t] != 0)
    assert metric(at, "largest change in the other") == "0"


def test_shuffling_tokens_shuffles_outputs():
    at = open_page(POSITION_WISE, {"perm": "7", **ANSWERS[POSITION_WISE]})
    assert metric(at, "max |FFN(shuffled") == "0"


def test_the_shuffle_box_says_what_it_is_and_the_order_it_gives():
    at = open_page(POSITION_WISE, {"perm": "7", **ANSWERS[POSITION_WISE]})
    box = at.number_input(key="perm")
    assert box.label == "which shuffle" and "random order" in box.help
    words = ["the", "cat", "sat", "on", "the", "mat"]
    order = np.random.default_rng(7).permutation(6)  # an independent draw of the same order
    listed = ", ".join(f"{i + 1}: {words[i]}" for i in order)
    assert f"New order: {listed}." in [c.value for c in at.caption]
    rows = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]["y"]
    assert rows == [f"{i + 1}: {words[i]}" for i in order]


def test_cost_plot_marks_the_crossover_at_d_ff():
    at = open_page(POSITION_WISE, {"d_ff": "40", **ANSWERS[POSITION_WISE]})
    spec = json.loads(at.get("plotly_chart")[2].proto.spec)
    (line,) = [s for s in spec["layout"]["shapes"] if s.get("x0") is not None]
    assert line["x0"] == 40
    names = [t["name"] for t in spec["data"]]
    assert names == ["FFN", "attention Q, K, V, O", "attention T² terms"]


def test_the_nudge_question_waits_then_the_change_map_settles_it():
    at = open_page(POSITION_WISE, {"ptok": "3: sat"})
    assert not [m for m in at.metric if m.label.startswith("largest change")]
    at.radio(key="guess_rows_moved").set_value("every row").run()
    assert at.error[0].value.startswith("Not this time: the answer is only its own row.")
    assert metric(at, "largest change in the other") == "0"
    text = " ".join(m.value for m in at.markdown)
    assert "a filter one position wide: the same weights at every position" in text
    flops = " ".join(c.value for c in at.caption)
    assert "a multiply-add counts as 2" in flops


def test_the_one_by_one_run_agrees_in_words():
    """Token by token against one product: exactly, or within float64 rounding, said so."""
    import re

    at = open_page(POSITION_WISE, ANSWERS[POSITION_WISE])
    text = " ".join(m.value for m in at.markdown)
    said = re.search(r"gives the same output, (exactly, to the last bit of float64|to within "
                     r"(\d\.\de-\d\d) \(float64 rounding\)), only slower", text)  # fmt: skip
    assert said, text
    assert said.group(2) is None or float(said.group(2)) < 1e-12


def test_nothing_above_the_question_says_which_rows_move():
    at = open_page(POSITION_WISE)
    above = " ".join([*(m.value for m in at.markdown), *(h.value for h in at.subheader)])
    assert "only its row" not in above and "never looks at two tokens at once" not in above
    assert at.radio(key="guess_rows_moved").value == "not sure yet"
    at.radio(key="guess_rows_moved").set_value("every row").run()
    said = " ".join(m.value for m in at.markdown)
    assert "The FFN never looks at two tokens at once" in said


def shown_words(at) -> str:
    """Every word the page shows: headings, sentences, captions, notes, metrics and each
    figure in numbers."""
    parts = [e.value for e in [*at.title, *at.subheader, *at.markdown, *at.caption, *at.text]]
    parts += [e.value for e in [*at.info, *at.warning, *at.success, *at.error]]
    return "\n".join([*parts, *(f"{m.label} {m.value}" for m in at.metric)])


@pytest.mark.parametrize("query", [{}, {"ptok": "3: sat", "nudge": "-2"}, {"act": "GELU"}])
def test_before_the_guess_the_map_is_drawn_with_no_row_lit_and_nothing_says_which(query):
    """The question asks which rows of the change map light up. Before a guess the map is
    its grid alone (every cell the same grey, no value on hover or in its words), and no
    metric, sentence or other section says that the tokens go through alone; the guess
    lights the one row."""
    at = open_page(POSITION_WISE, query)
    (cells,) = traces(at, 0)
    z = decode(cells["z"])
    assert np.all(z == 0) and "%{z" not in cells["hovertemplate"]
    assert len(at.get("plotly_chart")) == 2  # the map and the cost: nothing in between
    assert not at.metric
    words = shown_words(at)
    for said in ("only its own row", "one row", "never looks at two tokens", "alone",
                 "same output", "still its token's output", "shuffle the same way"):  # fmt: skip
        assert said not in words, said
    at.radio(key="guess_rows_moved").set_value("every row").run()
    change = decode(traces(at, 0)[0]["z"])
    t = at.selectbox(key="ptok").index
    assert np.any(change[t] != 0) and np.all(np.delete(change, t, axis=0) == 0)
    assert "never looks at two tokens at once" in shown_words(at)
    assert len(at.get("plotly_chart")) == 3


@pytest.mark.parametrize("act", ["ReLU", "SwiGLU"])
def test_every_name_is_said_where_the_page_first_uses_it(act):
    """No "MLP" (the page's word is FFN), no bare "d" (d_model), T said to be the sequence
    length where it first appears, W_gate inside the gated FFN's formula where first named."""
    said = page_words(open_page(POSITION_WISE, {"act": act, **ANSWERS[POSITION_WISE]}).main)
    assert "MLP" not in said
    assert not re.search(r"(?<!\w)d(?!\w)", said), "a bare d"
    first_t = re.search(r"\bT\b", said).start()
    assert said[first_t - 20 : first_t].endswith("sequence length ")
    first_gate = said.index("W_gate")
    assert "gated" in said[first_gate - 40 : first_gate]
    assert "three mistakes" in said and "two mistakes" not in said  # the next page's promise

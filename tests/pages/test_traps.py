"""The Traps page in AppTest: the stride and transpose mistakes, the clamp, and the lesson's
exercise."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    TRAPS,
    decode,
    expected_default_model,
    open_page,
    page_words,
    relu,
    traces,
    warnings_text,
)

from ffn_core import ffn_forward_flat
from ffn_ui.classroom.room import TEACHER
from ffn_ui.parts.traps import small_case

pytestmark = pytest.mark.usefixtures("fresh_caches")


DIFFERENT_OR_CRASH = "a different answer or a crash"
BOTH = {"guess_stride": "the same answer", "guess_t": "the same answer"}


def shown_results(at) -> list[str]:
    return [c.value for c in at.code if not c.value.startswith('"""')]


def test_one_stride_agrees_on_square_shapes_only():
    square = shown_results(open_page(TRAPS, {**BOTH, "D": "4", "H": "4"}))
    assert square[0] == square[1]
    wide = shown_results(open_page(TRAPS, {**BOTH, "D": "3", "H": "6"}))
    assert wide[0] != wide[1] and not wide[1].startswith("IndexError")
    narrow = shown_results(open_page(TRAPS, {**BOTH, "D": "6", "H": "3"}))
    assert narrow[1] == "IndexError: list index out of range"


def test_transposed_weights_are_refused_unless_square():
    refused = shown_results(open_page(TRAPS, {**BOTH, "D": "3", "H": "5"}))
    assert refused[2].startswith("ValueError: x has shape (3,)")
    at = open_page(TRAPS, {**BOTH, "D": "3", "H": "3"})
    assert any("runs silently" in m.value for m in at.markdown)


def test_guesses_are_checked():
    at = open_page(TRAPS, {"D": "3", "H": "3", "guess_stride": "the same answer"})
    assert any(s.value.startswith("Right") for s in at.success)
    at = open_page(TRAPS, {"D": "3", "H": "5", "guess_stride": "the same answer"})
    assert any(e.value.startswith("Not this time") for e in at.error)


def test_the_clamp_blocks_every_negative_update():
    at = open_page(TRAPS, {"guess_clamp": "no"})
    x, w = expected_default_model()
    out = relu(x @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
    (blocked,) = [m.value for m in at.metric if m.label.startswith("residual updates")]
    assert blocked == f"{int(np.sum(out < 0))} of {out.size}"
    clamped = decode(traces(at, 2)[0]["z"])  # after the stride figure and the correct update
    assert clamped.min() >= 0
    np.testing.assert_allclose(decode(traces(at, 1)[0]["z"]), out, rtol=1e-5, atol=1e-6)


def test_the_reference_code_shown_runs_and_matches_the_core():
    at = open_page(TRAPS, {"ex_y": "0 0"})  # the reference shows once an answer is in
    (source,) = [c.value for c in at.code if c.value.startswith('"""')]
    namespace: dict = {}
    exec(compile(source, "shown_reference", "exec"), namespace)  # the learner's copy
    rng = np.random.default_rng(5)
    for D, H in ((2, 2), (3, 7), (6, 4)):
        args = [rng.standard_normal(n).tolist() for n in (D, H * D, H, D * H, D)]
        assert namespace["ffn_forward_flat"](*args) == ffn_forward_flat(*args)
    assert namespace["ffn_forward_flat"]([1, -1], [1, 1, 1, -1], [0, 0], [1, 0, 0, 1], [0, 0]) == [
        0.0,
        2.0,
    ]


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("1, -1", "Right: y = [1.0, -1.0]."),
        ("1 -2", "that is what one stride for both matrices gives"),
        ("1, 0", "that is y with a ReLU after W2 too"),
        ("3, 3", "Score each of the 3 neurons first"),
        ("1", "Could not read that as y: expected 2 numbers, found 1"),
    ],
)
def test_the_exercise_checks_a_typed_answer_and_names_the_mistake(typed, says):
    at = open_page(TRAPS, {"ex_y": typed})
    assert not at.exception
    assert says in warnings_text(at) + " ".join(s.value for s in at.success)


def test_the_exercise_is_not_square_and_its_answer_is_the_references():
    from ffn_core.reference import ffn_forward_flat as reference

    at = open_page(TRAPS)
    (given,) = [c.value for c in at.code if c.value.startswith("x = ")]
    namespace: dict = {}
    exec(given, namespace)  # the numbers exactly as the learner reads them
    D, H = len(namespace["x"]), len(namespace["b1"])
    assert (D, H) == (2, 3) and len(namespace["W1"]) == H * D and len(namespace["W2"]) == D * H
    assert reference(*(namespace[k] for k in ("x", "W1", "b1", "W2", "b2"))) == [1.0, -1.0]
    assert not at.success and not at.error  # nothing is judged before an answer is typed


def test_the_reference_source_waits_until_an_answer_is_typed():
    at = open_page(TRAPS)
    assert not [e for e in at.expander if e.label.startswith("The reference")]
    at.text_input(key="ex_y").set_value("one two").run()  # not an answer yet
    assert not [e for e in at.expander if e.label.startswith("The reference")]
    at.text_input(key="ex_y").set_value("3 4").run()
    (expander,) = [e for e in at.expander if e.label.startswith("The reference")]
    assert any(c.value.startswith('"""') for c in expander.code)


def test_the_clamp_question_is_asked_before_the_page_gives_its_answer():
    at = open_page(TRAPS)
    said = " ".join(m.value for m in at.markdown)
    assert "x + FFN(x)" in said and "stops every push down at zero" not in said
    at.radio(key="guess_clamp").set_value("no").run()
    assert "stops every push down at zero" in " ".join(m.value for m in at.markdown)


def stride_figure(at) -> dict[str, tuple[list, list]]:
    """The first figure's rows: {row name: (the list indices it colours, their numbers)}."""
    (grid,) = traces(at, 0)
    z, columns = decode(grid["z"]), grid["x"]
    return {
        row: ([int(columns[k]) for k in np.flatnonzero(np.isfinite(z[r]))],
              [t for t in grid["text"][r] if t])
        for r, row in enumerate(grid["y"])
    }  # fmt: skip


@pytest.mark.parametrize(("D", "H"), [(3, 5), (5, 3), (4, 4)])
def test_the_first_figure_shows_the_right_reads_and_holds_back_the_one_stride_reads(D, H):
    """Before the guess: each y[i] reads entries i·H … i·H + H − 1 of W2's list (the numbers
    read back from the case), the one-stride rows are blank and the figure's words stop at
    "held back"; the outputs and any IndexError wait too. After it: the mistake's reads
    from i·D, past the list's end marked ✗ when H < D."""
    at = open_page(TRAPS, {"D": str(D), "H": str(H)})
    W2 = small_case(D, H)["W2"]
    rows = stride_figure(at)
    for i in range(D):
        right = list(range(i * H, i * H + H))
        assert rows[f"y{i + 1}, stride H = {H}"] == (
            right,
            [f"{W2[k]:g}".replace("-", "−") for k in right],
        )
        assert rows[f"y{i + 1}, one stride D = {D}"] == ([], [])
    words = " ".join(t.value for t in at.text)
    assert f"With one stride D = {D}: held back until the answer." in words
    assert not at.success and not at.error and "IndexError" not in words
    assert [c.value for c in at.code if not c.value.startswith("x = ")] == []
    at.radio(key="guess_stride").set_value("the same answer").run()
    rows = stride_figure(at)
    for i in range(D):
        read = list(range(i * D, i * D + H))
        numbers = [f"{W2[k]:g}".replace("-", "−") if k < D * H else "✗" for k in read]
        assert rows[f"y{i + 1}, one stride D = {D}"] == (read, numbers)
    assert ("IndexError" in " ".join(t.value for t in at.text)) == (H < D)


def test_the_page_opens_on_its_figure_and_claims_nothing_unsourced():
    at = open_page(TRAPS)
    lede = at.markdown[0].value
    assert "catch almost everyone" not in lede
    assert "a test can miss" not in lede and "d_model" not in lede  # whether: the questions ask
    assert len(lede.split()) <= 30
    assert at.get("plotly_chart")  # the figure, before any guess


def test_a_follower_in_a_class_sees_the_teachers_shapes_and_question_and_no_presets():
    """A class asks one question: a following student's page draws the teacher's figure
    and question (the class view), with no D, H or preset of its own to change them."""
    teacher = open_page(TRAPS, {"D": "3", "H": "5"})
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    code = teacher.session_state[TEACHER][0]
    student = open_page(None, {"room": code})
    assert not student.exception
    asked = [r.label for r in teacher.radio if r.key.startswith("guess")]
    assert [r.label for r in student.radio] == asked
    assert "With D = 3 and H = 5" in student.radio[0].label
    assert not student.number_input and not [b for b in student.button if b.label == "square"]


def test_before_the_stride_guess_no_word_says_where_the_wrong_stride_reads():
    """Question 1 asks whether W2 read with W1's stride D gives the same answer: where
    each y[i] then starts (i·D against i·H) settles it, so the text under the figure says
    it only after the guess; the question says what the one-stride version is."""
    at = open_page(TRAPS, {"D": "3", "H": "5"})
    said = page_words(at.main)
    assert "i·D" not in said and "i·H" not in said
    (asked,) = [r for r in at.radio if r.key == "guess_stride"]
    assert "W1's stride D; a stride is how far apart" in asked.label
    at.radio(key="guess_stride").set_value("the same answer").run()
    said = page_words(at.main)
    assert "so y[i] takes the H entries from i·D instead of i·H" in said


def test_the_page_counts_its_mistakes_right_and_speaks_no_developer_jargon():
    """Three sections of mistakes (stride, transpose, ReLU after W2): the page says three,
    and calls the shape check the FFN's, not "the core's"."""
    for D, H in ((3, 5), (3, 3)):
        at = open_page(TRAPS, {"D": str(D), "H": str(H), "guess_stride": DIFFERENT_OR_CRASH})
        at.radio(key="guess_t").set_value("the same answer" if D != H else DIFFERENT_OR_CRASH)
        said = page_words(at.run().main)
        assert "Three slips" in said and "Two mistakes" not in said
        assert "core" not in said, said[said.find("core") - 60 : said.find("core") + 20]
        assert "the FFN's shape check" in said or "The FFN checks shapes" in said

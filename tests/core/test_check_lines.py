"""The gradient check and the collapse as lines a learner writes (ffn_core/exercise/
check_lines.py): the lesson's lines are right on every case, each common mistake is named,
the learner's own check matches an independent one and flags a planted bug, and what a
hostile line can make the helpers do is bounded."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core.exercise import build_ffn, check_lines
from ffn_core.exercise.build_ffn import LESSON, UNEVEN, Case
from ffn_core.exercise.check_lines import (
    CHECK_STEPS,
    MAX_CALLS,
    check_check_line,
    own_check,
    planted_check,
)
from ffn_core.exercise.collapse_lines import COLLAPSE_STEPS, check_collapse_line
from ffn_core.gradcheck import gradient_check

TOY = Case("a toy at the page's caps", 1, 8, 16, 64, seed=3)
CHECK = {step.name: step.answer for step in CHECK_STEPS}
FORWARD_BACKWARD = {step.name: step.answer for step in build_ffn.STEPS}


@pytest.mark.parametrize("step", CHECK_STEPS, ids=lambda s: s.name)
def test_the_lesson_s_check_lines_are_right_on_every_case(step):
    verdict = check_check_line(step.name, step.answer, (LESSON, UNEVEN, TOY))
    assert verdict.right, verdict.says


@pytest.mark.parametrize("step", COLLAPSE_STEPS, ids=lambda s: s.name)
def test_the_collapse_lines_are_right_on_every_case(step):
    verdict = check_collapse_line(step.name, step.answer, (LESSON, UNEVEN, TOY))
    assert verdict.right, verdict.says


@pytest.mark.parametrize(
    ("step", "text"),
    [
        ("L", "dout.sum() * 0 + np.sum(dout * out)"),
        ("L_plus", "L_plus = nudge(W1, i, eps)"),
        ("slope", "(L_plus - L_minus) / eps / 2"),
        ("rel", "np.abs(n - a) / np.maximum(np.abs(n) + np.abs(a), 1e-12)"),
        ("worst", "(np.abs(numeric - dP) / np.maximum(np.abs(numeric) + np.abs(dP), 1e-12)).max()"),
    ],
)
def test_other_spellings_of_a_right_line_are_right(step, text):
    assert check_check_line(step, text).right


MISTAKES = [
    ("L", "np.sum(out)", "weights each output by dout"),
    ("L", "np.mean(out * dout)", "This is a mean"),
    ("L_plus", "nudge(W1, i, 0.01)", "ε is too large"),
    ("L_plus", "nudge(W1, i, 1e-13)", "ε is too small"),
    ("L_minus", "nudge(W1, i, -eps)", "takes a nudge of −2ε"),
    ("L_back", "nudge(W1, i, 0 * eps)", "every later loss would be measured at the wrong point"),
    ("slope", "(L_plus - L) / eps", "one-sided"),
    ("slope", "(L_plus - L_minus) / eps", "twice the slope"),
    ("rel", "np.abs(a - n) / (np.abs(a) + np.abs(n))", "divides 0 by 0"),
    ("rel", "(a - n) / np.maximum(a + n, 1e-12)", "Without absolute values"),
    ("worst",
     "(np.abs(dP - numeric) / np.maximum(np.abs(dP) + np.abs(numeric), 1e-12)).max(axis=0)",
     "no axis"),
    ("worst", "(np.abs(dP - numeric) / np.maximum(np.abs(dP) + np.abs(numeric), 1e-12)).mean()",
     "A mean hides one bad entry"),
]  # fmt: skip


@pytest.mark.parametrize(("step", "text", "said"), MISTAKES)
def test_each_common_mistake_of_the_check_is_named(step, text, said):
    verdict = check_check_line(step, text)
    assert not verdict.right and said in verdict.says, verdict.says


@pytest.mark.parametrize(
    ("step", "text", "said"),
    [
        ("W_eff", "W2 @ W1", "x meets W1 first"),
        ("b_eff", "b2", "b1 @ W2 is missing"),
        ("gap", "0.0", "give the same output"),
        ("gap", "np.abs(x @ W_eff - x @ W_eff).max()", "would not notice a wrong W_eff"),
        ("gap_relu", "np.abs(out).max()", "Compare out"),
    ],
)
def test_each_common_mistake_of_the_collapse_is_named(step, text, said):
    verdict = check_collapse_line(step, text)
    assert not verdict.right and said in verdict.says, verdict.says


def test_the_learner_s_own_check_gives_the_lesson_s_figures_and_agrees_with_the_core_s():
    """On the lesson's shapes, their check of their backward pass: every worst relative
    error near 1e-7 or smaller, as the lesson's table; the core's own check agrees."""
    inputs = LESSON.inputs()
    mine = build_ffn.run_lines(FORWARD_BACKWARD, inputs, LESSON.sizes)
    theirs = own_check(CHECK, mine, LESSON)
    assert set(theirs) == {"dW1", "db1", "dW2", "db2", "dx"}
    assert all(0 <= worst < 1e-6 for worst in theirs.values()), theirs
    core = gradient_check(*(np.array(inputs[n]) for n in ("x", "W1", "b1", "W2", "b2")))
    assert all(value < 1e-6 for value in core.values())


def test_the_learner_s_check_flags_the_planted_transposed_gradient():
    assert planted_check(CHECK) > 1e-2
    sloppy = {**CHECK, "worst": "(np.abs(dP - numeric)).mean() * 0"}  # a check that cannot fail
    assert planted_check(sloppy) < 1e-5  # so its reader sees it miss the bug


@pytest.mark.parametrize(
    ("step", "text", "said"),
    [
        ("L_plus", "nudge(W1, (99, 99), eps)", "is not an entry"),
        ("L_plus", "nudge(W1, (0,), eps)", "moves one entry"),
        ("L_plus", "nudge(W1 * 1, i, eps)", "not an array made"),
        ("L_plus", "nudge(W1, i, 1e300)", "at most 1"),
        ("L_plus", "nudge(W1, i, eps) + nudge(W1, i, eps) + nudge(W1, i, eps) + "
                   "nudge(W1, i, eps) + nudge(W1, i, eps)", f"at most {MAX_CALLS} times"),
        ("numeric", "sweep(sweep(P))", "not an array made"),
        ("numeric", "sweep(x @ W1)", "not an array made"),
        ("numeric", "sweep(P) + sweep(P) + sweep(P) + sweep(P) + sweep(P)",
         f"at most {MAX_CALLS} times"),
        ("numeric", "sweep(P, P)", "takes one parameter"),
    ],
)  # fmt: skip
def test_the_helpers_refuse_what_would_run_away(step, text, said):
    """A nudge with a huge index or shift, a sweep of something that is not one of the
    exercise's arrays (its cost is then unknown), and helpers called in a loop of sums."""
    verdict = check_check_line(step, text)
    assert not verdict.right and said in verdict.says, verdict.says


def test_a_nudge_leaves_the_exercise_s_arrays_alone():
    inputs = LESSON.inputs()
    before = {name: value.copy() for name, value in inputs.items()}
    check_check_line("L_plus", "nudge(W1, i, 0.5)")
    for name, value in LESSON.inputs().items():
        np.testing.assert_array_equal(value, before[name])
    assert check_lines.setting(LESSON, "L").nudged.params["W1"] is not inputs["W1"]


def test_the_hostile_corpus_s_check_lines_are_each_refused():
    from harness.hostile_lines import HOSTILE_CHECK

    for step, text in HOSTILE_CHECK:
        verdict = check_check_line(step, text)
        assert not verdict.right, text

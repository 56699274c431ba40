"""Build it's graders (ffn_core/exercise/build_ffn.py and by_hand.py): every mistake class is
recognised and named on both sets of shapes, equivalent spellings are accepted, and the
learner's own gradient check catches a wrong backward pass."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core import ffn_backward, ffn_forward
from ffn_core.exercise import build_ffn, by_hand
from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN, check_line, own_gradient_check

ANSWERS = {step.name: step.answer for step in STEPS}


def test_the_reference_is_the_core_s_forward_and_backward_pass():
    """The grader's right values agree with ffn_forward / ffn_backward (which are checked
    against centred differences in tests/core/test_ffn_backward.py), on both cases."""
    for case in (LESSON, UNEVEN):
        inputs = case.inputs()
        right = build_ffn.reference(inputs)
        out, cache = ffn_forward(*(inputs[n] for n in ("x", "W1", "b1", "W2", "b2")))
        dx, dW1, db1, dW2, db2 = ffn_backward(inputs["dout"], cache)
        for name, value in dict(out=out, dx=dx, dW1=dW1, db1=db1, dW2=dW2, db2=db2).items():
            np.testing.assert_allclose(right[name], value, rtol=1e-12, atol=1e-12)
        assert right["dW1"].shape == (case.C, case.H) and right["dx"].shape == (
            case.B,
            case.T,
            case.C,
        )


def test_the_two_cases_have_no_two_sizes_alike_where_it_matters():
    assert len({UNEVEN.B, UNEVEN.T, UNEVEN.C, UNEVEN.H}) == 4
    assert (LESSON.B, LESSON.T, LESSON.C, LESSON.H) == (2, 4, 8, 32)


@pytest.mark.parametrize("step", [s.name for s in STEPS])
def test_the_answer_of_every_line_is_right(step):
    assert check_line(step, ANSWERS[step]).right


@pytest.mark.parametrize(
    "step, text",
    [
        ("h", "h_pre * (h_pre > 0)"),
        ("h", "relu(h_pre)"),  # the lesson's own relu
        ("h", "np.where(h_pre > 0, h_pre, 0)"),
        ("h", "(h_pre + np.abs(h_pre)) / 2"),
        ("dh_pre", "dh * (h_pre > 0).astype(float)"),
        ("dh_pre", "np.where(h_pre > 0, dh, 0)"),
        ("dh_pre", "dh * np.heaviside(h_pre, 0)"),
        ("dW2", "h.reshape(-1, H).T @ dout.reshape(-1, C)"),
        ("dW2", "np.einsum('btj,bti->ji', h, dout)"),
        ("dW1", "x.reshape(B * T, C).T @ dh_pre.reshape(B * T, H)"),
        ("db1", "np.sum(dh_pre, axis=(0, 1))"),
        ("db2", "dout.sum(axis=0).sum(axis=0)"),
        ("dx", "np.einsum('bth,ch->btc', dh_pre, W1)"),
        ("out", "out = h @ W2 + b2"),
    ],
)
def test_equivalent_spellings_are_accepted(step, text):
    verdict = check_line(step, text)
    assert verdict.right, verdict.says


@pytest.mark.parametrize(
    "step, text, named",
    [
        # the wrong shape, and the shape it should have
        (
            "h_pre",
            "x.reshape(8, 8) @ W1 + b1",
            "should have shape (2, 4, 32); this line gives (8, 32)",
        ),
        # a missing sum over B and T
        ("dW2", "np.einsum('bti,btj->btij', h, dout)", "sums over B and T"),
        (
            "dW1",
            "np.einsum('bti,btj->bij', x, dh_pre)",
            "sums over T only; sum over B too",
        ),
        ("dW1", "x[0].T @ dh_pre[0]", "first sequence only"),
        ("dW2", "np.einsum('bti,btj->ij', h, dout) / (B * T)", "sum, do not average"),
        # a transpose in the wrong place
        ("dh", "dout @ W2", "The right one, transposed, would fit: a transpose is missing"),
        ("dx", "dh_pre @ W1", "a transpose is missing"),
        ("dW2", "np.einsum('bti,btj->ji', h, dout)", "It is dW2 transposed"),
        ("dW2", "h.T @ dout", "reverses all its axes"),
        ("dh", "W2 @ dout", "Positions come first in these lines: x @ W"),
        # the ReLU gate read from h instead of h_pre
        ("dh_pre", "dh * (h >= 0)", "h >= 0 is true everywhere"),
        ("dh_pre", "dh * h", "multiplies by h itself"),
        ("dh_pre", "dh", "The ReLU's gate is missing"),
        ("dh_pre", "dh * (h_pre < 0)", "the wrong way round"),
        # a bias gradient with the wrong axes
        ("db2", "dout.sum(axis=0)", "sums over B only; sum over T too"),
        ("db1", "dh_pre.sum(axis=2)", "adding up different neurons"),
        ("db2", "dout.sum()", "sums over everything"),
        ("db1", "dh_pre.sum(axis=(0, 1), keepdims=True)", "keepdims=True"),
        ("db1", "dh_pre.mean(axis=(0, 1))", "a mean over the positions"),
        ("db1", "dh.sum(axis=(0, 1))", "has not gone back through the ReLU's gate yet"),
        # the forward pass
        ("out", "np.maximum(h @ W2 + b2, 0)", "activation-after-W2 trap"),
        ("h_pre", "x @ W1", "b1 is missing"),
        ("h", "h_pre", "There is no ReLU here"),
        ("dW1", "np.einsum('bti,btj->ij', x, dh)", "needs dh_pre"),
        # a number that only fits the lesson's shapes
        (
            "dW2",
            "h.reshape(8, 32).T @ dout.reshape(8, 8)",
            "It runs on the small batch, but not on",
        ),
    ],
)
def test_each_mistake_is_named(step, text, named):
    verdict = check_line(step, text)
    assert not verdict.right and named in verdict.says, verdict.says


@pytest.mark.parametrize(
    "step, text, named",
    [
        ("db2", "dout.sum(axis=0)", "this line gives (5, 6)"),  # T, C = 5, 6
        ("db1", "dh_pre.sum(axis=1)", "this line gives (3, 10)"),  # B, H = 3, 10
        ("dW2", "np.einsum('bti,btj->btij', h, dout)", "this line gives (3, 5, 10, 6)"),
        ("dx", "dh_pre @ W1", "shape (3, 5, 10) by shape (6, 10)"),
    ],
)
def test_the_mistakes_are_named_on_the_uneven_shapes_too(step, text, named):
    verdict = check_line(step, text, cases=(UNEVEN,))
    assert not verdict.right and named in verdict.says, verdict.says


def test_h_gate_is_accepted_and_explained():
    verdict = check_line("dh_pre", "dh * (h > 0)")
    assert verdict.right and "h > 0 picks the same neurons as h_pre > 0" in verdict.says


def test_the_learner_s_gradient_check_passes_a_right_backward_pass():
    worst = own_gradient_check(ANSWERS)
    assert set(worst) == {"dW1", "db1", "dW2", "db2", "dx"}
    assert max(worst.values()) < 1e-6


@pytest.mark.parametrize(
    "step, wrong, caught",
    [
        ("dW1", "np.einsum('bti,btj->ij', x, dh)", "dW1"),  # the gate left out
        ("db2", "dout.sum(axis=(0, 1)) / 2", "db2"),
        ("dx", "dh @ W1.T", "dx"),
        ("dh_pre", "dh", "dW1"),  # a wrong dh_pre spoils what is built on it
    ],
)
def test_the_learner_s_gradient_check_fails_a_planted_wrong_backward_pass(step, wrong, caught):
    worst = own_gradient_check({**ANSWERS, step: wrong})
    assert worst[caught] > 1e-3


def test_the_check_runs_the_learner_s_lines_on_the_uneven_case_too():
    assert max(own_gradient_check(ANSWERS, UNEVEN).values()) < 1e-6


# --- by hand, over flat lists ----------------------------------------------------------


def test_the_by_hand_reference_agrees_with_the_core_s_flat_forward_pass():
    from ffn_core import ffn_forward_flat

    for D, H in (by_hand.SQUARE, by_hand.UNEVEN, (4, 3)):
        a = by_hand.arrays(D, H)
        flat = ffn_forward_flat(a["x"], a["W1"], a["b1"], a["W2"], a["b2"])
        np.testing.assert_allclose(by_hand.reference(D, H), flat, rtol=1e-12)


@pytest.mark.parametrize(
    "field, text, right, named",
    [
        ("w1_index", "i * D + k", True, "Right"),
        ("w1_index", "D * i + k", True, "Right"),
        ("w2_index", "i * H + j", True, "Right"),
        ("w2_index", "i * D + j", False, "The stride trap"),  # W1's stride for W2
        ("w1_index", "i * H + k", False, "The stride trap"),  # W2's stride for W1
        ("w1_index", "k * H + i", False, "even on the square case"),  # column-major
        ("w1_index", "i * D + k + 1", False, "outside the list's 9 entries"),
        ("w1_index", "i / 2", False, "whole number"),
        ("output", "s", True, "stays signed"),
        ("output", "relu(s)", False, "activation-after-W2 trap"),
        ("output", "np.maximum(s, 0)", False, "activation-after-W2 trap"),
        ("output", "2 * s", False, "y[i] is s itself"),
        ("output", "__import__('os')", False, "start with _"),
    ],
)
def test_the_by_hand_lines_name_the_stride_and_the_activation_traps(field, text, right, named):
    verdict = by_hand.check_field(field, text)
    assert verdict.right is right and named in verdict.says, verdict.says


def test_the_stride_trap_is_named_exactly_when_square_passes_and_uneven_fails():
    for text in ("i * D + k", "i * H + k", "k * D + i", "k * H + i", "i * k", "i + k * D"):
        lines = {name: answer for name, (_, _, answer) in by_hand.FIELDS.items()}
        lines["w1_index"] = text
        outcomes = []
        for D, H in (by_hand.SQUARE, by_hand.UNEVEN):
            try:
                outcomes.append(by_hand.runs_right(D, H, lines))
            except ValueError:
                outcomes.append(False)
        named = "stride trap" in by_hand.check_field("w1_index", text).says
        assert named == (outcomes == [True, False]), (text, outcomes)


@pytest.mark.parametrize(
    "text",
    [
        "np.where(x @ W1 > 0, np.transpose('a'), np.transpose('b'))",
        "np.sum(np.transpose((2**53, None))[:1] ** 64)",
        "((2**53,),)",
        "x[:0].mean()",
        "np.sum(x) > 0",
        "None",
        "...",
        "np",
        "relu",
        "x.shape",
    ],
)
def test_the_graders_answer_every_line_with_a_verdict(text):
    """Lines a hostile review found that made the graders raise: each gets a verdict."""
    for step in ("h_pre", "dW2", "dx"):
        assert not check_line(step, text).right
    for field in by_hand.FIELDS:
        assert not by_hand.check_field(field, text).right

"""The evaluator of typed lines (ffn_core/exercise/safe_eval.py): what it runs is what NumPy
computes, what it refuses it names, and no line escapes the allow-list or the caps."""

from __future__ import annotations

import contextlib
import string
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core.exercise import safe_eval
from ffn_core.exercise.build_ffn import check_line
from ffn_core.exercise.safe_eval import (
    MAX_ELEMENTS,
    MAX_NODES,
    MAX_WORK,
    PART,
    PRICES,
    RefusedError,
    evaluate,
    evaluate_with_notes,
    price_key,
    priced_work,
)
from harness.hostile_lines import ATTACK, COSTLY, HOSTILE, environment

ENV = environment()


def refusal(text: str, names: dict | None = None) -> str:
    with pytest.raises(RefusedError) as caught:
        evaluate(text, ENV if names is None else names)
    return str(caught.value)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x @ W1 + b1", lambda e: e["x"] @ e["W1"] + e["b1"]),
        ("np.maximum(h_pre, 0)", lambda e: np.maximum(e["h_pre"], 0)),
        ("h_pre * (h_pre > 0)", lambda e: e["h_pre"] * (e["h_pre"] > 0)),
        ("np.where(h_pre > 0, h_pre, 0.0)", lambda e: np.where(e["h_pre"] > 0, e["h_pre"], 0)),
        ("dout.sum(axis=(0, 1))", lambda e: e["dout"].sum(axis=(0, 1))),
        ("np.sum(dout, axis=0, keepdims=True)", lambda e: e["dout"].sum(0, keepdims=True)),
        ("x.reshape(B * T, C).T", lambda e: e["x"].reshape(8, 8).T),
        ("x.reshape((-1, C))[1:3, ::2]", lambda e: e["x"].reshape(-1, 8)[1:3, ::2]),
        ("x[0, :, None, ...]", lambda e: e["x"][0, :, None, ...]),
        ("x.shape[2] ** 2 // 3 % 5", lambda e: 64 // 3 % 5),
        (
            "-x.transpose(2, 0, 1).swapaxes(0, 1)",
            lambda e: -e["x"].transpose(2, 0, 1).swapaxes(0, 1),
        ),
        (
            "np.einsum('bti, btj -> ij', x, dh_pre)",
            lambda e: np.einsum("btc,bth->ch", e["x"], e["dh_pre"]),
        ),
        ("np.tanh(x) + np.exp(-x) / 2", lambda e: np.tanh(e["x"]) + np.exp(-e["x"]) / 2),
        ("(h_pre >= 0).astype(float).mean()", lambda e: (e["h_pre"] >= 0).mean()),
        ("np.heaviside(h_pre, 0) * dh", lambda e: (e["h_pre"] > 0) * e["dh"]),
        ("np.matmul(dh_pre, W1.T)", lambda e: e["dh_pre"] @ e["W1"].T),
        ("np.ones_like(b1) - np.zeros_like(b1)", lambda e: np.ones(32)),
        ("~(h_pre > 0)", lambda e: ~(e["h_pre"] > 0)),
    ],
)
def test_what_it_runs_is_what_numpy_computes(text, expected):
    np.testing.assert_allclose(evaluate(text, ENV), expected(ENV), rtol=1e-12, atol=1e-12)


def test_a_line_typed_with_its_name_runs_only_for_that_name():
    np.testing.assert_array_equal(
        evaluate("dx = dh_pre @ W1.T", ENV, "dx"), ENV["dh_pre"] @ ENV["W1"].T
    )
    assert "right-hand side" in refusal("dW1 = x")


@pytest.mark.parametrize(
    "text, named",
    [
        ("lambda: x", "a lambda"),
        ("[v for v in x]", "a list comprehension"),
        ("f'{x}'", "an f-string"),
        ("(y := x)", "an assignment inside an expression"),
        ("x if B else W1", "an if-else expression"),
        ("[x]", "a list"),
        ("x.__class__", ".__class__"),
        ("__import__('os')", "__import__"),
        ("np.load('f')", "np.load"),
        ("x.tofile('f')", ".tofile"),
        ("open('f')", "open is not defined"),
        ("np.maximum(*[x, 0])", "a starred argument"),
        ("0 < x < 1", "one pair at a time"),
        ("x.sum(out=x)", "takes no out="),
        ("х @ W1", "CYRILLIC SMALL LETTER HA"),
        ("x\u200b", "ZERO WIDTH SPACE"),
        ("10**10**9", "power is too large"),
        ("123456789012345678901234567890", "too large"),
        ("x.reshape(5, 5)", "reshape cannot make shape (5, 5)"),
        ("x @ W2", "@ cannot multiply shape (2, 4, 8) by shape (32, 8)"),
        ("x + b1", "cannot combine shapes (2, 4, 8) and (32,)"),
        ("x.sum(axis=3)", "axis 3 does not exist"),
        ("np.einsum('ij->ij', x)", "names 2 axes, but its array has shape (2, 4, 8)"),
        ("np.einsum('bti,bti->', x, h_pre)", "has size 8 in one array and 32 in another"),
        ("x" + "+x" * 150, "at most 300"),
    ],
)
def test_a_refusal_names_what_was_refused(text, named):
    assert named in refusal(text)


def test_sizes_are_refused_before_the_array_is_made():
    """A broadcast, an einsum or a product past the cap is refused from the operands'
    shapes: tracemalloc sees no array of that size made."""
    for text in (
        "h_pre[:, :, :, None, None, None] * h_pre[None, None, None]",  # 256 × 256 entries
        "np.einsum('ij,kl->ijkl', W1, W1)",  # 256² = 65,536 entries
        "np.einsum('i,j,k,l->', b1, b1, b1, b1)",  # a 32⁴ loop for one number
        "h_pre[:, :, :, None, None] * h_pre[:, :, None, :, None] * b1",  # 2 × 4 × 32³
    ):
        tracemalloc.start()
        with pytest.raises(RefusedError, match=r"at most 50,000|too much work"):
            evaluate(text, ENV)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 2 * 8 * MAX_ELEMENTS, (text, peak)


def test_a_3d_transpose_is_explained_when_it_makes_a_line_fail():
    with pytest.raises(RefusedError) as caught:
        evaluate_with_notes("h.T @ dout", ENV)
    assert any(
        "reverses all its axes: shape (2, 4, 32) becomes (32, 4, 2)" in n
        for n in caught.value.notes
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_every_hostile_line_is_refused_or_runs_within_the_caps(text):
    """Never an exception other than a refusal, never an array past the cap, and a few MB
    at most (the CPU each costs: python -m benchmarks.hostile_lines)."""
    tracemalloc.start()
    try:
        value = evaluate(text, ENV)
    except RefusedError as err:
        assert str(err)  # a message for the learner
        value = None
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 5_000_000, (text, peak)
    assert not isinstance(value, np.ndarray) or value.size <= MAX_ELEMENTS


def test_the_corpus_refuses_every_escape():
    """The lines that try to reach Python itself are all refused, not run."""
    escapes = [t for t in HOSTILE if "_" in t.split("(")[0] or "open" in t or "eval" in t]
    for text in escapes:
        with pytest.raises(RefusedError):
            evaluate(text, ENV)


ATOMS = ["x", "W1", "b1", "h_pre", "dout", "np", "B", "C", "0", "1", "2", "-1", "1e308",
         "10", "None", "...", "'bti,btj->ij'", "'ij'", "__class__", "__import__", "float",
         "True"]  # fmt: skip
GLUE = ["+", "-", "*", "/", "@", "**", "//", "%", ">", "==", "(", ")", "[", "]", ",", ":",
        ".", "T", "sum", "reshape", "einsum", "maximum", "where", "astype", "axis=",
        "keepdims=", "__dict__", "__globals__", "_", " ", "lambda", "for", "in", "if", "else",
        "=", ":="]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ATOMS + GLUE), min_size=1, max_size=30))
def test_generated_hostile_lines_never_raise_anything_but_a_refusal(parts):
    text = "".join(parts)
    try:
        value = evaluate(text, ENV)
    except RefusedError:
        return
    assert not isinstance(value, np.ndarray) or value.size <= MAX_ELEMENTS
    assert (
        type(value).__module__ in ("builtins", "numpy")
        or value is safe_eval.NP
        or isinstance(value, (safe_eval.Function, safe_eval.Method))
    )


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.printable + "хｘ\u200b\u00a0", max_size=80))
def test_any_text_at_all_is_refused_or_run_never_raising(text):
    with contextlib.suppress(RefusedError):
        evaluate(text, ENV)


@pytest.mark.parametrize(
    "text",
    [
        "np.transpose((x, None))",
        "np.transpose('abc')",
        "np.transpose(('%99999999d', None))[:1] % 1",
        "(((np.transpose((2**53, None))[:1] ** 64) ** 64) ** 32 + 1) % 7",
        "np.swapaxes('ab', 0, 0)",
        "(h, h)",
    ],
)
def test_no_line_makes_an_array_of_anything_but_numbers(text):
    """A hostile review made object and string arrays through np.transpose, and from them
    a 15 s integer tower and a 100 MB string format: refused before any of it runs."""
    with pytest.raises(RefusedError):
        evaluate(text, ENV)


def test_a_refusal_never_quotes_a_value_the_learner_made():
    from ffn_core.exercise.build_ffn import check_line

    for text in (
        "('<img src=x onerror=alert(1)>', '[a](javascript:alert(1))')",
        "np.transpose('<b>x</b>').astype(float)",
        "(" + "h," * 99 + ")",
    ):
        says = check_line("dx", text).says
        assert "<" not in says and "javascript" not in says and len(says) < 400, says


def test_issue_45_s_modulo_line_is_refused_before_it_runs_naming_what_is_costly():
    """49,152 entries of % over a 2,000-bit exponent gap, five times, added as zero to the
    right answer: graded right at 110-160 ms before % was priced; now refused from its
    shapes, and the refusal says which operation is costly."""
    said = refusal(ATTACK)
    assert "“%” on 49,152 numbers" in said and "“%” is costly here" in said, said
    verdict = check_line("h_pre", ATTACK)
    assert not verdict.right and "“%” is costly here" in verdict.says


@pytest.mark.parametrize("step", list(COSTLY))
def test_no_right_answer_carries_a_costly_term_past_the_grader(step):
    verdict = check_line(step, COSTLY[step])
    assert not verdict.right and "is costly here" in verdict.says, verdict.says


def test_a_line_s_work_is_its_entries_at_their_prices_whatever_its_numbers():
    """The work is counted from the shapes and the operations, never from a clock or the
    values: the slowest numbers cost what ordinary ones do, on any machine, every time."""
    parts = safe_eval.parts(safe_eval.parse("W1 % W1"))
    assert priced_work("W1 % W1", ENV) == parts * PART + ENV["W1"].size * PRICES["%"]
    slow, plain = "W1 * 1e306 % (W1 * 1e-310)", "W1 * 1.0 % (W1 * 1.0)"
    assert priced_work(slow, ENV) == priced_work(plain, ENV) == priced_work(slow, ENV)
    line = "np.einsum('bti,btj->ij', x, h_pre)"
    loop = 2 * 4 * 8 * 32  # b, t, i, j: one product a step
    expected = safe_eval.parts(safe_eval.parse(line)) * PART + loop * PRICES["einsum"]
    assert priced_work(line, ENV) == expected


def test_every_operation_a_line_may_run_has_a_price():
    names = [f.name for f in (*safe_eval.FUNCTIONS.values(), *safe_eval.METHODS.values())]
    symbols = [*safe_eval.SYMBOLS.values(), *safe_eval.COMPARE_SYMBOLS.values()]
    for operation in [*names, *symbols, *safe_eval.SIGNS.values(), "relu", "[]"]:
        assert price_key(operation) in PRICES, operation


def test_a_line_is_never_refused_for_its_parts_alone():
    """Parts are priced too (Python's own work), but the most parts a line may have leave
    most of the budget to its arrays."""
    assert MAX_NODES * PART <= MAX_WORK // 2


@pytest.mark.parametrize(
    "text, named",
    [
        ("W1[...,None,None]*1e308//(W1[:6]*1e-310)", "“//” is costly here"),
        ("(W1[...,None,None]*1e-310)**(1+W1[:6]*1e-16)", "“**” is costly here"),
        ("np.exp(W1[...,None,None]*0-740+W1[:6])", "np.exp is costly here"),
        ("np.tanh(W1[...,None,None]*1e-310+W1[:6]*1e-310)", "np.tanh is costly here"),
        (
            "(W1[...,None,None]*1e-160)*(W1[:6]*1e-160)*(W1[:6]*1e-160)",
            "its “*” on 49,152 numbers",
        ),
        ("np.einsum('i,j,k->ijk', b1*1e-160, b1*1e-160, b1)", "np.einsum, with 65,536"),
        ("(W1[:,:,None,None,None,None]*1e-160)@(W1[:6,:,None,None]*1e-160)", "“@”, with"),
        ("(W1[...,None,None]+W1[:6]).reshape(-1,2).max(axis=1)", ".max is costly here"),
    ],
)
def test_a_refusal_for_work_names_the_operation_that_cost_most(text, named):
    said = refusal(text)
    assert "too much work" in said and named in said, said

"""Lesson 002's fifth objective as lines to write: the gradient check.

The check, line by line, as the lesson builds it:

    L        = np.sum(out * dout)                 the loss whose gradient at out is dout
    L_plus   = nudge(W1, i, eps)                  W1[i] up by ε; the loss there
    L_minus  = nudge(W1, i, -2 * eps)             from +ε down to −ε; the loss there
    L_back   = nudge(W1, i, eps)                  W1[i] back where it was
    slope    = (L_plus - L_minus) / (2 * eps)     the centred difference
    rel      = np.abs(a - n) / np.maximum(np.abs(a) + np.abs(n), 1e-12)
    numeric  = sweep(P)                           every entry of P, centred
    worst    = (np.abs(dP - numeric) / np.maximum(np.abs(dP) + np.abs(numeric), 1e-12)).max()

A typed line stays data (ffn_core/exercise/safe_eval.py): the loops the check needs are
two named helpers of the page's own, `nudge` (one entry moved, in place, one forward pass)
and `sweep` (every entry of one parameter, centred, restored), each on the exercise's own
arrays, so their cost is the case's and known before they run (at most MAX_SWEEP entries).
`own_check` then runs the learner's `numeric` and `worst` lines on their own backward pass
(and on a planted one with a gradient transposed, which a right check flags).

Each line is graded on the cases of build_ffn, with the right values of the lines before
it, and a wrong line gets the mistake it makes named. The collapse's lines are in
collapse_lines.py.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

import numpy as np

from ffn_core.exercise.build_ffn import CASES, INPUTS, Case, Step, Verdict, reference
from ffn_core.exercise.safe_eval import (
    Function,
    RefusedError,
    charge,
    describe,
    parse,
    run_line,
)
from ffn_core.ffn import ffn_forward
from ffn_core.gradcheck import numerical_gradient

EPS = 1e-6  # the lesson's ε, in float64
INDEX = (1, 2)  # the entry of W1 the one-entry lines nudge
MAX_SWEEP = 2_048  # entries one sweep may nudge: W1 of the sidebar's toy at its caps
MAX_CALLS = 4  # nudges or sweeps in one line
PLANTED = Case("a planted bug: dW1 transposed", 2, 3, 6, 6, seed=11)  # square W1: same shape

CHECK_STEPS = (
    Step("L", "the check's loss", "A loss whose gradient at out is exactly dout: multiply "
         "and add up everything.", "np.sum(out * dout)"),
    Step("L_plus", "the loss with W1[i] up by ε", "nudge(W1, i, by) moves W1[i] by `by`, "
         "in place, and gives the loss there.", "nudge(W1, i, eps)"),
    Step("L_minus", "the loss with W1[i] down by ε", "W1[i] is still up by ε from the line "
         "above. How far must it move to sit ε below where it began?", "nudge(W1, i, -2 * eps)"),
    Step("L_back", "W1[i] put back", "Leave W1 as you found it: every later loss is measured "
         "from there.", "nudge(W1, i, eps)"),
    Step("slope", "the centred difference", "The two losses are 2ε apart along W1[i].",
         "(L_plus - L_minus) / (2 * eps)"),
    Step("rel", "relative error of a and n", "|a − n| over |a| + |n|, with the "
         "denominator kept away from 0.",
         "np.abs(a - n) / np.maximum(np.abs(a) + np.abs(n), 1e-12)"),
    Step("numeric", "every entry of P, centred", "sweep(P) runs your centred difference "
         "on every entry of P.", "sweep(P)"),
    Step("worst", "worst relative error in P", "Your rel, with dP and numeric in "
         "place of a and n, then the largest of all.",
         "(np.abs(dP - numeric) / np.maximum(np.abs(dP) + np.abs(numeric), 1e-12)).max()"),
)  # fmt: skip


class Nudged:
    """The exercise's parameters, copied so that lines may move them, and the loss."""

    def __init__(self, inputs: dict[str, np.ndarray]) -> None:
        self.params = {n: np.array(inputs[n], dtype=np.float64) for n in INPUTS}
        self.dout = inputs["dout"]
        self.start = {n: p.copy() for n, p in self.params.items()}

    def loss(self) -> float:
        p = self.params
        out, _ = ffn_forward(p["x"], p["W1"], p["b1"], p["W2"], p["b2"])
        return float(np.sum(out * self.dout))

    def which(self, array: object) -> str:
        """The name of the parameter `array` is (the page's own array, not a copy)."""
        for name, param in self.params.items():
            if array is param:
                return name
        made = "an array made from them" if isinstance(array, np.ndarray) else describe(array)
        raise RefusedError(
            f"nudge and sweep take one of the exercise's own arrays, {', '.join(INPUTS)} "
            f"(P is one of them), not {made}."
        )

    def cost(self) -> int:
        """Multiply-adds of one forward pass: what a nudge costs."""
        x, W1 = self.params["x"], self.params["W1"]
        return 2 * (x.size // x.shape[-1]) * W1.size

    def functions(self) -> dict[str, Function]:
        def counted(line) -> None:
            line.helper_calls = getattr(line, "helper_calls", 0) + 1  # this line's own count
            if line.helper_calls > MAX_CALLS:
                raise RefusedError(f"A line here nudges or sweeps at most {MAX_CALLS} times.")

        def nudge(line, args: list, kwargs: dict) -> float:
            if len(args) != 3:
                raise RefusedError("nudge takes three things: nudge(W1, i, eps).")
            param = self.params[self.which(args[0])]
            index, by = args[1], args[2]
            if not isinstance(by, (int, float, np.floating)) or isinstance(by, bool):
                raise RefusedError("nudge moves an entry by a number: nudge(W1, i, eps).")
            if not np.isfinite(by) or abs(by) > 1.0:
                raise RefusedError("nudge moves an entry by a small number, at most 1.")
            try:
                param[index]
            except (IndexError, TypeError):
                raise RefusedError(f"{index} is not an entry of shape {param.shape}.") from None
            if np.ndim(param[index]) != 0:
                raise RefusedError("nudge moves one entry: give every axis's index, as i is.")
            counted(line)
            charge(line, (), "@", self.cost())
            param[index] += by
            return self.loss()

        def sweep(line, args: list, kwargs: dict) -> np.ndarray:
            if len(args) != 1:
                raise RefusedError("sweep takes one parameter: sweep(P).")
            param = self.params[self.which(args[0])]
            if param.size > MAX_SWEEP:
                raise RefusedError(f"sweep nudges at most {MAX_SWEEP:,} entries here.")
            counted(line)  # its cost is the case's: two forward passes an entry, known here
            flat = np.arange(param.size)
            return numerical_gradient(param, self.loss, EPS, flat).reshape(param.shape)

        return {"nudge": Function("nudge", nudge), "sweep": Function("sweep", sweep)}

    def moved(self) -> dict[str, float]:
        """How far each parameter now is from where it started (its largest change)."""
        return {n: float(np.abs(p - self.start[n]).max()) for n, p in self.params.items()}


@dataclass(frozen=True)
class Setting:
    """The names a check line sees on one case, and the right value of each line."""

    case: Case
    nudged: Nudged
    names: dict
    right: dict


def right_values(case: Case) -> tuple[dict, dict]:
    """(the forward and backward pass's right values, every check line's right value) on
    `case`, worked out once per case (a sweep of W1 is 2 forward passes an entry): kept
    for the fixed cases, made again for one with arrays of its own (the sidebar's toy)."""
    if case.given is None:
        return right_values_kept(case)
    return right_values_made(case)


def right_values_made(case: Case) -> tuple[dict, dict]:
    inputs = case.inputs()
    right = reference(inputs)
    nudged = Nudged(inputs)
    W1 = nudged.params["W1"]
    values = {"L": nudged.loss()}
    for step, by in (("L_plus", EPS), ("L_minus", -2 * EPS), ("L_back", EPS)):
        W1[INDEX] += by
        values[step] = nudged.loss()
    values["slope"] = (values["L_plus"] - values["L_minus"]) / (2 * EPS)
    a = right["dW1"]
    n = numerical_gradient(W1, nudged.loss, EPS, np.arange(W1.size)).reshape(W1.shape)
    values["rel"] = np.abs(a - n) / np.maximum(np.abs(a) + np.abs(n), 1e-12)
    values["numeric"] = n
    values["worst"] = float(values["rel"].max())
    for value in (a, n, values["rel"]):
        value.setflags(write=False)
    return right, values


right_values_kept = functools.lru_cache(maxsize=8)(right_values_made)


def setting(case: Case, step: str) -> Setting:
    """The names a line may use on `case`: the exercise's inputs and out, eps and i, the
    helpers, a and n (dW1 and its numeric gradient), P and dP (W1 and dW1), and every
    check line before `step` at its right value, W1 moved as those lines left it."""
    right, values = right_values(case)
    nudged = Nudged(case.inputs())
    params = nudged.params
    names: dict = {**params, "dout": nudged.dout, "out": right["out"], "eps": EPS, "i": INDEX,
                   "a": right["dW1"], "n": values["numeric"], "P": params["W1"],
                   "dP": right["dW1"], **nudged.functions()}  # fmt: skip
    order = [s.name for s in CHECK_STEPS]
    names |= {name: values[name] for name in order[: order.index(step)]}
    if step == "L_minus":  # where the line above left W1
        params["W1"][INDEX] += EPS
    elif step == "L_back":
        params["W1"][INDEX] -= EPS
    return Setting(case, nudged, names, values)


def check_check_line(step: str, text: str, cases: tuple[Case, ...] = CASES) -> Verdict:
    """Grade `text` as the check line `step`, on every case. Never raises."""
    try:
        for case in cases:
            found = setting(case, step)
            value, _ = run_line(text, found.names, target=step)
            problem = check_problem(step, text, value, found)
            if problem:
                return Verdict(False, problem)
    except RefusedError as err:
        return Verdict(False, str(err))
    except (ValueError, TypeError, ArithmeticError) as err:
        return Verdict(False, f"This line's value cannot be compared ({type(err).__name__}).")
    return Verdict(True, "Right, on every set of shapes it was checked on.")


def calls(text: str, step: str, helper: str) -> list[ast.Call]:
    """The calls of `helper` in the line (it parses: the grader ran it)."""
    return [
        node
        for node in ast.walk(parse(text, step))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == helper
    ]


def names_in(text: str, step: str) -> set[str]:
    """The names the line reads."""
    return {node.id for node in ast.walk(parse(text, step)) if isinstance(node, ast.Name)}


def close(value: object, expected: object) -> bool:
    """Whether a line's value is the expected one, to float64's rounding."""
    value = np.asarray(value, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    same = value.shape == expected.shape
    return same and bool(np.allclose(value, expected, rtol=1e-9, atol=1e-12))


def check_problem(step: str, text: str, value: object, found: Setting) -> str:
    """What is wrong with a check line, in the grader's words, or ""."""
    right, nudged = found.right, found.nudged
    moved = nudged.moved()["W1"]
    if step == "L":
        out, dout = found.names["out"], found.names["dout"]
        if close(value, np.sum(out)):
            return (
                "This adds up out alone. The check's loss weights each output by dout "
                "(the lesson's G), so that its gradient at out is exactly dout."
            )
        if close(value, np.mean(out * dout)):
            return (
                "This is a mean: its gradient at out would be dout divided by B·T·C, "
                "not dout. Sum instead."
            )
    if step in ("L_plus", "L_minus", "L_back"):
        shifts = [c.args[2] for c in calls(text, step, "nudge") if len(c.args) == 3]
        literal = [s.value for s in shifts if isinstance(s, ast.Constant)]
        if any(isinstance(v, float) and abs(v) >= 1e-3 for v in literal):
            return (
                "ε is too large: the difference then measures the slope over a wide "
                "step, and across a ReLU's kink it is simply wrong. In float64 use about "
                "1e-6 (eps); float32 keeps about 7 digits and needs about 1e-3, which is "
                "why the check runs in float64."
            )
        if any(isinstance(v, float) and 0 < abs(v) < 1e-9 for v in literal):
            return (
                "ε is too small: the two losses then differ in their last digits only, "
                "and rounding swamps the slope. In float64 use about 1e-6 (eps)."
            )
    if step == "L_minus" and close(value, right["L"]):
        return (
            "This measures at W1[i] itself: the line above left W1[i] up by ε, so "
            "reaching ε below where it began takes a nudge of −2ε."
        )
    if step in ("L_plus", "L_minus") and not close(value, right[step]):
        return (
            f"{step} should be the loss with W1[i] {'up' if step == 'L_plus' else 'down'} "
            f"by ε from where it began; W1[i] is now {moved:.3g} from there."
        )
    if step == "L_back" and moved > 1e-15:
        return (
            f"W1[i] is left {moved:.3g} from where it began: every later loss would be "
            "measured at the wrong point. Move it back (+ε after −ε)."
        )
    if step == "slope":
        if "L" in names_in(text, step) and "L_minus" not in names_in(text, step):
            return (
                "(L_plus − L) / ε is one-sided: its error shrinks like ε, the centred "
                "difference's like ε². Use L_plus and L_minus, 2ε apart."
            )
        if close(value, 2 * right["slope"]):
            return "This is twice the slope: L_plus and L_minus are 2ε apart, not ε."
        if not close(value, right["slope"]):
            return "The centred difference is the change in loss over the distance between them."
    if step == "rel":
        problem = rel_problem(text, found)
        if problem:
            return problem
    if step == "numeric" and not close(value, right["numeric"]):
        return "sweep(P) gives the numeric gradient of P: nothing else is needed."
    if step == "worst":
        if np.ndim(value) != 0:
            return (
                "This keeps one worst per row or column: the worst over the whole "
                "parameter is .max() with no axis."
            )
        if close(value, float(right["rel"].mean())):
            return "A mean hides one bad entry among many: take the largest."
        if not close(value, right["worst"]):
            return "Take your rel with dP for a and numeric for n, then the largest of all."
    return ""


def rel_problem(text: str, found: Setting) -> str:
    """The relative error's line, also run where both gradients are 0 (a dead neuron's)."""
    names = found.names
    zeros = {**names, "a": np.zeros_like(names["a"]), "n": np.zeros_like(names["n"])}
    dead, _ = run_line(text, zeros, target="rel")
    if not np.all(np.isfinite(dead)) or np.any(np.asarray(dead) != 0):
        return (
            "Where both gradients are 0 (a dead neuron's weights), this divides 0 by 0. "
            "Keep the denominator away from 0: np.maximum(np.abs(a) + np.abs(n), 1e-12)."
        )
    value, _ = run_line(text, names, target="rel")
    if close(value, found.right["rel"]):
        return ""
    a, n = names["a"], names["n"]
    with np.errstate(all="ignore"):
        signed = (a - n) / np.maximum(a + n, 1e-12)
    if np.shape(value) == signed.shape and np.allclose(value, signed):
        return (
            "Without absolute values, a and n of opposite signs give a negative or "
            "huge ratio: use |a − n| / (|a| + |n|)."
        )
    return "The relative error is |a − n| over |a| + |n|, entry by entry."


GRADIENTS = {"dW1": "W1", "db1": "b1", "dW2": "W2", "db2": "b2", "dx": "x"}


def run_check(check: dict[str, str], found: Setting, param: str, grad: np.ndarray) -> float:
    """The learner's `numeric` and `worst` lines on one parameter and its gradient."""
    names = {**found.names, "P": found.nudged.params[param], "dP": grad}
    names["numeric"], _ = run_line(check["numeric"], names, target="numeric")
    worst, _ = run_line(check["worst"], names, target="worst")
    return float(worst)


def own_check(check: dict[str, str], mine: dict[str, np.ndarray], case: Case) -> dict[str, float]:
    """The learner's own check on their own gradients (`mine`, from their backward lines):
    the worst relative error of each, as the lesson's table gives them."""
    found = setting(case, "worst")
    return {grad: run_check(check, found, param, mine[grad]) for grad, param in GRADIENTS.items()}


def planted_check(check: dict[str, str]) -> float:
    """The learner's check on a backward pass with dW1 transposed, on a case where W1 is
    square (so the shape still fits): the worst relative error it finds (large: flagged)."""
    found = setting(PLANTED, "worst")
    transposed = reference(PLANTED.inputs())["dW1"].T
    return run_check(check, found, "W1", transposed)

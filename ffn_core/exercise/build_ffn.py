"""Lesson 002's exercise, graded line by line: the FFN's forward pass with its cache, then
its backward pass, each line a NumPy expression the learner types.

A line is checked on two cases, the lesson's (B, T, C, H = 2, 4, 8, 32) and one where no
two sizes agree, against the reference computed from the names defined before it, so a
mistake in one line does not spill into the next. A wrong line gets a grader's words:
the shape it should have, a missing sum over B and T, a transpose in the wrong place, the
ReLU's gate read from the wrong array, a bias gradient summed over the wrong axes.
Once every line is right, `own_gradient_check` runs the learner's own lines against
centred differences in float64, as the lesson does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ffn_core.activations import relu
from ffn_core.exercise.safe_eval import (
    Function,
    MatmulRefusedError,
    RefusedError,
    charge,
    describe,
    evaluate_with_notes,
)
from ffn_core.ffn import ffn_forward
from ffn_core.gradcheck import numerical_gradient, relative_error

INPUTS = ("x", "W1", "b1", "W2", "b2")
SIZES = ("B", "T", "C", "H")


@dataclass(frozen=True)
class Case:
    """One set of shapes the lines are checked on, with its seeded arrays."""

    name: str
    B: int
    T: int
    C: int
    H: int
    seed: int
    given: dict | None = field(default=None, compare=False, hash=False)  # arrays to use

    @property
    def sizes(self) -> dict[str, int]:
        return {"B": self.B, "T": self.T, "C": self.C, "H": self.H}

    def inputs(self) -> dict[str, np.ndarray]:
        """x, W1, b1, W2, b2 and dout, float64, seeded (read-only)."""
        rng = np.random.default_rng(self.seed)
        B, T, C, H = self.B, self.T, self.C, self.H
        arrays = {
            "x": rng.standard_normal((B, T, C)),
            "W1": rng.standard_normal((C, H)) * C**-0.5,
            "b1": rng.standard_normal(H) * 0.1,
            "W2": rng.standard_normal((H, C)) * H**-0.5,
            "b2": rng.standard_normal(C) * 0.1,
            "dout": rng.standard_normal((B, T, C)),
        }
        for name, value in (self.given or {}).items():  # the sidebar's toy, say
            arrays[name] = np.array(value, dtype=np.float64)
        for value in arrays.values():
            value.setflags(write=False)
        return arrays


LESSON = Case("the small batch", 2, 4, 8, 32, seed=42)
UNEVEN = Case("shapes where no two sizes agree", 3, 5, 6, 10, seed=7)
CASES = (LESSON, UNEVEN)


def reference(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every line's right value: the forward pass and its cache, then the backward pass."""
    x, W1, b1, W2, b2, dout = (inputs[n] for n in (*INPUTS, "dout"))
    h_pre = x @ W1 + b1
    h = relu(h_pre)
    out = h @ W2 + b2
    dh = dout @ W2.T
    dh_pre = dh * (h_pre > 0)
    return {
        "h_pre": h_pre,
        "h": h,
        "out": out,
        "dh": dh,
        "dh_pre": dh_pre,
        "dW2": np.einsum("bti,btj->ij", h, dout),
        "db2": dout.sum(axis=(0, 1)),
        "dW1": np.einsum("bti,btj->ij", x, dh_pre),
        "db1": dh_pre.sum(axis=(0, 1)),
        "dx": dh_pre @ W1.T,
    }


@dataclass(frozen=True)
class Mistake:
    """A wrong line the grader recognises by its value: what that line would compute,
    from the right values, and what to say."""

    compute: Callable[[dict], np.ndarray]
    says: str


def weight_mistakes(left: str, right: str) -> list[Mistake]:
    """What a wrong weight gradient looks like: dW = einsum(left, right) over b and t."""
    return [
        Mistake(
            lambda e: np.einsum("bti,btj->ij", e[left], e[right]) / (e["B"] * e["T"]),
            "This is the right sum divided by B·T: a mean. The weights are shared by every "
            "position, so each position adds its whole outer product: sum, do not average.",
        ),
        Mistake(
            lambda e: e[left][0].T @ e[right][0],
            "This sums over the first sequence only. Every sequence in the batch uses the "
            "same weights, so sum over b as well as t.",
        ),
        Mistake(
            lambda e: np.einsum("bti,btj->ij", e["h_pre"], e[right]) if left == "h" else None,
            "This multiplies h_pre, the score before the ReLU; W2 reads h, after it.",
        ),
        Mistake(
            lambda e: np.einsum("bti,btj->ij", e[left], e["dh"]) if right == "dh_pre" else None,
            "This uses dh, which has not gone back through the ReLU's gate yet; W1's gradient "
            "needs dh_pre, the gradient at W1's output.",
        ),
    ]


def bias_mistakes(grad: str) -> list[Mistake]:
    said = []
    if grad == "dh_pre":
        said.append(
            Mistake(
                lambda e: e["dh"].sum(axis=(0, 1)),
                "This sums dh, which has not gone back through the ReLU's gate yet; b1 is "
                "added before the ReLU, so its gradient sums dh_pre.",
            )
        )
    said.append(
        Mistake(
            lambda e: e[grad].mean(axis=(0, 1)),
            "This is a mean over the positions. The bias is added at every position, so its "
            "gradient is the sum: each position adds its share.",
        )
    )
    return said


MISTAKES: dict[str, list[Mistake]] = {
    "h_pre": [
        Mistake(
            lambda e: e["x"] @ e["W1"],
            "b1 is missing: each neuron adds its bias to its pre-activation.",
        ),
        Mistake(
            lambda e: relu(e["x"] @ e["W1"] + e["b1"]),
            "This is h, after the ReLU. h_pre is the score before the bend, and the backward "
            "pass needs it in the cache.",
        ),
    ],
    "h": [
        Mistake(
            lambda e: e["h_pre"],
            "There is no ReLU here: h is h_pre with every negative entry set to 0. Without "
            "the bend the two layers collapse into one matrix.",
        ),
        Mistake(
            lambda e: np.abs(e["h_pre"]),
            "This is |h_pre|: ReLU sets negative scores to 0, it does not flip them.",
        ),
    ],
    "out": [
        Mistake(
            lambda e: relu(e["h"] @ e["W2"] + e["b2"]),
            "The activation-after-W2 trap: this output is never negative. The ReLU belongs "
            "between the two layers only; the output feeds the residual x + FFN(x), and "
            "clamped at 0 it could never push a coordinate down.",
        ),
        Mistake(lambda e: e["h"] @ e["W2"], "b2 is missing."),
        Mistake(
            lambda e: e["h_pre"] @ e["W2"] + e["b2"],
            "This reads h_pre: the second layer multiplies h, after the ReLU.",
        ),
    ],
    "dh": [
        Mistake(
            lambda e: (e["dout"] @ e["W2"].T) * (e["h_pre"] > 0),
            "This is dh_pre, already through the ReLU's gate. dh is the gradient at h, "
            "before the gate: the next line applies it.",
        ),
    ],
    "dh_pre": [
        Mistake(
            lambda e: e["dh"],
            "The ReLU's gate is missing: its slope is 1 where h_pre > 0 and 0 elsewhere, so "
            "the gradient passes only where h_pre > 0.",
        ),
        Mistake(
            lambda e: e["dh"] * e["h"],
            "This multiplies by h itself. ReLU's slope is 1 where h_pre > 0 and 0 elsewhere, "
            "whatever the size of h: multiply by (h_pre > 0).",
        ),
        Mistake(
            lambda e: e["dh"] * (e["h_pre"] <= 0),
            "The gate is the wrong way round: the gradient passes where h_pre > 0, and stops "
            "where h_pre ≤ 0.",
        ),
    ],
    "dW2": weight_mistakes("h", "dout"),
    "dW1": weight_mistakes("x", "dh_pre"),
    "db2": bias_mistakes("dout"),
    "db1": bias_mistakes("dh_pre"),
    "dx": [
        Mistake(
            lambda e: e["dh"] @ e["W1"].T,
            "This uses dh, which has not gone back through the ReLU's gate yet: x reaches the "
            "loss only through h_pre = x @ W1 + b1, so its gradient comes back from dh_pre.",
        ),
    ],
}


@dataclass(frozen=True)
class Step:
    """One line of the exercise."""

    name: str
    of: str  # what it is the gradient of, or what it computes, in a few words
    hint: str
    answer: str  # the lesson's way; other spellings are accepted by value

    @property
    def backward(self) -> bool:
        return self.name.startswith("d")


STEPS = (
    Step(
        "h_pre",
        "the first layer's pre-activation",
        "The first layer: a matrix product and a bias. Which side does x go on?",
        "x @ W1 + b1",
    ),
    Step(
        "h",
        "the ReLU",
        "ReLU keeps the positive entries and sets the rest to 0. Which np function compares "
        "two arrays entry by entry?",
        "np.maximum(h_pre, 0)",
    ),
    Step("out", "the second layer", "The second layer is built like the first.", "h @ W2 + b2"),
    Step(
        "dh",
        "the gradient at h",
        "h reached out through W2. Which matrix carries the gradient back, and how must it be "
        "turned for the shapes to fit (B, T, C) → (B, T, H)?",
        "dout @ W2.T",
    ),
    Step(
        "dh_pre",
        "the gradient at h_pre",
        "ReLU's slope is 1 where its input was positive and 0 elsewhere. Which array says "
        "where that was?",
        "dh * (h_pre > 0)",
    ),
    Step(
        "dW2",
        "W2's gradient",
        "dW2 has W2's shape, (H, C). Each position adds one outer product: what W2 read, "
        "times the gradient at what it wrote. Every position shares W2. np.einsum can "
        "multiply and sum over positions in one call.",
        "np.einsum('bti,btj->ij', h, dout)",
    ),
    Step(
        "db2",
        "b2's gradient",
        "b2 is added at every position. Which axes of dout are positions?",
        "dout.sum(axis=(0, 1))",
    ),
    Step(
        "dW1",
        "W1's gradient",
        "As for dW2, one layer down: what did W1 read, and what is the gradient at what it wrote?",
        "np.einsum('bti,btj->ij', x, dh_pre)",
    ),
    Step("db1", "b1's gradient", "As for db2, one layer down.", "dh_pre.sum(axis=(0, 1))"),
    Step(
        "dx",
        "x's gradient",
        "x reached h_pre through W1. Turn W1 so the shapes fit (B, T, H) → (B, T, C).",
        "dh_pre @ W1.T",
    ),
)
NAMES = tuple(step.name for step in STEPS)


@dataclass(frozen=True)
class Verdict:
    """What the grader says about one line."""

    right: bool
    says: str


def relu_line(line, args: list, kwargs: dict) -> np.ndarray:
    """relu(a), as the lesson defines it: np.maximum(a, 0)."""
    if len(args) != 1 or not isinstance(args[0], (np.ndarray, int, float)):
        raise RefusedError("relu takes one array here: relu(h_pre).")
    charge(line, np.shape(args[0]), "relu")
    return np.maximum(args[0], 0)


RELU = Function("relu", relu_line)


def names_before(step: str, inputs: dict, right: dict, sizes: dict) -> dict:
    """What a line may use: the inputs (dout only in the backward pass), the sizes, and
    every line before it, at its right value."""
    order = NAMES.index(step)
    names = {n: inputs[n] for n in INPUTS}
    if STEPS[order].backward:
        names["dout"] = inputs["dout"]
    names |= sizes
    names |= {n: right[n] for n in NAMES[:order]}
    names["relu"] = RELU
    return names


def check_line(step: str, text: str, cases: tuple[Case, ...] = CASES) -> Verdict:
    """Grade `text` as the line `step = text`, on every case. Never raises: a value the
    grader cannot even compare is a wrong line too."""
    try:
        return grade_line(step, text, cases)
    except (ValueError, TypeError, ArithmeticError) as err:
        return Verdict(False, f"This line's value cannot be compared ({type(err).__name__}).")


def grade_line(step: str, text: str, cases: tuple[Case, ...]) -> Verdict:
    right_on: list[str] = []
    for case in cases:
        inputs = case.inputs()
        right = reference(inputs)
        env = names_before(step, inputs, right, case.sizes)
        try:
            value, notes = evaluate_with_notes(text, env, target=step)
        except RefusedError as err:
            return Verdict(False, with_notes(refusal(err, case, right_on), err.notes))
        expected = right[step]
        problem = diagnose(step, value, expected, {**env, **right}, text, case)
        if problem:
            if right_on:
                problem = (
                    f"Right on {right_on[0]}, but not on {case.name} (B, T, C, H = "
                    f"{case.B}, {case.T}, {case.C}, {case.H}): does the line use a number "
                    f"that only fits the first? Use B, T, C and H. {problem}"
                )
            return Verdict(False, with_notes(problem, notes))
        right_on.append(case.name)
    return Verdict(True, praise(step, text))


def with_notes(text: str, notes) -> str:
    return " ".join([text, *dict.fromkeys(notes)])


def refusal(err: RefusedError, case: Case, right_on: list[str]) -> str:
    said = str(err)
    if isinstance(err, MatmulRefusedError):
        left, right = err.left, err.right
        if len(left) == 2 and len(right) == 3:
            said += " Positions come first in these lines: x @ W, not W @ x."
        elif len(left) > 2 and len(right) > 2:
            said += (
                " @ between two arrays of positions multiplies position by position, and "
                "never sums over B and T: use np.einsum, or flatten the positions first, "
                "a.reshape(-1, a.shape[-1])."
            )
        elif fits(left, swapped(right)):
            said += " The right one, transposed, would fit: a transpose is missing there."
        elif fits(swapped(left), right):
            said += " The left one, transposed, would fit: is a transpose in the wrong place?"
        else:
            said += " Check which arrays this line multiplies, and in which order."
    if right_on:
        said = f"It runs on {right_on[0]}, but not on {case.name}: {said}"
    return said


def swapped(shape: tuple) -> tuple:
    """A shape with its last two axes swapped, as .T does to a matrix."""
    return (*shape[:-2], shape[-1], shape[-2]) if len(shape) > 1 else shape


def fits(left: tuple, right: tuple) -> bool:
    """Whether left @ right has shapes that fit, leading axes broadcast."""
    if len(left) < 2 or len(right) < 2 or left[-1] != right[-2]:
        return False
    try:
        np.broadcast_shapes(left[:-2], right[:-2])
    except ValueError:
        return False
    return True


def diagnose(step: str, value, expected: np.ndarray, env: dict, text: str, case: Case) -> str:
    """What is wrong with `value`, in a grader's words, or "" when it is right."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        value = np.asarray(value, dtype=np.float64)  # a sum over everything: a number
    if not isinstance(value, np.ndarray) or value.dtype == object:
        return (
            f"{step} should be an array of shape {expected.shape}; this line gives "
            f"{describe(value)}."
        )
    if value.shape != expected.shape:
        return wrong_shape(step, value, expected, env, case)
    if step == "dh_pre" and re.search(r"\bh\s*>=", text):
        return (
            "h >= 0 is true everywhere, since ReLU's output is never negative: the gate "
            "lets every gradient through. Compare with 0 strictly, or read it from h_pre."
        )
    if not np.all(np.isfinite(value)):
        return "The result holds NaN or inf: something divides by zero or overflows."
    if np.allclose(value, expected, rtol=1e-9, atol=1e-12):
        return ""
    for mistake in MISTAKES.get(step, []):
        guess = mistake.compute(env)
        if guess is not None and guess.shape == value.shape and np.allclose(value, guess):
            return mistake.says
    square = expected.ndim == 2 and expected.shape[0] == expected.shape[1]
    if square and np.allclose(value, expected.T):
        return f"This is {step} transposed."
    gap = np.abs(value - expected)
    where = tuple(int(i) for i in np.unravel_index(np.argmax(gap), gap.shape))
    return (
        f"The shape is right, {expected.shape}, but the values are not: the largest "
        f"difference is {gap.max():.3g}, at index {where}."
    )


def wrong_shape(step: str, value: np.ndarray, expected: np.ndarray, env: dict, case: Case) -> str:
    """A grader's words for a shape that is not `expected`'s."""
    got, want = value.shape, expected.shape
    B, T = case.B, case.T
    head = f"{step} should have shape {want}"
    of = {"dW1": "W1's", "dW2": "W2's", "db1": "b1's", "db2": "b2's", "dx": "x's"}.get(step)
    head += f", {of}: a gradient has the shape of its quantity" if of else ""
    head += f"; this line gives {got}."
    if got == (B, T, *want):
        return (
            f"{head} It keeps one value per position. The {'weights' if step[1] == 'W' else 'bias'}"
            " are shared by every position, so their gradient sums over B and T."
        )
    if got in ((B, *want), (T, *want)):
        kept, summed = ("B", "T") if got[0] == B else ("T", "B")
        return f"{head} It sums over {summed} only; sum over {kept} too."
    if step in ("db1", "db2"):
        if got == (1, 1, *want):
            return f"{head} keepdims=True keeps the summed axes as 1s; leave it out."
        if got == (B, T):
            return (
                f"{head} This sums over the last axis, adding up different "
                f"{'neurons' if step == 'db1' else 'coordinates'}; sum over the positions, "
                "axes 0 and 1, instead."
            )
        if got == ():
            return f"{head} This sums over everything; sum over the positions, axes 0 and 1."
    if got == want[::-1] and np.allclose(value.T, expected):
        return f"{head} It is {step} transposed: swap the two arrays' roles."
    return head


def praise(step: str, text: str) -> str:
    """Right: and what is worth knowing about this way of writing it."""
    said = "Right, on every set of shapes it was checked on."
    if step == "dh_pre" and re.search(r"\bh\s*>(?!=)", text):
        said += (
            " h > 0 picks the same neurons as h_pre > 0, since ReLU keeps exactly the "
            "positive scores. For any other activation, read the slope from h_pre, the "
            "score before the bend: GELU's output can be negative, and its slope is not a "
            "mask of h."
        )
    elif step == "dh_pre" and re.search(r"\bh_pre\s*>=", text):
        said += (
            " h_pre >= 0 differs from h_pre > 0 only where a score is exactly 0, where ReLU "
            "has no slope; either choice is fine."
        )
    return said


GRADIENTS = {"dW1": "W1", "db1": "b1", "dW2": "W2", "db2": "b2", "dx": "x"}
CHECK_EPS = 1e-6
CHECK_PASSES = 1e-5  # the lesson's correct pass gives 1e-7 or smaller


def run_lines(lines: dict[str, str], inputs: dict[str, np.ndarray], sizes: dict) -> dict:
    """The learner's own lines in order, each reading the learner's earlier values."""
    env = {**{n: inputs[n] for n in (*INPUTS, "dout")}, **sizes, "relu": RELU}
    for step in NAMES:
        value, _ = evaluate_with_notes(lines[step], env, target=step)
        env[step] = np.asarray(value, dtype=np.float64)
    return env


def own_gradient_check(lines: dict[str, str], case: Case = LESSON) -> dict[str, float]:
    """The worst relative error of each of the learner's gradients (dW1, db1, dW2, db2,
    dx) against centred differences in float64 of L = sum(out · dout), every entry."""
    inputs = case.inputs()
    mine = run_lines(lines, inputs, case.sizes)
    params = {n: np.array(inputs[n]) for n in INPUTS}  # writable copies, nudged in place
    dout = inputs["dout"]

    def loss() -> float:
        out, _ = ffn_forward(params["x"], params["W1"], params["b1"], params["W2"], params["b2"])
        return float(np.sum(out * dout))

    worst = {}
    for grad, name in GRADIENTS.items():
        param = params[name]
        numeric = numerical_gradient(param, loss, CHECK_EPS, np.arange(param.size))
        analytic = mine[grad]
        if analytic.shape != param.shape:
            worst[grad] = float("inf")
            continue
        worst[grad] = float(relative_error(analytic.reshape(-1), numeric).max(initial=0.0))
    return worst

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

from dataclasses import dataclass, field

import numpy as np

from ffn_core.activations import relu
from ffn_core.exercise.diagnoses import diagnose, praise, refusal
from ffn_core.exercise.safe_eval import Function, RefusedError, charge, evaluate_with_notes
from ffn_core.ffn import ffn_forward
from ffn_core.gradcheck import numerical_gradient, relative_error

INPUTS = ("x", "W1", "b1", "W2", "b2")


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

"""Lesson 002's third objective as lines to write: without its activation, the FFN is one
matrix. The learner writes the collapse and checks it, then puts ReLU back:

    W_eff    = W1 @ W2                            the two matrices as one
    b_eff    = b1 @ W2 + b2                       the two biases as one
    gap      = np.abs((x @ W1 + b1) @ W2 + b2 - (x @ W_eff + b_eff)).max()
    gap_relu = np.abs(out - (x @ W_eff + b_eff)).max()     with ReLU put back

Each line is graded on the cases of build_ffn with the right values of the lines before
it. A gap line must be able to fail: it is run again with W_eff wrong.
"""

from __future__ import annotations

import numpy as np

from ffn_core.exercise.build_ffn import CASES, INPUTS, Case, Step, Verdict, reference
from ffn_core.exercise.check_lines import close, names_in
from ffn_core.exercise.safe_eval import RefusedError, run_line

COLLAPSE_STEPS = (
    Step("W_eff", "the two matrices as one", "x meets W1 first, then W2.", "W1 @ W2"),
    Step("b_eff", "the two biases as one", "b1 is added before W2, so W2 carries it too.",
         "b1 @ W2 + b2"),
    Step("gap", "largest gap, no activation", "Run the two layers without the "
         "ReLU, and the one matrix, on x; the largest absolute difference.",
         "np.abs((x @ W1 + b1) @ W2 + b2 - (x @ W_eff + b_eff)).max()"),
    Step("gap_relu", "largest gap, ReLU back", "out is the FFN with its ReLU.",
         "np.abs(out - (x @ W_eff + b_eff)).max()"),
)  # fmt: skip


def collapse_setting(case: Case, step: str) -> tuple[dict, dict]:
    """The names a collapse line may use, and every collapse line's right value."""
    inputs = case.inputs()
    right = reference(inputs)
    x, W1, b1, W2, b2 = (inputs[n] for n in INPUTS)
    W_eff, b_eff = W1 @ W2, b1 @ W2 + b2
    values = {"W_eff": W_eff, "b_eff": b_eff,
              "gap": float(np.abs((x @ W1 + b1) @ W2 + b2 - (x @ W_eff + b_eff)).max()),
              "gap_relu": float(np.abs(right["out"] - (x @ W_eff + b_eff)).max())}  # fmt: skip
    order = [s.name for s in COLLAPSE_STEPS]
    names = {n: inputs[n] for n in INPUTS} | {"out": right["out"]}
    names |= {n: values[n] for n in order[: order.index(step)]}
    return names, values


def check_collapse_line(step: str, text: str, cases: tuple[Case, ...] = CASES) -> Verdict:
    """Grade `text` as the collapse line `step`, on every case. Never raises. A gap line
    must be able to fail: it is run again with W_eff wrong, and must then say so."""
    try:
        for case in cases:
            names, values = collapse_setting(case, step)
            value, _ = run_line(text, names, target=step)
            problem = collapse_problem(step, text, value, names, values)
            if problem:
                return Verdict(False, problem)
    except RefusedError as err:
        said = str(err)
        if step == "W_eff" and "W2 @ W1" in text.replace(" ", "").replace("@", " @ "):
            said += " The order: x meets W1 first, so the one matrix is W1 @ W2."
        return Verdict(False, said)
    except (ValueError, TypeError, ArithmeticError) as err:
        return Verdict(False, f"This line's value cannot be compared ({type(err).__name__}).")
    return Verdict(True, "Right, on every set of shapes it was checked on.")


def collapse_problem(step: str, text: str, value, names: dict, values: dict) -> str:
    if step == "W_eff":
        if np.shape(value) == np.shape(names["W2"] @ names["W1"]) and close(
            value, names["W2"] @ names["W1"]
        ):
            return "The order: x meets W1 first, so the one matrix is W1 @ W2, not W2 @ W1."
        return "" if close(value, values["W_eff"]) else "W_eff is W1 and W2 multiplied, in order."
    if step == "b_eff":
        if close(value, names["b2"]):
            return "b1 @ W2 is missing: b1 is added before W2, and W2 carries it too."
        return "" if close(value, values["b_eff"]) else "b_eff is b1 carried through W2, plus b2."
    if np.ndim(value) != 0:
        return "The gap is one number: the largest absolute difference, .max()."
    if step == "gap_relu":
        if close(value, values["gap_relu"]):
            return ""
        return "Compare out, the FFN with its ReLU, with x @ W_eff + b_eff."
    if float(value) > 1e-9 or "W_eff" not in names_in(text, step):
        return (
            "Without the activation the two layers and W_eff give the same output to "
            "rounding: compare (x @ W1 + b1) @ W2 + b2 with x @ W_eff + b_eff."
        )
    broken, _ = run_line(text, {**names, "W_eff": names["W_eff"] + 1.0}, target=step)
    if not float(broken) > 1e-3:
        return "This gap would not notice a wrong W_eff: compare the two outputs themselves."
    return ""

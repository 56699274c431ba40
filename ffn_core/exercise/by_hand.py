"""Lesson 000's exercise, graded: one FFN forward pass by hand over flat row-major lists.

y = W2 @ relu(W1 @ x + b1) + b2 in the W @ x convention: W1 is H × D and W2 is D × H,
each a flat list read row by row. The learner writes three things:
- where W1[i][k] sits in W1's flat list (names i, k, D, H);
- where W2[i][j] sits in W2's (names i, j, D, H);
- y[i] from s, row i of W2 times h plus b2[i] (names s and relu).

The forward pass runs with those on a square case (D = H) and an uneven one. The grader
names the two mistakes lesson 000's grader catches: one stride for both lists (the
square case passes, the uneven one fails), and an activation after W2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.exercise.safe_eval import Function, RefusedError, evaluate, parse

SQUARE = (3, 3)  # D, H
UNEVEN = (2, 5)
FIELDS = {
    "w1_index": ("W1[i][k]", ("i", "k"), "i * D + k"),
    "w2_index": ("W2[i][j]", ("i", "j"), "i * H + j"),
    "output": ("y[i]", ("s",), "s"),
}
HINTS = {
    "w1_index": "W1 has H rows of D entries each, one row after another: row i starts "
    "after i whole rows.",
    "w2_index": "W2 is D × H. Which of D and H is the length of one of its rows?",
    "output": "The bend goes between the two layers only. What does the output feed into?",
}


def relu_function() -> Function:
    def run(line, args, kwargs):
        if len(args) != 1 or not isinstance(args[0], (int, float)):
            raise RefusedError("relu takes one number here: relu(s).")
        return max(args[0], 0.0)

    return Function("relu", run)


RELU = relu_function()


@dataclass(frozen=True)
class Verdict:
    right: bool
    says: str


def arrays(D: int, H: int, seed: int = 0) -> dict[str, list[float]]:
    """x, the flat W1 and W2, b1 and b2, seeded, as plain lists."""
    rng = np.random.default_rng([seed, D, H])
    return {
        "x": rng.standard_normal(D).round(2).tolist(),
        "W1": rng.standard_normal(H * D).round(2).tolist(),
        "b1": rng.standard_normal(H).round(2).tolist(),
        "W2": rng.standard_normal(D * H).round(2).tolist(),
        "b2": rng.standard_normal(D).round(2).tolist(),
    }


def reference(D: int, H: int) -> list[float]:
    """The forward pass with NumPy's own row-major reading of the lists."""
    a = arrays(D, H)
    W1, W2 = np.reshape(a["W1"], (H, D)), np.reshape(a["W2"], (D, H))
    h = np.maximum(W1 @ a["x"] + a["b1"], 0)
    return (W2 @ h + a["b2"]).tolist()


def index_of(text: str, field: str, names: dict) -> int:
    """One flat index from the learner's expression, checked to be a whole number."""
    value = evaluate(text, names)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if isinstance(value, np.integer):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RefusedError(f"{FIELDS[field][0]}'s place in the list is a whole number.")
    return value


def forward(D: int, H: int, lines: dict[str, str]) -> list[float]:
    """The by-hand forward pass, reading each list where the learner's lines say."""
    a = arrays(D, H)
    h = []
    for i in range(H):
        total = a["b1"][i]
        for k in range(D):
            total += a["W1"][place("w1_index", lines, {"i": i, "k": k, "D": D, "H": H})] * a["x"][k]
        h.append(max(total, 0.0))
    y = []
    for i in range(D):
        s = a["b2"][i]
        for j in range(H):
            s += a["W2"][place("w2_index", lines, {"i": i, "j": j, "D": D, "H": H})] * h[j]
        y.append(output(lines["output"], s))
    return y


def place(field: str, lines: dict[str, str], names: dict) -> int:
    index = index_of(lines[field], field, names)
    size = names["D"] * names["H"]
    if not 0 <= index < size:
        at = ", ".join(f"{n} = {names[n]}" for n in FIELDS[field][1])
        raise RefusedError(
            f"At {at} (D = {names['D']}, H = {names['H']}) this gives {index}, outside the "
            f"list's {size} entries (0 to {size - 1})."
        )
    return index


def output(text: str, s: float) -> float:
    value = evaluate(text, {"s": s, "relu": RELU})
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, (int, float, np.number)) or isinstance(value, (bool, np.bool_)):
        raise RefusedError("y[i] is one number, made from s.")
    return float(value)


def runs_right(D: int, H: int, lines: dict[str, str]) -> bool:
    return bool(np.allclose(forward(D, H, lines), reference(D, H)))


def check_field(field: str, text: str) -> Verdict:
    """Grade one of the three lines, the other two taken as right. Never raises."""
    try:
        return grade_field(field, text)
    except (ValueError, TypeError, ArithmeticError) as err:
        return Verdict(False, f"This line's value cannot be used ({type(err).__name__}).")


def grade_field(field: str, text: str) -> Verdict:
    lines = {name: answer for name, (_, _, answer) in FIELDS.items()} | {field: text}
    try:
        parse(text)
        if field == "output":
            return check_output(text)
        square = runs_right(*SQUARE, lines)
    except RefusedError as err:
        return Verdict(False, str(err))
    try:
        uneven, crash = runs_right(*UNEVEN, lines), ""
    except RefusedError as err:
        uneven, crash = False, f" In the uneven case: {str(err)[0].lower()}{str(err)[1:]}"
    if square and uneven:
        return Verdict(True, "Right, on the square case and on the uneven one.")
    if square:
        name, rows, length, other = (
            ("W1", "H × D", "D", "H") if field == "w1_index" else ("W2", "D × H", "H", "D")
        )
        return Verdict(
            False,
            f"The stride trap: this passes the square case (D = H = {SQUARE[0]}) and fails "
            f"the uneven one (D = {UNEVEN[0]}, H = {UNEVEN[1]}). {name} is {rows}: each of "
            f"its rows holds {length} entries, so row i starts at i·{length}, not i·{other}. "
            f"D and H are equal in the square case, so it hides there.{crash}",
        )
    return Verdict(
        False,
        f"This reads the wrong entries even on the square case (D = H = {SQUARE[0]}): "
        "row-major means row i's entries sit together, one row after another.",
    )


def check_output(text: str) -> Verdict:
    below, above = output(text, -1.5), output(text, 2.0)
    if below == -1.5 and above == 2.0:
        return Verdict(True, "Right: the output stays signed.")
    if below == 0.0 and above == 2.0:
        return Verdict(
            False,
            "The activation-after-W2 trap: with a ReLU here the output is never negative. "
            "It feeds the residual x + FFN(x), which then could never push a coordinate "
            "down. The bend belongs between the two layers only.",
        )
    return Verdict(False, f"y[i] is s itself: this gives {above:g} for s = 2.")

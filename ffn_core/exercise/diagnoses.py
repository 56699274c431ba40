"""What a wrong line of Build it's forward and backward pass gets said of it: the mistake
its value makes (a missing bias, a mean for a sum, the ReLU's gate the wrong way round),
its shape (what it keeps that it should sum over), or the transpose a refused @ needs.
Each is found by recomputing the mistake from the right values (ffn_core/exercise/
build_ffn.py grades; this names).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ffn_core.activations import relu
from ffn_core.exercise.safe_eval import MatmulRefusedError, RefusedError, describe

if TYPE_CHECKING:
    from ffn_core.exercise.build_ffn import Case


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

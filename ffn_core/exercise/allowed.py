"""The operations a typed line may run beyond +, - and the like: @, and np's functions and
an array's methods, each checking its arguments and charging its work (line.charge)
before it runs, so nothing is made that was not priced first.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ffn_core.exercise.line import (
    Function,
    Line,
    RefusedError,
    as_operand,
    broadcast,
    charge,
    count,
    describe,
    shape_of,
)


def matmul(left: object, right: object, line: Line, operation: str = "@") -> np.ndarray:
    a, b = shape_of(left), shape_of(right)
    if not a or not b:
        raise RefusedError("@ multiplies arrays, not plain numbers: use * for a number.")
    inner_a = a[-1]
    inner_b = b[-2] if len(b) > 1 else b[0]
    if inner_a != inner_b:
        raise MatmulRefusedError(a, b)
    out = a[:-1] if len(b) == 1 else None
    if out is None:
        batch = broadcast([a[:-2], b[:-2]], "@'s leading axes") if len(a) > 1 else b[:-2]
        out = (*batch, *(a[-2:-1] if len(a) > 1 else ()), b[-1])
    charge(line, out, operation, max(count(out), count(out) * inner_a))  # inner size 0 writes 0s
    return np.matmul(left, right)


class MatmulRefusedError(RefusedError):
    """@ between shapes whose inner sizes differ: the grader says which transpose fits."""

    def __init__(self, left: tuple, right: tuple):
        self.left, self.right = left, right
        inner = right[-2] if len(right) > 1 else right[0]
        which = "second-to-last" if len(right) > 1 else "only"
        super().__init__(
            f"@ cannot multiply shape {left} by shape {right}: the left's last axis "
            f"({left[-1]}) must match the right's {which} axis ({inner})."
        )


# --- the functions a line may call -----------------------------------------------------


def arrays(args: list, name: str, n: int) -> list:
    if len(args) != n:
        raise RefusedError(
            f"{name} takes {n} argument{'s' if n > 1 else ''} here, got {len(args)}."
        )
    return [as_operand(a, name) for a in args]


def elementwise(function, name: str, n: int = 1):
    def run(line: Line, args: list, kwargs: dict):
        values = arrays(args, name, n)
        shape = broadcast([shape_of(v) for v in values], name)
        charge(line, shape, name)
        return function(*values)

    return Function(name, run)


def like(function, name: str):
    def run(line: Line, args: list, kwargs: dict):
        (value,) = arrays(args, name, 1)
        charge(line, shape_of(value), name)
        return function(value, dtype=np.float64)

    return Function(name, run)


def axes(axis: object, ndim: int, name: str) -> tuple[int, ...] | None:
    """A reduction's axis= as a tuple of axes within `ndim`, or None for all."""
    if axis is None:
        return None
    parts = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in parts):
        raise RefusedError(f"{name}'s axis is a whole number or a tuple of them.")
    if any(not -ndim <= a < ndim for a in parts):
        raise RefusedError(f"{name}'s axis {axis} does not exist on a {ndim}-D array.")
    if len({a % ndim for a in parts}) != len(parts):
        raise RefusedError(f"{name}'s axis {axis} names one axis twice.")
    return tuple(parts)


def reduction(function, name: str):
    def run(line: Line, args: list, kwargs: dict):
        if len(args) != 1:
            raise RefusedError(f"{name} takes one array here; give the axes with axis=.")
        (value,) = arrays(args, name, 1)
        value = np.asarray(value)
        axis = axes(kwargs.get("axis"), value.ndim, name)
        keepdims = kwargs.get("keepdims", False)
        if not isinstance(keepdims, bool):
            raise RefusedError(f"{name}'s keepdims is True or False.")
        charge(line, (), name, value.size)  # per entry read: the result is never larger
        return function(value, axis=axis, keepdims=keepdims)

    return Function(name, run, frozenset({"axis", "keepdims"}))


def reshape(line: Line, args: list, kwargs: dict):
    array, sizes = args[0], args[1:]
    if len(sizes) == 1 and isinstance(sizes[0], tuple):
        sizes = list(sizes[0])
    if not sizes or not all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        raise RefusedError("reshape takes whole numbers: reshape(B * T, C) or reshape((B * T, C)).")
    if sum(s == -1 for s in sizes) > 1 or any(s < -1 for s in sizes):
        raise RefusedError("reshape takes sizes of at least 0, and at most one -1.")
    charge(line, array.shape, ".reshape")  # a view, or a copy of the same size
    try:
        return array.reshape(sizes)
    except ValueError:
        raise RefusedError(
            f"reshape cannot make shape {tuple(sizes)} from {array.shape}: "
            f"{array.size} entries must stay {array.size}."
        ) from None


def astype(line: Line, args: list, kwargs: dict):
    if len(args) != 2 or args[1] not in (np.float64, np.bool_, np.int64):
        raise RefusedError("astype takes float (or bool, or int) here: .astype(float).")
    charge(line, args[0].shape, ".astype")
    return args[0].astype(args[1])


def array_arg(value: object, name: str) -> np.ndarray:
    """A function's array argument: an array of numbers, nothing made from other values."""
    if not isinstance(value, np.ndarray):
        raise RefusedError(f"{name} takes an array here, not {describe(value)}.")
    return value


def transpose(line: Line, args: list, kwargs: dict):
    array, order = array_arg(args[0], "transpose"), args[1:]
    if len(order) == 1 and isinstance(order[0], tuple):
        order = list(order[0])
    if order and sorted(a % array.ndim if isinstance(a, int) else -1 for a in order) != list(
        range(array.ndim)
    ):
        raise RefusedError(f"transpose takes each of the {array.ndim} axes once, in a new order.")
    charge(line, (), "transpose", 0)  # a view: PART is its cost
    return array.transpose(order or None)


def swapaxes(line: Line, args: list, kwargs: dict):
    if len(args) != 3:
        raise RefusedError("swapaxes takes two axes: a.swapaxes(-1, -2).")
    array = array_arg(args[0], "swapaxes")
    axes(tuple(args[1:]), array.ndim, "swapaxes")
    charge(line, (), "swapaxes", 0)  # a view: PART is its cost
    return array.swapaxes(args[1], args[2])


EINSUM = re.compile(r"^([a-z]+(?:,[a-z]+)*)->([a-z]*)$")


def einsum(line: Line, args: list, kwargs: dict):
    """np.einsum with explicit output ("bti,btj->ij"), its whole loop counted as work."""
    if not args or not isinstance(args[0], str):
        raise RefusedError("np.einsum starts with its subscripts: np.einsum('bti,btj->ij', a, b).")
    spec = args[0].replace(" ", "")
    match = EINSUM.match(spec)
    if not match:
        raise RefusedError(
            "np.einsum's subscripts are letters for each array's axes, commas between "
            "arrays, and -> before the result's: 'bti,btj->ij'."
        )
    inputs, output = match.group(1).split(","), match.group(2)
    operands = args[1:]
    if len(operands) != len(inputs):
        raise RefusedError(f"The subscripts name {len(inputs)} arrays; {len(operands)} were given.")
    sizes: dict[str, int] = {}
    for letters, operand in zip(inputs, operands, strict=True):
        if not isinstance(operand, np.ndarray):
            raise RefusedError(f"np.einsum multiplies arrays, not {describe(operand)}.")
        if len(letters) != operand.ndim:
            raise RefusedError(
                f"'{letters}' names {len(letters)} axes, but its array has shape {operand.shape}."
            )
        for letter, size in zip(letters, operand.shape, strict=True):
            if sizes.setdefault(letter, size) != size:
                raise RefusedError(
                    f"Axis '{letter}' has size {sizes[letter]} in one array and {size} in another."
                )
    if len(set(output)) != len(output) or not set(output) <= set(sizes):
        raise RefusedError("The result's letters must each appear once, and in an input.")
    out = tuple(sizes[letter] for letter in output)
    charge(line, out, "np.einsum", einsum_steps(count(out), math.prod(sizes.values()), operands))
    return np.einsum(spec, *operands, optimize=False)


def einsum_steps(out: int, loop: int, operands: list) -> int:
    """What np.einsum is charged for: each step of its loop once per product it makes
    there (each may end subnormal), or each entry of its result when that is more."""
    return max(out, loop * max(1, len(operands) - 1))


def where(line: Line, args: list, kwargs: dict):
    values = arrays(args, "np.where", 3)
    shape = broadcast([shape_of(v) for v in values], "np.where")
    charge(line, shape, "np.where")
    return np.where(*values)


FUNCTIONS = {
    "maximum": elementwise(np.maximum, "np.maximum", 2),
    "minimum": elementwise(np.minimum, "np.minimum", 2),
    "heaviside": elementwise(np.heaviside, "np.heaviside", 2),
    "exp": elementwise(np.exp, "np.exp"),
    "tanh": elementwise(np.tanh, "np.tanh"),
    "abs": elementwise(np.abs, "np.abs"),
    "sign": elementwise(np.sign, "np.sign"),
    "sqrt": elementwise(np.sqrt, "np.sqrt"),
    "where": Function("np.where", where),
    "ones_like": like(np.ones_like, "np.ones_like"),
    "zeros_like": like(np.zeros_like, "np.zeros_like"),
    "sum": reduction(np.sum, "np.sum"),
    "mean": reduction(np.mean, "np.mean"),
    "einsum": Function("np.einsum", einsum),
    "transpose": Function("np.transpose", transpose),
    "swapaxes": Function("np.swapaxes", swapaxes),
    "matmul": Function(
        "np.matmul", lambda line, args, kwargs: matmul(*two(args), line, "np.matmul")
    ),
}
METHODS = {
    "sum": reduction(np.sum, ".sum"),
    "mean": reduction(np.mean, ".mean"),
    "max": reduction(np.max, ".max"),
    "min": reduction(np.min, ".min"),
    "reshape": Function(".reshape", reshape),
    "astype": Function(".astype", astype),
    "transpose": Function(".transpose", transpose),
    "swapaxes": Function(".swapaxes", swapaxes),
}


def two(args: list) -> list:
    if len(args) != 2:
        raise RefusedError(f"np.matmul takes 2 arrays here, got {len(args)}.")
    return [as_operand(a, "np.matmul") for a in args]

"""What a typed line is, holds and costs: its limits, the values it may hold (numbers,
arrays of numbers, np's allowed functions), and its work, priced before each operation
runs (ffn_core/exercise/safe_eval.py walks the line; allowed.py runs its operations).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

import numpy as np

MAX_CHARS = 300  # a line of the exercise is one expression; the longest answer is ~45
MAX_NODES = 200  # parts of the expression
MAX_ELEMENTS = 50_000  # entries of any one array the line makes (400 kB in float64)
MAX_WORK = 10_000_000  # the whole line's work, in plain float adds (PRICES)
MAX_DEPTH = 40  # parts nested in parts
MAX_INT = 2**53  # the largest integer a line may write or make
MAX_STRING = 40  # an einsum subscript string


class RefusedError(ValueError):
    """A line that is not run, or stopped before an array too large was made."""

    notes: tuple[str, ...] = ()  # what the line did before it was refused, worth saying


SYMBOLS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}
SYMBOLS |= {ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@"}
COMPARE_SYMBOLS = {ast.Gt: ">", ast.Lt: "<", ast.GtE: ">=", ast.LtE: "<=", ast.Eq: "=="}
COMPARE_SYMBOLS |= {ast.NotEq: "!="}
SIGNS = {ast.USub: "-x", ast.UAdd: "+x", ast.Invert: "~x"}


class NumPy:
    """What `np` stands for in a line: a namespace of FUNCTIONS, nothing else."""

    def __repr__(self) -> str:
        return "np"


NP = NumPy()
DTYPES = {"float": np.float64, "np.float64": np.float64, "bool": np.bool_, "int": np.int64}


@dataclass
class Function:
    """An allowed call: `run(evaluator, args, kwargs)` checks sizes, then computes."""

    name: str
    run: object
    keywords: frozenset = frozenset()


@dataclass
class Method:
    """An array's method, bound to its array."""

    array: np.ndarray
    function: Function


@dataclass
class Line:
    """What a line needs besides its text: the names it may use (arrays, numbers and
    FUNCTIONS-like helpers of the page), and what it has cost so far."""

    names: dict
    work: int = 0  # in plain float adds: see PRICES
    costliest: tuple[int, str, int] = (0, "", 0)  # (work, operation, entries): named if refused
    notes: list[str] = field(default_factory=list)  # things worth saying even if it runs


def is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def as_operand(value: object, where: str) -> np.ndarray | int | float | bool:
    """An array or a number, or a refusal naming what it got."""
    if isinstance(value, (np.ndarray, bool, np.bool_)) or is_number(value):
        return value
    raise RefusedError(f"{where} needs arrays or numbers, not {describe(value)}.")


def describe(value: object) -> str:
    if value is NP:
        return "np itself"
    if isinstance(value, (Function, Method)) or callable(value):
        return "a function (call it with brackets)"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} items"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return f"the truth value {bool(value)}"
    if isinstance(value, type):
        return f"the type {value.__name__}"
    return type(value).__name__


def shape_of(value: object) -> tuple[int, ...]:
    return np.shape(value)


def count(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


# What one entry of each operation costs at worst, in plain float adds (one entry of a sum
# of two flat arrays of ordinary float64 numbers), whatever its numbers and however its
# operands are laid out: the worst case `python -m benchmarks.op_prices` finds, rounded up
# with room for a run on a busier machine (its "covered" column checks them).
# An operation is charged its entries (its result's; a reduction's operand's; @'s
# multiply-adds; einsum's loop steps) times its price before it runs, and each part of the
# line PART, so a line at MAX_WORK costs at most about MAX_WORK plain adds.
PRICES = {
    # the operators
    "+": 25,  # rows of two entries NumPy cannot merge into one loop: its overhead per entry
    "-": 25,  # as +
    "*": 100,  # a subnormal operand, in rows of two: a microcode assist per entry
    "/": 100,  # as *, for a quotient
    "//": 7_000,  # a huge number over a subnormal one: fmod walks the 2,000-bit exponent gap
    "%": 7_000,  # as //
    "**": 1_500,  # a subnormal number to a power near 1, in rows of two
    "@": 250,  # per multiply-add: 50,000 products of 1 × 1, each its own, ending subnormal
    "matmul": 250,  # np.matmul: as @
    **dict.fromkeys((">", "<", ">=", "<=", "==", "!="), 25),  # as +: rows of two
    "-x": 25,  # a sign in front, as +
    "+x": 25,
    "~x": 25,
    "[]": 0,  # indexing makes a view, nothing copied: PART is its cost
    # np's functions and an array's methods, by name
    "maximum": 25,  # as +: rows of two
    "minimum": 25,
    "relu": 25,  # np.maximum(a, 0), the page's relu()
    "heaviside": 150,  # truth values, turned into floats a buffer at a time, transposed
    "abs": 25,  # as +
    "sign": 25,
    "exp": 600,  # results that end subnormal (-745 to -708): its slow path per entry
    "tanh": 600,  # tanh of subnormal numbers: an assist per entry
    "sqrt": 150,  # sqrt of subnormal numbers: an assist per entry
    "where": 60,  # three operands in rows of two
    "ones_like": 25,  # as +, though it only writes
    "zeros_like": 25,
    "sum": 40,  # per entry read: rows of two, each its own sum
    "mean": 70,  # as sum, and a division per row
    "max": 500,  # per entry read: rows of two holding NaN, each its own reduction
    "min": 500,
    "einsum": 250,  # per loop step and product: operands whose products stay subnormal
    "transpose": 0,  # a view: PART is its cost
    "swapaxes": 0,
    "reshape": 25,  # a copy of an array it cannot view, in rows of two
    "astype": 40,  # truth values to floats, in rows of two
}
PART = 25_000  # each part of the line: Python parses it, walks to it, checks it, calls NumPy


def price_key(operation: str) -> str:
    """PRICES's key for an operation as a line writes it: np.exp and .sum by their names."""
    return operation.removeprefix("np.").removeprefix(".")


def charge(line: Line, shape: tuple[int, ...], operation: str, entries: int | None = None) -> None:
    """Before `operation` runs: refuse a result of `shape` past MAX_ELEMENTS, then charge
    its work (`entries`, or the result's entries, at its price) and refuse the line once
    its work passes MAX_WORK."""
    size = count(shape)
    if size > MAX_ELEMENTS:
        raise RefusedError(
            f"This line would make an array of shape {shape}, {size:,} numbers; at most "
            f"{MAX_ELEMENTS:,} here. The exercise's arrays are far smaller: is an axis "
            "broadcast against another by mistake?"
        )
    entries = size if entries is None else entries
    work = entries * PRICES[price_key(operation)]
    line.work += work
    if work > line.costliest[0]:
        line.costliest = (work, operation, entries)
    if line.work > MAX_WORK:
        raise RefusedError(too_much_work(line))


COSTLY = 100  # a price from which a refusal calls its operation costly


def too_much_work(line: Line) -> str:
    """A refusal for work, naming the operation that cost most."""
    work, operation, entries = line.costliest
    if not work:  # parts alone: not reached while MAX_NODES * PART is below MAX_WORK
        return f"This line has too many parts to run here (more than {MAX_WORK:,} additions)."
    quoted = {*SYMBOLS.values(), *COMPARE_SYMBOLS.values(), *SIGNS.values()}
    said = f"“{operation}”" if operation in quoted else operation
    if price_key(operation) in ("@", "matmul", "einsum"):
        what = f"its {said}, with {entries:,} multiplications,"
    else:
        what = f"its {said} on {entries:,} numbers"
    text = (
        f"This line does too much work to run here: {what} counts as {work:,} additions, "
        f"and the whole line may do {MAX_WORK:,}."
    )
    price = PRICES[price_key(operation)]
    if price >= COSTLY:
        text += (
            f" {said} is costly here: on some numbers (very large beside very small, say, "
            f"or very close to zero) one takes as long as {price:,} additions."
        )
    return text + " The exercise's lines need far less."


def broadcast(shapes: list[tuple[int, ...]], what: str) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        listed = " and ".join(str(s) for s in shapes)
        raise RefusedError(
            f"{what} cannot combine shapes {listed}: NumPy lines shapes up from the right, "
            "and each pair of sizes must be equal or 1."
        ) from None


def check_int(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        raise RefusedError("A number in this line grows past 2⁵³: too large here.")
    return value


# What a construct is called in a refusal.
CONSTRUCTS = {
    "Lambda": "a lambda",
    "ListComp": "a list comprehension",
    "SetComp": "a set comprehension",
    "DictComp": "a dict comprehension",
    "GeneratorExp": "a generator expression",
    "JoinedStr": "an f-string",
    "FormattedValue": "an f-string",
    "NamedExpr": "an assignment inside an expression (:=)",
    "IfExp": "an if-else expression",
    "BoolOp": "and / or",
    "List": "a list (use a tuple, in round brackets)",
    "Dict": "a dict",
    "Set": "a set",
    "Starred": "a starred argument (*)",
    "Await": "await",
    "Yield": "yield",
    "YieldFrom": "yield",
}
BINARY = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.FloorDiv: np.floor_divide,
    ast.Mod: np.mod,
    ast.Pow: np.power,
}
COMPARE = {
    ast.Gt: np.greater,
    ast.Lt: np.less,
    ast.GtE: np.greater_equal,
    ast.LtE: np.less_equal,
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
}


def integer_op(op: ast.operator, left: int, right: int) -> int | float:
    """Python integers stay exact, within bounds: no 10**10**9."""
    if isinstance(op, ast.Pow) and (right > 64 or abs(left) > 2**32):
        if right < 0:
            return float(left) ** right if left else float("inf")
        raise RefusedError("This power is too large here (an integer power at most 64).")
    if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
        raise RefusedError("This line divides by zero.")
    python = {
        ast.Add: lambda a, b: a + b,
        ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b,
        ast.FloorDiv: lambda a, b: a // b,
        ast.Mod: lambda a, b: a % b,
        ast.Pow: lambda a, b: a**b,
    }[type(op)]
    return check_int(python(left, right))

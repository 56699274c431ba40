"""A line a visitor typed, run as data: a small NumPy language, checked before it runs.

`evaluate(text, names)` parses one expression with Python's `ast` and walks it itself.
Nothing is handed to `eval`, `exec` or `compile`, and nothing reaches a Python object the
allow-list does not name:

- names the page defines (`names`) and `np`; numbers, short strings (einsum's subscripts),
  tuples, `None`, `True` and `False`;
- `+ - * / // % @ **`, unary `-` and `~`, and one comparison at a time;
- indexing and slicing with integers, slices, `None` and `...`;
- the attributes and calls in ATTRIBUTES and FUNCTIONS, each with its own arguments.

Every result's size is known before it is made: an operation's shape is worked out from
its operands' shapes, and refused past MAX_ELEMENTS. Its work is known before it runs too:
its entries times its price (PRICES: what one entry costs at worst, whatever the numbers,
in plain float adds), plus PART for each part of the line, and the line is refused
once its work passes MAX_WORK. The count depends only on the line and its operands'
shapes, never on a clock, so a line grades the same however busy the machine is, and no
line costs more than a few milliseconds or a few MB. A refusal is `RefusedError`, with a
message in the learner's words that names what was refused.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
import warnings
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


def evaluate(text: str, names: dict, target: str | None = None) -> object:
    """The value of `text` with `names` defined; `target = ...` before it is allowed when
    `target` is given. Raises RefusedError with a message for the learner."""
    value, _ = evaluate_with_notes(text, names, target)
    return value


def evaluate_with_notes(text: str, names: dict, target: str | None = None):
    """`evaluate`, and the notes gathered on the way (a 3-D array's .T, for example)."""
    value, line = run_line(text, names, target)
    return value, line.notes


def priced_work(text: str, names: dict, target: str | None = None) -> int:
    """The work `text` is charged when it runs with `names`, in plain float adds (PRICES);
    RefusedError if it is refused."""
    return run_line(text, names, target)[1].work


def run_line(text: str, names: dict, target: str | None = None) -> tuple[object, Line]:
    """The value of `text`, and its Line: its work and notes."""
    tree = parse(text, target)
    line = Line(dict(names), work=parts(tree) * PART)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty slice's mean, say: the value says it
            value = walk(tree, line)
    except RefusedError as err:
        err.notes = tuple(line.notes)  # a 3-D array's .T, say, explains many a refusal
        raise
    except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError) as err:
        kind = type(err).__name__  # NumPy's own words may quote values: not shown
        raise RefusedError(f"NumPy cannot run this line ({kind}).") from None
    except (RecursionError, MemoryError):
        raise RefusedError("This line is too deep or too large to run here.") from None
    return value, line


def parse(text: str, target: str | None = None) -> ast.expr:
    """The expression of one line, after the checks that need no evaluation."""
    if not isinstance(text, str):
        raise RefusedError("Type an expression.")
    text = text.strip()
    if not text:
        raise RefusedError("Type an expression.")
    if len(text) > MAX_CHARS:
        raise RefusedError(f"The line is {len(text)} characters long; at most {MAX_CHARS} here.")
    for char in text:
        if not (char.isascii() and (char.isprintable() or char == " ")):
            name = unicodedata.name(char, "a control character")
            raise RefusedError(
                f"The line has “{char}” ({name}), which may look like a plain letter or "
                "sign but is not one: type it with a plain keyboard."
            )
    if target and re.match(rf"^{re.escape(target)}\s*=(?!=)", text):
        text = text.split("=", 1)[1].strip()  # "h = ..." typed in full
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and the like: said below
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval").body
    except SyntaxError as err:
        where = f" at character {err.offset}" if err.offset else ""
        if re.match(r"^[A-Za-z_]\w*\s*=(?!=)", text):
            raise RefusedError(
                "Type only the right-hand side: the name on the left is given."
            ) from None
        raise RefusedError(f"Python cannot read this line{where}: {err.msg}.") from None
    except (ValueError, RecursionError, MemoryError):
        raise RefusedError("Python cannot read this line.") from None
    if parts(tree) > MAX_NODES:
        raise RefusedError(f"The line has more than {MAX_NODES} parts; the answer needs far fewer.")
    if depth(tree) > MAX_DEPTH:
        raise RefusedError(f"The line nests more than {MAX_DEPTH} parts deep.")
    return tree


def parts(tree: ast.AST) -> int:
    """How many parts (nodes) the expression has."""
    return sum(1 for _ in ast.walk(tree))


def depth(node: ast.AST) -> int:
    """How deep the expression nests (iteratively: a deep line cannot exhaust the stack)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def walk(node: ast.AST, line: Line) -> object:
    """The value of one part of the expression."""
    kind = type(node).__name__
    handler = HANDLERS.get(type(node))
    if handler is None:
        raise RefusedError(f"This page does not run {CONSTRUCTS.get(kind, kind)}.")
    return numbers_only(handler(node, line))


NUMERIC = "biuf"  # bool, int, unsigned and float arrays: never strings or Python objects


def numbers_only(value: object) -> object:
    """Refuse any array or NumPy scalar that is not numbers or truth values, whatever
    made it, and any Python integer past the bound: a line computes with numbers."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind not in NUMERIC:
        raise RefusedError("A line here computes with numbers only.")
    return check_int(value)


def constant(node: ast.Constant, line: Line) -> object:
    value = node.value
    if isinstance(value, bool) or value is None or value is Ellipsis:
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise RefusedError(f"The number {str(value)[:20]}… is too large here (at most 2⁵³).")
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise RefusedError(f"A string here is at most {MAX_STRING} characters.")
        return value
    raise RefusedError(f"This page does not run a {type(value).__name__} constant.")


def name(node: ast.Name, line: Line) -> object:
    if node.id.startswith("_"):
        raise RefusedError(f"Names that start with _ are not available here ({node.id}).")
    if node.id == "np":
        return NP
    if node.id in ("float", "bool", "int"):
        return DTYPES[node.id]
    if node.id in line.names:
        return line.names[node.id]
    known = ", ".join(line.names)
    raise RefusedError(f"{node.id} is not defined here. You can use: {known} and np.")


def tuple_(node: ast.Tuple, line: Line) -> tuple:
    """A tuple of axes, sizes or index parts: whole numbers, slices, None and ... only."""
    if len(node.elts) > 16:
        raise RefusedError("A tuple here holds at most 16 items.")
    items = tuple(walk(item, line) for item in node.elts)
    for item in items:
        whole = isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))
        if not (whole or item is None or item is Ellipsis or isinstance(item, slice)):
            raise RefusedError(
                "A tuple here holds axes, sizes or index parts (whole numbers, slices, None, "
                "...), not arrays or other values."
            )
    return tuple(int(i) if isinstance(i, np.integer) else i for i in items)


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


def binop(node: ast.BinOp, line: Line) -> object:
    symbol = SYMBOLS.get(type(node.op), type(node.op).__name__)
    left = as_operand(walk(node.left, line), f"“{symbol}”")
    right = as_operand(walk(node.right, line), f"“{symbol}”")
    if isinstance(node.op, ast.MatMult):
        return matmul(left, right, line)
    op = BINARY.get(type(node.op))
    if op is None:
        raise RefusedError(f"This page does not run the operator {symbol}.")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right)):
        charge(line, (), symbol)
        return integer_op(node.op, left, right)
    shape = broadcast([shape_of(left), shape_of(right)], f"“{symbol}”")
    charge(line, shape, symbol)
    return op(left, right)


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


def unaryop(node: ast.UnaryOp, line: Line) -> object:
    value = as_operand(walk(node.operand, line), "A sign")
    charge(line, shape_of(value), SIGNS.get(type(node.op), "-x"))
    if isinstance(node.op, ast.USub):
        return -value if not isinstance(value, bool) else -int(value)
    if isinstance(node.op, ast.UAdd):
        return +value
    if isinstance(node.op, ast.Invert) and isinstance(value, np.ndarray) and value.dtype == bool:
        return ~value
    raise RefusedError("This page runs - and + in front of a value, and ~ on a true/false array.")


def compare(node: ast.Compare, line: Line) -> object:
    if len(node.ops) != 1:
        raise RefusedError("Compare one pair at a time (a < b, not a < b < c).")
    op = COMPARE.get(type(node.ops[0]))
    if op is None:
        raise RefusedError("This page compares with > < >= <= == and != only.")
    left = as_operand(walk(node.left, line), "A comparison")
    right = as_operand(walk(node.comparators[0], line), "A comparison")
    shape = broadcast([shape_of(left), shape_of(right)], "A comparison")
    charge(line, shape, COMPARE_SYMBOLS[type(node.ops[0])])
    return op(left, right)


def subscript(node: ast.Subscript, line: Line) -> object:
    value = walk(node.value, line)
    if not isinstance(value, (np.ndarray, tuple)):
        raise RefusedError(f"Only arrays and shapes can be indexed here, not {describe(value)}.")
    index = walk(node.slice, line)
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if not (
            part is None
            or part is Ellipsis
            or isinstance(part, slice)
            or (isinstance(part, int) and not isinstance(part, bool))
        ):
            raise RefusedError(
                f"Index with whole numbers, slices (a:b), None and ... only, not {describe(part)}."
            )
    if isinstance(value, tuple) and not isinstance(index, (int, slice)):
        raise RefusedError("A shape is indexed with one number or one slice.")
    if sum(part is None for part in parts) > 8:
        raise RefusedError("Too many new axes (None) in one index.")
    try:
        result = value[index]  # basic indexing: a view, never larger than its array
    except (IndexError, TypeError) as err:
        raise RefusedError(f"This index does not fit shape {shape_of(value)}: {err}.") from None
    charge(line, (), "[]", 0)  # a view, or one entry: PART is its cost
    return result


def slice_(node: ast.Slice, line: Line) -> slice:
    parts = [None if p is None else walk(p, line) for p in (node.lower, node.upper, node.step)]
    for part in parts:
        if part is not None and (not isinstance(part, int) or isinstance(part, bool)):
            raise RefusedError(f"A slice's bounds are whole numbers, not {describe(part)}.")
    if parts[2] == 0:
        raise RefusedError("A slice's step cannot be 0.")
    return slice(*parts)


def attribute(node: ast.Attribute, line: Line) -> object:
    if node.attr.startswith("_"):
        raise RefusedError(f"Attributes that start with _ are not available here (.{node.attr}).")
    owner = walk(node.value, line)
    if owner is NP:
        if node.attr == "float64":
            return np.float64
        if node.attr in FUNCTIONS:
            return FUNCTIONS[node.attr]
        raise RefusedError(
            f"np.{node.attr} is not available here. From np you can use: "
            f"{', '.join(sorted(FUNCTIONS))}."
        )
    if isinstance(owner, np.ndarray):
        if node.attr == "T":
            if owner.ndim > 2:
                line.notes.append(
                    f"`.T` on a {owner.ndim}-D array reverses all its axes: shape "
                    f"{owner.shape} becomes {owner.shape[::-1]}."
                )
            return owner.T
        if node.attr in ("shape", "ndim", "size"):
            return getattr(owner, node.attr)
        if node.attr in METHODS:
            return Method(owner, METHODS[node.attr])
        raise RefusedError(
            f".{node.attr} is not available here. An array offers: .T, .shape, .ndim, "
            f".size, {', '.join('.' + m for m in sorted(METHODS))}."
        )
    raise RefusedError(f"{describe(owner).capitalize()} has no attribute .{node.attr} here.")


def call(node: ast.Call, line: Line) -> object:
    target = walk(node.func, line)
    if isinstance(target, Method):
        function, args = target.function, [target.array]
    elif isinstance(target, Function):
        function, args = target, []
    elif isinstance(target, type) or target is np.float64:
        raise RefusedError("Types are used in .astype(float) only.")
    else:
        raise RefusedError(
            f"Only np's functions and an array's methods can be called, not {describe(target)}."
        )
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise RefusedError("This page does not run a starred argument (*).")
    args += [walk(a, line) for a in node.args]
    kwargs = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise RefusedError("This page does not run ** in a call.")
        if keyword.arg not in function.keywords:
            allowed = ", ".join(sorted(function.keywords)) or "none"
            raise RefusedError(
                f"{function.name} takes no {keyword.arg}= here (allowed: {allowed})."
            )
        kwargs[keyword.arg] = walk(keyword.value, line)
    return function.run(line, args, kwargs)


HANDLERS = {
    ast.Constant: constant,
    ast.Name: name,
    ast.Tuple: tuple_,
    ast.BinOp: binop,
    ast.UnaryOp: unaryop,
    ast.Compare: compare,
    ast.Subscript: subscript,
    ast.Slice: slice_,
    ast.Attribute: attribute,
    ast.Call: call,
}


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

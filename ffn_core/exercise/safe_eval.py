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

Three modules: this one reads and walks a line; ffn_core/exercise/line.py holds what a
line is and costs (its limits, its values, PRICES and `charge`); allowed.py the
operations and functions it may call. The names other modules use are all here.
"""

from __future__ import annotations

import ast
import re
import unicodedata
import warnings

import numpy as np

from ffn_core.exercise.allowed import FUNCTIONS, METHODS, MatmulRefusedError, matmul
from ffn_core.exercise.line import (
    BINARY,
    COMPARE,
    COMPARE_SYMBOLS,
    CONSTRUCTS,
    COSTLY,
    DTYPES,
    MAX_CHARS,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_INT,
    MAX_NODES,
    MAX_STRING,
    MAX_WORK,
    NP,
    PART,
    PRICES,
    SIGNS,
    SYMBOLS,
    Function,
    Line,
    Method,
    RefusedError,
    as_operand,
    broadcast,
    charge,
    check_int,
    describe,
    integer_op,
    price_key,
    shape_of,
)

__all__ = [  # what the other modules and the tests read from here
    "BINARY", "COMPARE_SYMBOLS", "COSTLY", "FUNCTIONS", "MAX_CHARS", "MAX_DEPTH", "MAX_ELEMENTS",
    "MAX_INT", "MAX_NODES", "MAX_STRING", "MAX_WORK", "METHODS", "NP", "PART", "PRICES",
    "SIGNS", "SYMBOLS", "Function", "Line", "MatmulRefusedError", "Method", "RefusedError",
    "charge", "describe", "evaluate", "evaluate_with_notes", "parse", "parts",
    "price_key", "priced_work", "run_line",
]  # fmt: skip


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

"""What each operation a typed line may run costs at worst, per entry, against a plain float
add measured in the same run: the evidence for ffn_core/exercise/safe_eval.py's PRICES.

    python -m benchmarks.op_prices

Every operation runs on arrays of up to MAX_ELEMENTS entries (the most a line may make),
on values chosen to be slow (exponents far apart for % and //, subnormal operands and
results for the products, exp's and tanh's edges, NaN and inf, integers and truth values)
and in layouts chosen to be slow (rows of two entries that cannot be merged, a transposed
operand, a broadcast one, a number). Binary operations are first tried on every pair of
values on a smaller array, and the worst few remeasured at full size in every layout.

For each key of safe_eval.PRICES it prints the worst case's nanoseconds per entry, its ratio
to a plain add (two flat arrays of ordinary float64 numbers: the unit of safe_eval's work),
the price safe_eval charges, and whether the price covers the ratio. Rerun it on another
machine to check the prices there: a ratio above its price means that price is too low.
Takes a minute or two, on one BLAS thread as the app's server runs.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.op_values import (
    BOOLS,
    EINSUM_VALUES,
    EINSUMS,
    FLOATS,
    INTS,
    MATMUL_VALUES,
    MATMULS,
    OVERHEAD_TERMS,
    VALUES,
    N,
    matrix,
    rng,
)
from benchmarks.timing import best_time
from ffn_core.exercise import safe_eval
from ffn_core.exercise.safe_eval import MAX_WORK, PART, PRICES

SEARCH = 10_000  # the pair search's array: the worst pairs are remeasured at N
WORST_PAIRS = 4


@dataclass(frozen=True)
class Result:
    key: str  # safe_eval.PRICES's key
    case: str  # what was slow
    ns: float  # per entry


def per_entry(fn: Callable[[], object], entries: int) -> float:
    """Nanoseconds per entry of `fn`: the best of at least three calls, and of more while
    they are quick (the other work on a shared machine makes single calls slow)."""
    fn()
    best, spent, runs = math.inf, 0.0, 0
    while runs < 3 or (runs < 25 and spent < 0.02):
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best, spent, runs = min(best, elapsed), spent + elapsed, runs + 1
    return best / max(entries, 1) * 1e9


def attempt(fn: Callable[[], object], entries: int) -> float | None:
    """per_entry, or None when NumPy refuses these operands (safe_eval refuses them too)."""
    try:
        return per_entry(fn, entries)
    except (TypeError, ValueError, ZeroDivisionError):
        return None


# --- layouts: the same values, arranged so NumPy's loops run their slowest ----------------


def rows_of_two(values: np.ndarray) -> np.ndarray:
    """(n/2, 2) from a (n/2, 3) array: rows of two that NumPy cannot merge into one loop."""
    half = values.size // 2
    wide = np.empty((half, 3), dtype=values.dtype)
    wide[:, :2] = values[: 2 * half].reshape(half, 2)
    wide[:, 2] = values[:half]
    return wide[:, :2]


def layouts(operands: list[np.ndarray]) -> Iterator[tuple[str, list]]:
    """(name, operands) for each layout of 1-D operands of n entries."""
    n = operands[0].size
    yield "flat", operands
    yield "rows of two", [rows_of_two(v) for v in operands]
    rows = 250 if n % 250 == 0 else 1
    yield (
        "transposed",
        [operands[0].reshape(rows, -1).T] + [v.reshape(-1, rows) for v in operands[1:]],
    )
    if len(operands) > 1:
        half = n // 2
        yield (
            "broadcast",
            [operands[0][:half, None]] + [v[None, :2] for v in operands[1:]],
        )
        yield "a number", [operands[0]] + [v[0] for v in operands[1:]]


def elementwise(key: str, function, arity: int, values: dict[str, np.ndarray]) -> Result:
    """The worst of `function` over every combination of `values`, then every layout."""
    names = list(values)
    combos = [(a,) for a in names] if arity == 1 else [(a, b) for a in names for b in names]
    if arity == 3:
        combos = [("truth values", a, b) for a, b in combos] + [
            (c, a, a) for c in ("ordinary numbers", "NaN") for a in names
        ]
    searched = []
    for combo in combos:
        operands = [values[name][:SEARCH] for name in combo]
        ns = attempt(lambda ops=operands: function(*ops), SEARCH)
        if ns is not None:
            searched.append((ns, combo))
    searched.sort(reverse=True)
    worst = Result(key, "", 0.0)
    for _, combo in searched[:WORST_PAIRS]:
        for layout, operands in layouts([values[name] for name in combo]):
            entries = int(np.prod(np.broadcast_shapes(*(np.shape(o) for o in operands))))
            ns = attempt(lambda ops=operands: function(*ops), entries)
            if ns is not None and ns > worst.ns:
                worst = Result(key, f"{' and '.join(combo)}, {layout}", ns)
    return worst


def reductions(key: str, function) -> Result:
    """Per entry read: every value, whole or along short rows or columns."""
    worst = Result(key, "", 0.0)
    for name, values in VALUES.items():
        cases = {
            "all of it": (values, None),
            "rows of two": (values.reshape(-1, 2), 1),
            "rows of one": (values.reshape(-1, 1), 1),
            "columns of two": (values.reshape(2, -1), 0),
            "rows of two, not merged": (rows_of_two(values), None),
            "transposed, along rows": (values.reshape(250, -1).T, 1),
        }
        for layout, (array, axis) in cases.items():
            ns = attempt(lambda a=array, ax=axis: function(a, axis=ax), array.size)
            if ns is not None and ns > worst.ns:
                worst = Result(key, f"{name}, {layout}", ns)
    return worst


def conversions() -> list[Result]:
    """.astype to float, bool and int, and .reshape's copy of an array it cannot view."""
    astype, reshape = Result("astype", "", 0.0), Result("reshape", "", 0.0)
    for name, values in VALUES.items():
        for layout, (array,) in layouts([values]):
            for dtype in (np.float64, np.bool_, np.int64):
                ns = attempt(lambda a=array, d=dtype: a.astype(d), array.size)
                if ns is not None and ns > astype.ns:
                    astype = Result("astype", f"{name} to {dtype.__name__}, {layout}", ns)
            ns = attempt(lambda a=array: a.reshape(-1), array.size)
            if ns is not None and ns > reshape.ns:
                reshape = Result("reshape", f"{name}, {layout}", ns)
    return [astype, reshape]


def likes() -> list[Result]:
    results = []
    for key, function in (("ones_like", np.ones_like), ("zeros_like", np.zeros_like)):
        worst = Result(key, "", 0.0)
        for name, values in VALUES.items():
            for layout, (array,) in layouts([values]):
                ns = per_entry(lambda a=array, f=function: f(a, dtype=np.float64), array.size)
                if ns > worst.ns:
                    worst = Result(key, f"{name}, {layout}", ns)
        results.append(worst)
    return results


def matmuls() -> Result:
    """Per multiply-add (at least one per entry of the result), as safe_eval charges @."""
    worst = Result("@", "", 0.0)
    for layout, (left_shape, right_shape) in MATMULS.items():
        for name, (left_kind, right_kind) in MATMUL_VALUES.items():
            left, right = matrix(left_shape, *left_kind), matrix(right_shape, *right_kind)
            if layout == "a transposed matrix":
                left = left.T.copy().T
                right = right.T
            out = np.matmul(left, right)
            entries = max(out.size, out.size * left_shape[-1])
            ns = per_entry(lambda a=left, b=right: np.matmul(a, b), entries)
            if ns > worst.ns:
                worst = Result("@", f"{layout}, {name}", ns)
    return worst


def einsums() -> Result:
    """Per step of einsum's loop and product (or per entry of its result), as charged."""
    worst = Result("einsum", "", 0.0)
    for layout, (spec, shapes) in EINSUMS.items():
        inputs, output = spec.split("->")[0].split(","), spec.split("->")[1]
        sizes = {}
        for letters, shape in zip(inputs, shapes, strict=True):
            sizes |= dict(zip(letters, shape, strict=True))
        out = math.prod(sizes[c] for c in output)
        entries = safe_eval.einsum_steps(out, math.prod(sizes.values()), shapes)
        for name, kind in EINSUM_VALUES.items():
            operands = [matrix(shape, *kind(i)) for i, shape in enumerate(shapes)]
            ns = per_entry(lambda s=spec, ops=operands: np.einsum(s, *ops, optimize=False), entries)
            if ns > worst.ns:
                worst = Result("einsum", f"{layout}, {name}", ns)
    return worst


def where() -> Result:
    return elementwise("where", np.where, 3, FLOATS | INTS | BOOLS)


def longest(term: str) -> str:
    """`term` + `term` + ..., as many times as a line may hold."""
    copies = 1
    while True:
        text = "+".join([term] * (copies + 1))
        try:
            safe_eval.parse(text)
        except safe_eval.RefusedError:
            return "+".join([term] * copies)
        copies += 1


def part_overhead(names: dict) -> tuple[float, str]:
    """The worst nanoseconds one part of a line costs beyond its entries (Python parsing
    it, walking to it, checking shapes, calling NumPy), on lines of tiny operations."""
    worst, which = 0.0, ""
    lines = {label: longest(term) for label, term in OVERHEAD_TERMS.items()}
    lines["signs"] = "-" * (safe_eval.MAX_DEPTH - 2) + "x"
    for label, text in lines.items():
        parts = safe_eval.parts(safe_eval.parse(text))
        ns = per_entry(lambda t=text: safe_eval.run_line(t, names), parts)
        if ns > worst:
            worst, which = ns, label
    return worst, which


def cases() -> Iterator[Callable[[], Result | list[Result]]]:
    """Each measurement, not yet run: one operation's worst case (or a few operations')."""
    for symbol, function in safe_eval.BINARY.items():
        yield lambda s=symbol, f=function: elementwise(safe_eval.SYMBOLS[s], f, 2, VALUES)
    for symbol, function in safe_eval.COMPARE.items():
        yield lambda s=symbol, f=function: elementwise(safe_eval.COMPARE_SYMBOLS[s], f, 2, VALUES)
    yield lambda: elementwise("-x", np.negative, 1, VALUES)
    yield lambda: elementwise("+x", np.positive, 1, VALUES)
    yield lambda: elementwise("~x", np.invert, 1, BOOLS)
    yield lambda: elementwise("relu", lambda a: np.maximum(a, 0), 1, VALUES)
    for name in ("maximum", "minimum", "heaviside"):
        yield lambda n=name: elementwise(n, getattr(np, n), 2, VALUES)
    for name in ("exp", "tanh", "abs", "sign", "sqrt"):
        yield lambda n=name: elementwise(n, getattr(np, n), 1, VALUES)
    yield where
    yield likes
    for name in ("sum", "mean", "max", "min"):
        yield lambda n=name: reductions(n, getattr(np, n))
    yield conversions
    yield matmuls
    yield einsums


def main() -> None:
    from harness.hostile_lines import environment

    threadpool_limits(limits=1, user_api="blas")
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    plain_a, plain_b = FLOATS["ordinary numbers"], rng.standard_normal(N)

    def plain_add() -> float:
        return best_time(lambda: np.add(plain_a, plain_b), min_seconds=0.05) / N * 1e9

    # The plain add is the unit, and the most sensitive to other work on the machine (a
    # busy sibling core halves its speed): measured between the cases, its fastest kept.
    adds, results = [plain_add()], []
    for measure in cases():
        found = measure()
        results += found if isinstance(found, list) else [found]
        adds.append(plain_add())
    unit = min(adds)
    overhead, which = part_overhead(environment())

    print(f"{date.today()}: the worst nanoseconds per entry of each operation a line may run")
    print(
        f"plain add (two flat arrays of {N:,} ordinary float64 numbers): {unit:.3f} ns an "
        f"entry (the fastest of {len(adds)} measured between the cases; the slowest "
        f"{max(adds):.3f})"
    )
    print()
    print("| operation | worst ns / entry | × plain add | price | covered | worst case |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    per_unit = 0.0  # the most nanoseconds one unit of priced work took
    for result in results:
        ratio = result.ns / unit
        price = PRICES[safe_eval.price_key(result.key)]
        per_unit = max(per_unit, result.ns / price)
        covered = "yes" if ratio <= price else "**no**"
        print(
            f"| {result.key} | {result.ns:.2f} | {ratio:,.1f} | {price:,} | {covered} | "
            f"{result.case} |"
        )
    ratio = overhead / unit
    covered = "yes" if ratio <= PART else "**no**"
    print(
        f"| each part of a line (PART) | {overhead:.0f} | {ratio:,.0f} | "
        f"{PART:,} | {covered} | a line of {which} |"
    )
    per_unit = max(per_unit, overhead / PART)
    print()
    print(
        f"One unit of priced work took at most {per_unit:.3f} ns ({per_unit / unit:.2f} × a "
        f"plain add; above 1, a price is too low): a line at MAX_WORK ({MAX_WORK:,}) costs "
        f"at most {MAX_WORK * per_unit / 1e6:.2f} ms here."
    )


if __name__ == "__main__":
    main()

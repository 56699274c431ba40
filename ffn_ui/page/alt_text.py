"""A figure in words: the numbers that matter, read from the figure's own traces.

    describe(fig)  ->  "ReLU: lowest 0 at z = −4, highest 4 at z = 4. GELU: lowest −0.17 …"

ffn_ui.page.display.show writes it under every figure, so a screen reader (or anyone who wants
the numbers) gets what the picture shows. It is read from the arrays Plotly draws, so it
cannot drift from the figure. Long lists name their first MOST items and count the rest.
A figure whose shapes say more than its traces (a shaded half-plane) brings its own
words, built from the same arrays, as layout.meta = {"alt": "..."}.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.words import MOST, count, listed, number

MOST_TRACES = 8  # traces described; a figure with more says how many are left out
BARS = 12  # bars named one by one; past that, the largest and the smallest


def label(value) -> str:
    """An axis category or coordinate as text."""
    if isinstance(value, str):
        return value
    return number(value)


def axis_title(fig: go.Figure, trace, letter: str) -> str:
    """The title of the axis a trace is drawn on, or '' if it has none."""
    name = getattr(trace, f"{letter}axis", None) or letter
    axis = fig.layout[f"{letter}axis{name[1:]}"]
    return (axis.title.text or "") if axis is not None else ""


def at(fig: go.Figure, trace, x) -> str:
    """Where on the x axis: 'at z = −0.75', or 'at −0.75' when the axis has a long title."""
    title = axis_title(fig, trace, "x")
    return f"at {title} = {label(x)}" if title and len(title) <= 12 else f"at {label(x)}"


def positions(values, n: int) -> list:
    """A trace's x or y: its own values, or 0, 1, … when Plotly was given none."""
    return list(values) if values is not None else list(range(n))


def describe(fig: go.Figure) -> str:
    """One sentence per trace, after the figure's title."""
    sentences = []
    title = fig.layout.title.text
    if title:
        sentences.append(f"{title}.")
    if isinstance(fig.layout.meta, dict) and "alt" in fig.layout.meta:
        return " ".join([*sentences, fig.layout.meta["alt"]])
    traces = [t for t in fig.data if t.type in DESCRIBERS]
    if len(traces) > MOST_TRACES:  # the last one is kept: often the sum the others make
        left_out = len(traces) - MOST_TRACES
        traces = [*traces[: MOST_TRACES - 1], traces[-1]]
        sentences.append(f"(Below, {left_out} of the series are left out.)")
    for trace in traces:
        sentences.append(DESCRIBERS[trace.type](fig, trace))
    return " ".join(s for s in sentences if s)


def grid(fig: go.Figure, trace) -> str:
    """A heatmap or contour: its size, which cells are blank, what the cells say, and where
    the largest and smallest values are."""
    z = np.asarray(trace.z, dtype=np.float64)
    z = z if z.ndim == 2 else z[None, :]
    rows, cols = positions(trace.y, z.shape[0]), positions(trace.x, z.shape[1])
    row_title, col_title = axis_title(fig, trace, "y"), axis_title(fig, trace, "x")
    scaled = trace.showscale is not False  # False: the colours are categories, not values
    what = trace.colorbar.title.text or "value"
    size = [count(len(rows), "row", row_title), count(len(cols), "column", col_title)]
    parts = [f"A grid of {what}, {size[0]} by {size[1]}"]
    shown = np.isfinite(z)
    if not shown.all():
        counts = [
            f"{label(r)}: {n} of the {len(cols)} drawn"
            for r, n in zip(rows, shown.sum(1), strict=True)
        ]
        parts.append(f"coloured cells per row (the rest are blank): {listed(counts)}")
    text = np.asarray(trace.text if trace.text is not None else [], dtype=object)
    marked = text.reshape(z.shape) != "" if text.size == z.size else None
    if marked is not None and not np.array_equal(marked, ~shown):  # not just blank-cell dots
        parts.append(cell_texts(text.reshape(z.shape), cols))
    zeros = int(np.sum(z[shown] == 0))
    if zeros and scaled:
        parts.append(f"{zeros:,} of {z.size:,} cells are exactly 0")  # counts in full
    if shown.any() and scaled:
        values = z[shown]
        if values.min() == values.max():
            parts.append(f"every coloured cell is {number(values[0])}")
        else:
            for word, pick, fill in (
                ("largest", np.argmax, -np.inf),
                ("smallest", np.argmin, np.inf),
            ):
                r, c = np.unravel_index(pick(np.where(shown, z, fill)), z.shape)
                where = cell(rows[r], cols[c], row_title, col_title)
                parts.append(f"{word} {number(z[r, c])} at {where}")
    return "; ".join(parts) + "."


def cell(row, col, row_title: str, col_title: str) -> str:
    """Where a cell is: "token 2: cat, hidden neuron n7" for named rows and columns, and
    "(gate, up) = (3, −3)", x first, for a grid over numbers."""
    if not isinstance(row, str) and not isinstance(col, str):
        names = f"({col_title or 'x'}, {row_title or 'y'}) = " if col_title or row_title else ""
        return f"{names}({label(col)}, {label(row)})"
    return ", ".join(f"{t} {label(v)}".strip() for t, v in ((row_title, row), (col_title, col)))


def cell_texts(text: np.ndarray, cols: list) -> str:
    """What the cells' own words say: cell by cell along a single row, else counted."""
    if text.shape[0] == 1:
        cells = [f"{label(c)}: {t}" for c, t in zip(cols, text[0], strict=True) if str(t).strip()]
        return f"cells read {listed(cells)}"
    words, counts = np.unique([str(t) for t in text.ravel() if str(t).strip()], return_counts=True)
    return "cells marked " + listed([f"{w} {n}" for w, n in zip(words, counts, strict=True)])


def bar_series(fig: go.Figure, trace) -> str:
    """Bars: every value when there are few, else the largest and smallest; bins on a
    number axis (a histogram): the tallest."""
    horizontal = trace.orientation == "h"
    values = np.asarray(trace.x if horizontal else trace.y, dtype=np.float64)
    names = positions(trace.y if horizontal else trace.x, len(values))
    lead = f"{trace.name}: " if trace.name else "Bars: "
    if len(values) and values.min() == values.max():
        return f"{lead}{len(values)} bars, every one {number(values[0])}."
    order = np.argsort(-values, kind="stable")
    if not all(isinstance(n, str) for n in names):  # bars at numbers on an axis: bins
        tallest = [f"at {label(names[i])}: {number(values[i])}" for i in order[:3]]
        return f"{lead}{len(values)} bins; the tallest {', '.join(tallest)}."
    pairs = [f"{n} ({number(v)})" for n, v in zip(names, values, strict=True)]
    if len(values) <= BARS:
        return lead + ", ".join(pairs) + "."
    top = ", ".join(pairs[i] for i in order[:3])
    bottom = ", ".join(pairs[i] for i in order[::-1][:2])
    return f"{lead}{len(values)} bars; largest {top}; smallest {bottom}."


def points(fig: go.Figure, trace) -> str:
    """A line: its lowest and highest points. Markers: each point when there are few, else
    how many, their range on each axis, and the range of their colour scale."""
    y = np.asarray(trace.y, dtype=np.float64)
    x = positions(trace.x, len(y))
    name = trace.name or "points"
    if not np.isfinite(y).any():
        return f"{name}: no finite values."
    if "lines" in (trace.mode or "lines") and len(y) > 2:
        ends = [extreme(fig, trace, x, y, word, pick) for word, pick in EXTREMES]
        return f"{name}: {ends[0]}, {ends[1]}."
    coordinates = [f"({label(a)}, {number(b)})" for a, b in zip(x, y, strict=True)]
    if len(y) <= MOST:
        return f"{name}: {', '.join(coordinates)}."
    colour = trace.marker.color if trace.marker is not None else None
    sentence = f"{name}: {len(y)} points"
    numbered = [("y", y)]
    if not any(isinstance(v, str) for v in x):  # not categories
        numbered.insert(0, ("x", np.asarray(x, dtype=np.float64)))
    for letter, values in numbered:
        title = axis_title(fig, trace, letter) or letter
        sentence += f", {title} from {number(np.nanmin(values))} to {number(np.nanmax(values))}"
    if colour is not None and not isinstance(colour, str):
        shade = np.asarray(colour, dtype=np.float64)
        bar = trace.marker.colorbar.title.text or "colour"
        sentence += f", {bar} from {number(shade.min())} to {number(shade.max())}"
    return sentence + "."


EXTREMES = (("lowest", np.nanmin), ("highest", np.nanmax))


def extreme(fig: go.Figure, trace, x: list, y: np.ndarray, word: str, pick) -> str:
    """Where a line is lowest or highest: at one place (lowest −0.17 at z = −0.75), over a
    flat stretch (lowest 0 from z = −4 to 0), or at separate places (at −2.7 and 2.7)."""
    hits = np.flatnonzero(y == pick(y))
    where = at(fig, trace, x[hits[0]])
    if len(hits) > 1 and hits[-1] - hits[0] == len(hits) - 1:  # one stretch
        where = where.replace("at ", "from ", 1) + f" to {label(x[hits[-1]])}"
    elif len(hits) > 1:
        where += f" and {listed([label(x[i]) for i in hits[1:]])}"
    return f"{word} {number(y[hits[0]])} {where}"


DESCRIBERS = {
    "heatmap": grid,
    "contour": grid,
    "bar": bar_series,
    "scatter": points,
    "scattergl": points,
}

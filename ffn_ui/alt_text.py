"""A figure in words: the numbers that matter, read from the figure's own traces.

    describe(fig)  ->  "ReLU: lowest 0 at z = −4, highest 4 at z = 4. GELU: lowest −0.17 …"

ffn_ui.display.show writes it under every figure, so a screen reader (or anyone who wants
the numbers) gets what the picture shows. It is read from the arrays Plotly draws, so it
cannot drift from the figure. Long lists name their first MOST items and count the rest.
A figure whose shapes say more than its traces (a shaded half-plane) brings its own
words, built from the same arrays, as layout.meta = {"alt": "..."}.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

MOST = 6  # items a list names before it says how many more there are
MOST_TRACES = 8  # traces described; a figure with more counts the rest


def number(value: float) -> str:
    """3 significant digits, and a real minus sign, which screen readers say as "minus"."""
    value = float(value)
    if value == 0:
        return "0"
    return f"{value:.3g}".replace("-", "−")


def label(value) -> str:
    """An axis category or coordinate as text."""
    if isinstance(value, str):
        return value
    return number(value)


def listed(items: list[str]) -> str:
    """'a, b, c' or 'a, b, c and 4 more'."""
    shown = ", ".join(items[:MOST])
    return shown if len(items) <= MOST else f"{shown} and {len(items) - MOST} more"


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
    for trace in traces[:MOST_TRACES]:
        sentences.append(DESCRIBERS[trace.type](fig, trace))
    if len(traces) > MOST_TRACES:
        sentences.append(f"And {len(traces) - MOST_TRACES} more series.")
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
        counts = [f"{label(r)} {n} of {len(cols)}" for r, n in zip(rows, shown.sum(1), strict=True)]
        parts.append(f"cells coloured per row (the rest are blank): {listed(counts)}")
    text = np.asarray(trace.text if trace.text is not None else [], dtype=object)
    marked = text.reshape(z.shape) != "" if text.size == z.size else None
    if marked is not None and not np.array_equal(marked, ~shown):  # not just blank-cell dots
        parts.append(cell_texts(text.reshape(z.shape), cols))
    if shown.any() and scaled:
        for word, pick, fill in (("largest", np.argmax, -np.inf), ("smallest", np.argmin, np.inf)):
            r, c = np.unravel_index(pick(np.where(shown, z, fill)), z.shape)
            where = f"{row_title} {label(rows[r])}, {col_title} {label(cols[c])}"
            parts.append(f"{word} {number(z[r, c])} at {where.strip()}")
    return "; ".join(parts) + "."


def count(n: int, noun: str, title: str = "") -> str:
    """A count and its noun, with the axis's title if it has one: 1 row, 5 rows (token)."""
    text = f"{n} {noun}" if n == 1 else f"{n} {noun}s"
    return f"{text} ({title})" if title else text


def cell_texts(text: np.ndarray, cols: list) -> str:
    """What the cells' own words say: cell by cell along a single row, else counted."""
    if text.shape[0] == 1:
        cells = [f"{label(c)}: {t}" for c, t in zip(cols, text[0], strict=True)]
        return f"cells read {listed(cells)}"
    words, counts = np.unique([str(t) for t in text.ravel() if str(t).strip()], return_counts=True)
    return "cells marked " + listed([f"{w} {n}" for w, n in zip(words, counts, strict=True)])


def bar_series(fig: go.Figure, trace) -> str:
    """Bars: every value when there are few, else the largest and smallest."""
    horizontal = trace.orientation == "h"
    values = np.asarray(trace.x if horizontal else trace.y, dtype=np.float64)
    names = positions(trace.y if horizontal else trace.x, len(values))
    lead = f"{trace.name}: " if trace.name else "Bars: "
    if all(isinstance(n, str) for n in names):
        pairs = [f"{n} ({number(v)})" for n, v in zip(names, values, strict=True)]
    else:  # bars at numbers on an axis (a histogram's bins)
        pairs = [f"at {label(n)}: {number(v)}" for n, v in zip(names, values, strict=True)]
    if len(values) <= MOST:
        return lead + ", ".join(pairs) + "."
    order = np.argsort(-values, kind="stable")
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
        low, high = int(np.nanargmin(y)), int(np.nanargmax(y))
        return (
            f"{name}: lowest {number(y[low])} {at(fig, trace, x[low])}, "
            f"highest {number(y[high])} {at(fig, trace, x[high])}."
        )
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


DESCRIBERS = {
    "heatmap": grid,
    "contour": grid,
    "bar": bar_series,
    "scatter": points,
    "scattergl": points,
}

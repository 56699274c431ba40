"""The plain charts several pages use: bars, grouped bars, a histogram, a matrix
heatmap, curves and log-scale lines."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import (
    COLOURS,
    FIRED,
    SEQUENTIAL,
    SILENT,
    SILENT_CELL,
    ZERO_LINE,
    curve,
    diverging,
    f32,
    figure,
    heatmap_trace,
    largest,
    line_at,
)
from ffn_ui.words import number


def bars(
    labels: list[str],
    values,
    title: str,
    value_name: str,
    colours=None,
    horizontal=False,
    highlight: int | None = None,
    level: float | None = None,
    level_name: str = "uniform load",
) -> go.Figure:
    """One bar per label with its exact value on hover; `highlight` outlines one bar, and
    a dashed line marks `level`, named `level_name`."""
    values = f32(values)
    bar = go.Bar(
        x=values if horizontal else labels,
        y=labels if horizontal else values,
        orientation="h" if horizontal else "v",
        marker_color=colours if colours is not None else COLOURS[0],
        hovertemplate=(
            f"%{{y}}: {value_name} %{{x:.4g}}" if horizontal else f"%{{x}}: {value_name} %{{y:.4g}}"
        )
        + "<extra></extra>",
    )
    if highlight is not None:
        widths = np.zeros(len(labels), np.float32)
        widths[highlight] = 3
        bar.marker.line = {"color": "black", "width": widths}
    if horizontal:
        axes = {"yaxis": {"autorange": "reversed", "type": "category"}}
    else:
        axes = {"xaxis": {"type": "category"}}
    height = max(300, 40 + 24 * len(labels)) if horizontal else 320
    marks = {}
    if level is not None:
        label = dict(x=1, xref="x domain", y=level, text=level_name, showarrow=False)
        marks = {"shapes": [line_at(y=level, dash="dash")], "annotations": [label]}
    return figure([bar], height, title=title, **axes, **marks)


def class_answers(answers: list[str], counts: list[int], title: str) -> go.Figure:
    """A class's answers to one question: one bar of students per answer, compact, so
    that a projected page keeps its own figure on the first screen."""
    bar = go.Bar(
        x=f32(counts),
        y=answers,
        orientation="h",
        marker_color=COLOURS[0],
        hovertemplate="%{y}: %{x} students<extra></extra>",
    )
    whole = max(1, math.ceil(max(counts, default=0) / 5))  # students are whole
    xaxis = {"dtick": whole, "rangemode": "tozero", "title": "students"}
    yaxis = {"autorange": "reversed", "type": "category"}
    height = 90 + 30 * len(answers)
    return figure([bar], height, title=title, xaxis=xaxis, yaxis=yaxis)


def histogram(values: np.ndarray, threshold: float, title: str, signed: bool = False) -> go.Figure:
    """Distribution of activations, binned in NumPy so only the counts travel. Values that
    are not finite cannot be binned; the title says how many were left out. `signed`: a
    value fires when its size |value| passes the threshold, on either side (SwiGLU)."""
    values = np.asarray(values).ravel()
    finite = values[np.isfinite(values)]
    if finite.size < values.size:
        title += f" ({values.size - finite.size} not finite, left out)"
    counts, edges = np.histogram(finite, bins=60)
    centres = (edges[:-1] + edges[1:]) / 2
    bar = go.Bar(
        x=f32(centres),
        y=f32(counts),
        width=f32(np.diff(edges)),
        marker_color=np.where((np.abs(centres) if signed else centres) > threshold, FIRED, SILENT),
        hovertemplate="around %{x:.3g}: %{y} activations<extra></extra>",
    )
    label = {
        "x": threshold,
        "y": 1,
        "yref": "y domain",
        "text": "fires above",
        "showarrow": False,
        "xanchor": "left",
    }
    size = np.abs(finite) if signed else finite
    zeros, above = int(np.sum(finite == 0)), int(np.sum(size > threshold))
    where = (
        f"beyond ±{number(threshold)}"
        if signed
        else f"above the dashed line at {number(threshold)}"
    )
    alt = (
        f"{number(finite.size)} activations: {number(zeros)} exactly 0, {number(above)} "
        f"{where} (fires above); the smallest "
        f"{number(finite.min())}, the largest {number(finite.max())}."
        if finite.size
        else "No finite activations."
    )
    return figure(
        [bar],
        320,
        title=title,
        meta={"alt": alt},
        xaxis={"title": "activation"},
        yaxis={"title": "count"},
        shapes=[
            line_at(x=t, dash="dash") for t in ((-threshold, threshold) if signed else (threshold,))
        ],
        annotations=[label],
    )


def grouped_bars(series: dict[str, np.ndarray], coord_labels: list[str], title: str) -> go.Figure:
    """Several vectors side by side, one group per coordinate."""
    data = [
        go.Bar(
            x=coord_labels,
            y=f32(values),
            name=name,
            marker_color=COLOURS[k % len(COLOURS)],
            hovertemplate=f"{name} %{{x}} = %{{y:.4g}}<extra></extra>",
        )
        for k, (name, values) in enumerate(series.items())
    ]
    return figure(
        data,
        360,
        barmode="group",
        title=title,
        legend={"orientation": "h", "y": -0.2},
        xaxis={"type": "category"},
        shapes=[line_at(y=0, **ZERO_LINE)],
    )


def matrix_heatmap(
    values: np.ndarray,
    rows: list[str],
    cols: list[str],
    title: str,
    what: str = "value",
    hidden: bool = False,
) -> go.Figure:
    """Any matrix on a diverging scale centred on zero, exact values on hover; `hidden`:
    its grid alone, every cell grey, until the answer its values would give."""
    height = min(700, max(260, 80 + 26 * len(rows)))
    axes = {"yaxis": {"autorange": "reversed", "type": "category"}, "xaxis": {"type": "category"}}
    if hidden:
        alt = (
            f"A grid of {len(rows)} rows by {len(cols)} columns, every cell grey: the "
            f"{what} in each waits for the answer."
        )
        return held_back_heatmap(rows, cols, what, alt, height, title=title, **axes)
    hover = f"row %{{y}}, column %{{x}}<br>{what} %{{z:.6g}}<extra></extra>"
    heatmap = heatmap_trace(values, cols, rows, what, hover, **diverging(values))
    return figure([heatmap], height, title=title, **axes)


HELD_BACK = "#D9D9D9"  # a cell whose value waits for the answer: not a value's colour


def held_back_heatmap(
    rows: list[str], cols: list[str], what: str, alt: str, height: int, **layout
) -> go.Figure:
    """A heatmap's grid of len(rows) × len(cols) cells with its values held back: every
    cell the same grey, marked "?" when the cells are wide enough, and nothing but the row
    and column on hover. What a figure shows before the guess its values would settle;
    `alt`, its words, says what is held back (no number of it)."""
    z = np.zeros((len(rows), len(cols)), np.float32)
    marks = {}
    if len(cols) <= 64:
        marks = {"text": np.full(z.shape, "?"), "texttemplate": "%{text}"}
    cells = go.Heatmap(
        z=z,
        x=cols,
        y=rows,
        colorscale=[[0, HELD_BACK], [1, HELD_BACK]],
        showscale=False,
        hovertemplate=f"%{{y}}, %{{x}}: {what} held back<extra></extra>",
        xgap=1 if len(cols) <= 64 else 0,
        ygap=1,
        **marks,
    )
    return figure([cells], height, meta={"alt": alt}, **layout)


def curves(
    z: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    xtitle: str,
    ytitle: str,
    zero_lines: bool = True,
    **layout,
) -> go.Figure:
    """One line per series over the same x axis; zero_lines draws the axes through 0."""
    data = [
        curve(
            z,
            values,
            name,
            {"color": COLOURS[k % len(COLOURS)], "width": 3},
            hover=f"{name}(%{{x:.3f}}) = %{{y:.6g}}<extra></extra>",
        )
        for k, (name, values) in enumerate(series.items())
    ]
    shapes = [line_at(y=0, **ZERO_LINE), line_at(x=0, **ZERO_LINE)] if zero_lines else []
    shapes += layout.pop("shapes", [])
    axes = {"xaxis": {"title": xtitle}, "yaxis": {"title": ytitle}}
    for axis in ("xaxis", "yaxis"):
        axes[axis].update(layout.pop(axis, {}))
    return figure(data, 380, title=title, hovermode="x unified", shapes=shapes, **axes, **layout)


def log_lines(*args, log_x: bool = False, **layout) -> go.Figure:
    """`curves`, with the same arguments, on a log y axis (and a log x axis with log_x)."""
    return curves(
        *args,
        zero_lines=False,
        legend={"orientation": "h", "y": -0.2},
        yaxis={"type": "log"},
        xaxis={"type": "log"} if log_x else {},
        **layout,
    )


def spread_heatmap(values: np.ndarray, rows: list[str], cols: list[str]) -> go.Figure:
    """How far each token's vector moved after each layer: (rows, cols), all >= 0.

    A sequential scale (white = unmoved), since there is no sign to show.
    """
    hover = "%{y}<br>token %{x}<br>moved by %{z:.4g}<extra></extra>"
    heatmap = heatmap_trace(
        values,
        cols,
        rows,
        "moved",
        hover,
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=largest(values),
        xgap=1,
        ygap=1,
    )
    return figure(
        [heatmap],
        340,
        title="how far each token's vector moved",
        yaxis={"autorange": "reversed", "type": "category"},
        xaxis={"type": "category", "title": "token"},
        plot_bgcolor=SILENT_CELL,
    )

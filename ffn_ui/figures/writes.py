"""What each firing neuron writes: Home's and Key–value memory's stacked writes and arrows,
and the residual stream's sum x + FFN(x)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import (
    COLOURS,
    OTHER,
    ZERO_LINE,
    arrow,
    f32,
    figure,
    line_at,
    pair,
    points,
)
from ffn_ui.words import listed, number


def neuron_writes_figure(
    parts: np.ndarray,
    out: np.ndarray,
    neuron_labels: list[str],
    coord_labels: list[str],
    b2: np.ndarray | None = None,
) -> go.Figure:
    """What each neuron writes into each output coordinate, stacked, with the output on top.

    parts: (K, C), row k = h_k * W2[k] (a last row may gather "other" neurons);
    out: (C,), the FFN output, equal to parts summed plus b2.
    """
    data = [
        go.Bar(
            x=coord_labels,
            y=f32(parts[k]),
            name=label,
            marker_color=OTHER if label.startswith("other") else COLOURS[k % len(COLOURS)],
            hovertemplate=f"{label} writes %{{y:.4g}} into %{{x}}<extra></extra>",
        )
        for k, label in enumerate(neuron_labels)
    ]
    if b2 is not None:
        data.append(
            go.Bar(
                x=coord_labels,
                y=f32(b2),
                name="b2",
                marker_color="white",
                marker_line={"color": "black", "width": 1},
                hovertemplate="b2 adds %{y:.4g} to %{x}<extra></extra>",
            )
        )
    diamond = {"symbol": "diamond", "size": 14, "color": "black"}
    hover = "output %{x} = %{y:.6g}<extra></extra>"
    data.append(points(coord_labels, out, "output (the sum)", diamond, hover))
    return figure(
        data,
        400,
        meta={"alt": writes_in_words(parts, out, neuron_labels, coord_labels, b2)},
        barmode="relative",
        xaxis={"title": "output coordinate", "type": "category"},
        yaxis={"title": "amount written"},
        legend={"orientation": "h", "y": -0.25},
        shapes=[line_at(y=0, **ZERO_LINE)],
    )


def writes_in_words(parts, out, neuron_labels, coord_labels, b2=None) -> str:
    """The output, coordinate by coordinate with its largest writer; then what b2 adds."""
    coords = []
    for c, name in enumerate(coord_labels):
        if not len(parts):
            coords.append(f"{name} = {number(out[c])} (no neuron writes)")
            continue
        k = int(np.argmax(np.abs(parts[:, c])))
        if parts[k, c] == 0:  # every write is 0 here: no neuron writes the most
            coords.append(f"{name} = {number(out[c])} (no neuron writes to it)")
            continue
        largest = f"{neuron_labels[k]} writes the most, {number(parts[k, c])}"
        coords.append(f"{name} = {number(out[c])} ({largest})")
    text = f"The output, the sum of the parts written into it: {listed(coords)}."
    if b2 is not None:
        adds = "0 everywhere" if not np.any(b2) else listed([number(v) for v in b2])
        text += f" b2 adds {adds}."
    return text


def arrows_figure(parts: np.ndarray, b2: np.ndarray, labels: list[str]) -> go.Figure:
    """At d_model = 2: each neuron's write as an arrow in the plane, tip to tail, then b2.

    parts: (K, 2). The last tip is the output.
    """
    steps = np.vstack([parts, b2[None, :]])  # (K + 1, 2)
    tips = np.cumsum(steps, axis=0)
    tails = tips - steps
    arrows, data = [], []
    for k, name in enumerate([*labels, "b2"]):
        (x0, y0), (x1, y1) = tails[k], tips[k]
        colour = COLOURS[k % len(COLOURS)] if name != "b2" else "black"
        arrows.append(arrow((x0, y0), (x1, y1), colour))
        hover = f"after {name}: (%{{x:.4g}}, %{{y:.4g}})<extra></extra>"
        data.append(points(f32([x1]), [y1], name, {"color": colour, "size": 6}, hover))
    data.append(
        go.Scatter(
            x=f32([0]),
            y=f32([0]),
            mode="markers",
            name="start",
            marker={"color": "grey", "size": 8},
        )
    )
    corners = np.vstack([tails, tips, [[0, 0]]])
    pad = 0.15 * max(1.0, float(np.abs(corners).max()))
    lo, hi = corners.min(axis=0) - pad, corners.max(axis=0) + pad
    writes = [f"{name} writes {pair(step)}" for name, step in zip(labels, parts, strict=True)]
    alt = (
        f"Tip to tail from (0, 0): {listed(writes)}; b2 adds {pair(b2)}; the output ends "
        f"at {pair(tips[-1])}."
    )
    return figure(
        data,
        420,
        meta={"alt": alt},
        annotations=arrows,
        xaxis={"range": [lo[0], hi[0]], "title": "out₁", "zeroline": True},
        yaxis={"range": [lo[1], hi[1]], "title": "out₂", "zeroline": True, "scaleanchor": "x"},
    )


def residual_bars(x: np.ndarray, out: np.ndarray, coords: np.ndarray, title: str) -> go.Figure:
    """The residual sum, coordinate by coordinate: x (C,), FFN(x) (C,) and x + FFN(x), one
    group per coordinate c of `coords` (C,). Each bar is named as its vector names it: the
    token's x_c, the FFN's out_c, and their sum."""
    numbers = [str(c + 1) for c in coords]
    names = {
        "x": ("x", x),
        "FFN(x)": ("out", out),
        "x + FFN(x)": (None, x + out),
    }
    data = []
    for k, (series, (prefix, values)) in enumerate(names.items()):
        each = [f"{prefix}{n}" if prefix else f"x{n} + out{n}" for n in numbers]
        data.append(
            go.Bar(
                x=numbers,
                y=f32(values),
                name=series,
                customdata=each,
                marker_color=COLOURS[k % len(COLOURS)],
                hovertemplate="%{customdata} = %{y:.4g}<extra></extra>",
            )
        )
    return figure(
        data,
        360,
        barmode="group",
        title=title,
        legend={"orientation": "h", "y": -0.25},
        xaxis={"type": "category", "title": "coordinate i: the token's xᵢ, the output's outᵢ"},
        shapes=[line_at(y=0, **ZERO_LINE)],
    )

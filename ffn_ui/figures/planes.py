"""Home's plane: each neuron's half-plane where it fires, and the token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import COLOURS, f32, figure


def half_planes(
    keys: np.ndarray, x: np.ndarray, limit: float = 3.0, shaded: bool = True
) -> go.Figure:
    """In the (x₁, x₂) plane, each neuron's key as an arrow from the origin, the token x as
    a cross, and (when `shaded`) where each neuron fires: its half-plane, score key · x > 0.
    keys: (K, 2), one key per row; x: (2,).

    Each half-plane is shaded in its own colour and hatch, and named on the plot, so the
    regions read without colour. Unshaded, the figure holds back where the neurons fire
    (a question waits for it), and shows the keys and the token only.
    """
    edge = limit * 1.1
    grid = np.linspace(-edge, edge, 2)
    corners = np.array([[-edge, -edge], [edge, -edge], [edge, edge], [-edge, edge]])
    data, marks = [], [key_arrow(k, key) for k, key in enumerate(keys)]
    data.append(
        go.Scatter(
            x=f32(keys[:, 0]),
            y=f32(keys[:, 1]),
            mode="markers+text",
            name="each key's tip (drag it to turn the key)",
            text=[f"key {k + 1}" for k in range(len(keys))],
            textposition="top center",
            marker={"color": [COLOURS[k % len(COLOURS)] for k in range(len(keys))], "size": 12},
            hovertemplate="key (%{x:.2f}, %{y:.2f})<extra></extra>",
        )
    )
    for k, key in enumerate(keys if shaded else []):
        inside = corners @ key > 0  # the square's corners on the firing side
        colour = COLOURS[k % len(COLOURS)]
        region = half_plane_polygon(key, edge)
        data.append(
            go.Scatter(
                x=f32(region[:, 0]),
                y=f32(region[:, 1]),
                fill="toself",
                mode="lines",
                line={"color": colour, "width": 0},
                fillcolor=colour,
                opacity=0.25,
                fillpattern={"shape": "/" if k % 2 == 0 else "\\", "fgcolor": colour},
                name=f"neuron {k + 1} fires: {score_text(key)} > 0",
                hoverinfo="skip",
            )
        )
        a, b = key  # the boundary a·x₁ + b·x₂ = 0
        line = (grid, -a * grid / b) if b else (np.zeros(2), grid)
        data.append(
            go.Scatter(
                x=f32(line[0]),
                y=f32(line[1]),
                mode="lines",
                line={"color": colour, "width": 2},
                showlegend=False,
                hoverinfo="skip",
            )
        )
        centre = corners[inside].mean(axis=0) * 0.6 if inside.any() else np.zeros(2)
        marks.append(dict(x=centre[0], y=centre[1], text=f"neuron {k + 1}<br>fires",
                          showarrow=False, font={"color": colour}))  # fmt: skip
    data.append(
        go.Scatter(
            x=f32([x[0]]),
            y=f32([x[1]]),
            mode="markers",
            name="your token x",
            marker={"color": "black", "size": 14, "symbol": "x"},
            hovertemplate="x = (%{x:.2f}, %{y:.2f})<extra></extra>",
        )
    )
    span = [-edge, edge]
    sides = {1: "inside it", 0: "on its edge (score 0: it does not fire)", -1: "outside it"}
    where = [
        f"neuron {k + 1} fires where {score_text(key)} > 0, and x is {sides[np.sign(key @ x)]}"
        if shaded
        else f"neuron {k + 1}'s key points to ({numbers(key)})"
        for k, key in enumerate(keys)
    ]
    alt = f"Your token x = ({numbers(x)}) in the plane: {'; '.join(where)}."
    return figure(
        data,
        440,
        meta={"alt": alt},
        annotations=marks,
        xaxis={"range": span, "title": "x₁", "zeroline": True, "constrain": "domain"},
        yaxis={"range": span, "title": "x₂", "zeroline": True, "scaleanchor": "x"},
        legend={"orientation": "h", "y": -0.2},
    )


def numbers(values: np.ndarray) -> str:
    return ", ".join(f"{v:g}".replace("-", "−") for v in values)


def key_arrow(k: int, key: np.ndarray) -> dict:
    """Neuron k's key as an arrow from the origin to its tip (its name is at the tip)."""
    colour = COLOURS[k % len(COLOURS)]
    return dict(x=key[0], y=key[1], ax=0, ay=0, xref="x", yref="y", axref="x", ayref="y",
                showarrow=True, arrowhead=2, arrowwidth=2, arrowcolor=colour, text="")  # fmt: skip


def score_text(key: np.ndarray) -> str:
    """key · x written out: [1, -1] -> "x₁ − x₂", [-2, 0.5] -> "−2x₁ + 0.5x₂"."""
    terms = [(w, f"{'' if abs(w) == 1 else f'{abs(w):g}'}{name}")
             for w, name in zip(key, ("x₁", "x₂"), strict=True) if w]  # fmt: skip
    if not terms:
        return "0"
    text = ("−" if terms[0][0] < 0 else "") + terms[0][1]
    for w, term in terms[1:]:
        text += f" {'−' if w < 0 else '+'} {term}"
    return text


def half_plane_polygon(key: np.ndarray, edge: float) -> np.ndarray:
    """The part of the square [-edge, edge]² where key · p > 0, as a closed polygon (N, 2)."""
    square = [(-edge, -edge), (edge, -edge), (edge, edge), (-edge, edge)]
    points = []
    for (x0, y0), (x1, y1) in zip(square, square[1:] + square[:1], strict=True):
        s0, s1 = key @ (x0, y0), key @ (x1, y1)
        if s0 > 0:
            points.append((x0, y0))
        if (s0 > 0) != (s1 > 0):  # the boundary crosses this side of the square
            t = s0 / (s0 - s1)
            points.append((x0 + t * (x1 - x0), y0 + t * (y1 - y0)))
    points.append(points[0])
    return np.array(points)

"""Superposition: feature arrows and the phase diagram."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import COLOURS, arrow, f32, figure, points


def feature_arrows(W: np.ndarray | None, names: list[str]) -> go.Figure:
    """Each feature's direction W[:, i] in a 2-D hidden space, as an arrow from the origin.

    W: (2, n). A dropped feature is a dot at the origin; features sharing the plane spread
    out like the spokes of a polygon. W None: the plane alone, with the unit circle a kept
    feature's arrow reaches and no arrow, while a question asks how many are kept.
    """
    if W is None:
        return hidden_plane(names)
    arrows, data = [], []
    for i, name in enumerate(names):
        x, y = float(W[0, i]), float(W[1, i])
        colour = COLOURS[i % len(COLOURS)]
        arrows.append(arrow((0, 0), (x, y), colour))
        hover = f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>"
        marker = {"color": colour, "size": 7}
        data.append(
            points(
                f32([x]),
                [y],
                name,
                marker,
                hover,
                mode="markers+text",
                text=[name],
                textposition="top center",
            )
        )
    return plane(data, 1.25 * max(1.0, float(np.abs(W).max())), annotations=arrows)


def plane(data: list, limit: float, **layout) -> go.Figure:
    """The 2-D hidden space, square, from −limit to limit on both axes."""
    return figure(
        data,
        420,
        showlegend=False,
        xaxis={"range": [-limit, limit], "title": "hidden 1", "zeroline": True},
        yaxis={"range": [-limit, limit], "title": "hidden 2", "scaleanchor": "x", "zeroline": True},
        **layout,
    )


def hidden_plane(names: list[str]) -> go.Figure:
    """The plane before the guess: the unit circle, and the features named, not drawn."""
    turn = np.linspace(0, 2 * np.pi, 73)
    circle = go.Scatter(
        x=f32(np.cos(turn)),
        y=f32(np.sin(turn)),
        mode="lines",
        name="length 1",
        line={"color": "#999999", "dash": "dot"},
        hoverinfo="skip",
    )
    note = {
        "x": 0,
        "y": 0,
        "text": f"{', '.join(names)}:<br>drawn once you guess",
        "showarrow": False,
        "bgcolor": "white",
    }
    alt = (
        f"The two hidden dimensions, with the circle of length 1 dotted; where the trained "
        f"model puts the features {', '.join(names)} is drawn once you have answered."
    )
    return plane([circle], 1.25, annotations=[note], meta={"alt": alt})


PHASE_COLOURS = ("#BBBBBB", COLOURS[0], COLOURS[5])  # grey, blue, vermillion


def phase_heatmap(
    phases: np.ndarray, xs: list[str], ys: list[str], names: tuple[str, ...], title: str
) -> go.Figure:
    """A categorical grid: phases (rows, cols) of ints indexing `names`, one colour each,
    and the phase's name in every cell, so colour is never the only carrier."""
    k = len(names)
    scale = []
    for i, colour in enumerate(PHASE_COLOURS[:k]):
        scale += [[i / k, colour], [(i + 1) / k, colour]]
    text = np.array(names, dtype=object)[phases]
    cells = go.Heatmap(
        z=f32(phases),
        x=xs,
        y=ys,
        zmin=-0.5,
        zmax=k - 0.5,
        colorscale=scale,
        showscale=False,
        text=text,
        texttemplate="%{text}",
        hovertemplate="sparsity %{x}, importance %{y}: %{text}<extra></extra>",
        xgap=2,
        ygap=2,
    )
    return figure(
        [cells],
        380,
        title=title,
        xaxis={"title": "sparsity 1 − p", "type": "category"},
        yaxis={"title": "importance of feature 2", "type": "category"},
    )

"""The bends: activation curves, SwiGLU's surface and the gate-up scatter."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import ZERO_LINE, curve, f32, figure, line_at, marker_scale
from ffn_ui.figures.charts import curves
from ffn_ui.figures.training import surface_contour


def activation_curves(
    z: np.ndarray, series: dict[str, np.ndarray], ytitle: str, title: str = ""
) -> go.Figure:
    """The activations' curves over z. GELU-tanh is dashed, since it lies on exact GELU,
    and with both drawn an inset shows their difference, GELU − GELU-tanh; SwiGLU's slice
    up = 1 is dotted, since it is SiLU itself. The inset's axis sits on its right, clear of
    the main y-axis."""
    # the legend under the plot: beside it, it took half of a column's width
    legend = {"orientation": "h", "y": -0.18, "yanchor": "top"}
    fig = curves(z, series, title, "z", ytitle, legend=legend)
    fig.layout.height = 440
    for trace in fig.data:
        if trace.name == "GELU-tanh":
            trace.line.dash = "dash"
        if trace.name == "SwiGLU, up = 1":  # silu(z) · 1: it lies on SiLU
            trace.line.dash = "dot"
    if {"GELU", "GELU-tanh"} <= set(series):
        gap = np.asarray(series["GELU"]) - np.asarray(series["GELU-tanh"])
        fig.add_trace(
            curve(
                z,
                gap,
                "GELU − GELU-tanh (inset)",
                {"color": "black", "width": 1.5},
                hover="GELU − GELU-tanh at %{x:.3f}: %{y:.2e}<extra></extra>",
                xaxis="x2",
                yaxis="y2",
            )
        )
        # top left: for z < 0 every activation stays near 0, so that corner is empty
        small = {"size": 10}
        fig.update_layout(
            xaxis2={"domain": [0.08, 0.42], "anchor": "y2", "tickfont": small, "nticks": 5},
            yaxis2={"anchor": "x2", "domain": [0.62, 0.94], "exponentformat": "e",
                    "tickfont": small, "side": "right"},
        )  # fmt: skip
        fig.add_annotation(  # the inset's name above it, clear of the main axes
            text="inset: GELU − GELU-tanh",
            xref="x2 domain",
            yref="y2 domain",
            x=0.5,
            y=1.02,
            yanchor="bottom",
            showarrow=False,
            font=small,
        )
    return fig


def swiglu_surface(grid: np.ndarray, values: np.ndarray) -> go.Figure:
    """silu(gate) · up over a (gate, up) grid, with the two slices drawn on the page's
    curves marked: the diagonal gate = up, and the line up = 1."""
    fig = surface_contour(grid, grid, values, "silu(gate) × up", "gate", "up")
    ends = [float(grid[0]), float(grid[-1])]
    fig.add_trace(
        curve(ends, ends, "gate = up = z", {"color": "black", "dash": "dash", "width": 2})
    )
    fig.add_trace(curve(ends, [1, 1], "up = 1", {"color": "black", "dash": "dot", "width": 2}))
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return fig


def gate_up_scatter(gate: np.ndarray, up: np.ndarray, h: np.ndarray, names: list[str]) -> go.Figure:
    """Every neuron of one token as a point (gate, up), coloured by h = silu(gate)·up.

    gate, up, h: (d_ff,). Points left of gate = 0 are pale whatever their up: the gate is
    shut. Right of it, the sign of up decides whether h is red or blue.
    """
    point = go.Scattergl(
        x=f32(gate),
        y=f32(up),
        mode="markers",
        marker={"color": f32(h), **marker_scale(h), "size": 6, "colorbar": {"title": "h"}},
        text=names,
        customdata=f32(h),
        hovertemplate="%{text}<br>gate %{x:.3f}, up %{y:.3f}<br>h %{customdata:.4f}<extra></extra>",
    )
    return figure(
        [point],
        420,
        xaxis={"title": "gate = x · W_gate[:, j]", "zeroline": True},
        yaxis={"title": "up = x · W_up[:, j]", "zeroline": True},
        shapes=[line_at(x=0, **ZERO_LINE), line_at(y=0, **ZERO_LINE)],
    )

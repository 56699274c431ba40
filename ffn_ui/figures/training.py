"""Training and checking: Collapse's decision surface and fit, and the miss of a single
matrix against SwiGLU without SiLU; Backprop's ε sweep and the loss along a score."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import (
    COLOURS,
    DIVERGING,
    SILENT,
    curve,
    diverging,
    f32,
    figure,
    heatmap_trace,
    line_at,
)
from ffn_ui.figures.charts import log_lines


def surface_contour(
    xs: np.ndarray, ys: np.ndarray, values: np.ndarray, title: str, xtitle: str, ytitle: str
) -> go.Figure:
    """A function of two inputs as filled contours around zero; values: (len(ys), len(xs))."""
    contour = go.Contour(
        x=f32(xs),
        y=f32(ys),
        z=f32(values),
        **diverging(values),
        colorbar={"thickness": 12},
        contours={"showlabels": True},
        hovertemplate=(
            f"{xtitle} %{{x:.2f}}, {ytitle} %{{y:.2f}}<br>value %{{z:.4g}}<extra></extra>"
        ),
    )
    return figure([contour], 420, title=title, xaxis={"title": xtitle}, yaxis={"title": ytitle})


def decision_surface(
    grid: np.ndarray, prob: np.ndarray, X: np.ndarray, y: np.ndarray, title: str
) -> go.Figure:
    """P(class 1) over a square grid, with the training points on top. prob: (G, G)."""
    data = [
        heatmap_trace(
            prob,
            f32(grid),
            f32(grid),
            "P(class 1)",
            "(%{x:.2f}, %{y:.2f}): P = %{z:.3f}<extra></extra>",
            colorscale=DIVERGING,
            zmid=0.5,  # undecided is white
            zmin=0,
            zmax=1,
            opacity=0.55,  # pale enough for the points on top to stand out
        ),
    ]
    data += class_points(X, y)
    return figure(
        data, 400, title=title, legend={"orientation": "h", "y": -0.12}, yaxis={"scaleanchor": "x"}
    )


WHITE_EDGE = {"color": "white", "width": 1}  # a point stands out on any shade beneath it


def class_points(X: np.ndarray, y: np.ndarray) -> list[go.Scatter]:
    """The training points of a two-class task, one trace per class, each its own colour."""
    return [
        go.Scatter(
            x=f32(X[y == cls, 0]),
            y=f32(X[y == cls, 1]),
            mode="markers",
            name=f"class {cls}",
            marker={"color": colour, "size": 6, "symbol": symbol, "line": WHITE_EDGE},
            hovertemplate=f"class {cls} at (%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
        )
        for cls, colour, symbol in ((0, COLOURS[0], "circle"), (1, COLOURS[5], "diamond"))
    ]


def task_points(X: np.ndarray, y: np.ndarray, classify: bool, title: str) -> go.Figure:
    """A task's data before any network is fitted to it: the two classes of points in the
    plane (X (n, 2), y in {0, 1}), or the target curve's points (X (n, 1), y (n,))."""
    if classify:
        return figure(
            class_points(X, y),
            400,
            title=title,
            legend={"orientation": "h", "y": -0.12},
            yaxis={"scaleanchor": "x", "title": "x₂"},
            xaxis={"title": "x₁"},
        )
    target = go.Scatter(
        x=f32(X[:, 0]),
        y=f32(y),
        mode="markers",
        name="target",
        marker={"color": COLOURS[0], "size": 5},
        hovertemplate="target(%{x:.2f}) = %{y:.4g}<extra></extra>",
    )
    return figure([target], 400, title=title, xaxis={"title": "x"}, yaxis={"title": "target"})


def curve_fit(x: np.ndarray, target: np.ndarray, pred: np.ndarray, title: str) -> go.Figure:
    data = [
        go.Scatter(
            x=f32(x),
            y=f32(target),
            mode="markers",
            name="target",
            marker={"color": SILENT, "size": 5},
            hovertemplate="target(%{x:.2f}) = %{y:.4g}<extra></extra>",
        ),
        curve(
            x,
            pred,
            "FFN",
            {"color": COLOURS[0], "width": 3},
            hover="FFN(%{x:.2f}) = %{y:.4g}<extra></extra>",
        ),
    ]
    return figure(data, 400, title=title, legend={"orientation": "h", "y": -0.12})


def square_law(scales: np.ndarray, gaps: np.ndarray, hidden: bool = False) -> go.Figure:
    """The largest miss of the best single matrix at each input size (markers on a solid
    line), against the square of the size times the miss at size 1 (dotted), on log axes:
    a quadratic map's miss follows the dotted line, a linear map's would be 0. `hidden`:
    the axes alone, the misses held back (they answer whether one matrix is left)."""
    if hidden:
        held = dict(x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False,
                    text="The misses are held back<br>until the answer.")  # fmt: skip
        return figure(
            [],
            380,
            title="SwiGLU without SiLU against its best single matrix",
            xaxis={"title": "size of the inputs (1: the tokens')", "type": "log",
                   "range": [float(np.log10(scales[0])), float(np.log10(scales[-1]))]},
            yaxis={"title": "largest miss", "showticklabels": False},
            annotations=[held],
            meta={"alt": f"The best single matrix's largest miss at {len(scales)} input sizes, "
                  f"from {scales[0]:g} to {scales[-1]:g} times the tokens': held back until the "
                  "answer."},
        )  # fmt: skip
    reference = gaps[np.argmin(np.abs(scales - 1.0))] * scales**2
    fig = log_lines(
        scales,
        {"best single matrix: largest miss": gaps, "size² × the miss at size 1": reference},
        "SwiGLU without SiLU against its best single matrix",
        "size of the inputs (1: the tokens')",
        "largest miss",
        log_x=True,
    )
    fig.update_traces(mode="lines+markers", selector={"name": "best single matrix: largest miss"})
    fig.update_traces(line_dash="dot", selector={"name": "size² × the miss at size 1"})
    return fig


def eps_sweep(epsilons: np.ndarray, errors: np.ndarray, chosen: float) -> go.Figure:
    """The check's worst relative error at each ε, on log axes written as powers of ten,
    as the ε slider writes them, with the chosen ε marked."""
    fig = log_lines(
        epsilons,
        {"worst relative error": errors},
        "too large an ε measures the curve's bend; too small, round-off",
        "ε",
        "max relative error",
        log_x=True,
        shapes=[line_at(x=chosen, color="grey", dash="dot")],
    )
    fig.update_xaxes(exponentformat="power")
    fig.update_yaxes(exponentformat="power")
    return fig


def loss_along_score(shifts: np.ndarray, losses: np.ndarray, kink: float, chosen: float):
    """One token's loss as a silent neuron's score is moved by s: flat until s reaches the
    kink (where the score crosses 0), then straight. The chosen s is marked."""
    loss = curve(
        shifts,
        losses,
        "loss",
        {"color": COLOURS[0], "width": 3},
        hover="s = %{x:.2f}: loss %{y:.6g}<extra></extra>",
    )
    here = go.Scatter(
        x=f32([chosen]),
        y=f32([np.interp(chosen, shifts, losses)]),
        mode="markers",
        name="your s",
        marker={"color": "black", "size": 12},
    )
    label = dict(x=kink, y=1, yref="y domain", text="score = 0", showarrow=False, xanchor="left")
    return figure(
        [loss, here],
        340,
        title="this token's loss as the score moves",
        xaxis={"title": "change of the score, s"},
        yaxis={"title": "loss"},
        shapes=[line_at(x=kink, dash="dash")],
        annotations=[label],
        legend={"orientation": "h", "y": -0.25},
    )


def check_bars(names: list[str], worst: list[float], passes: float) -> go.Figure:
    """A gradient check's worst relative error per quantity, bars on a log axis written as
    powers of ten, with the line a correct backward pass stays under (dashed)."""
    shown = f32(np.maximum(worst, 1e-18))  # an exact 0 has no place on a log axis
    bar = go.Bar(
        x=names,
        y=shown,
        marker_color=COLOURS[0],
        hovertemplate="%{x}: worst relative error %{y:.2e}<extra></extra>",
        name="worst relative error",
    )
    line = go.Scatter(
        x=names,
        y=f32([passes] * len(names)),
        mode="lines",
        line={"dash": "dash", "color": "black"},
        name=f"passes below {passes:.0e}",
        hoverinfo="skip",
    )
    return figure(
        [bar, line],
        340,
        title="your backward pass against centred differences",
        xaxis={"type": "category"},
        yaxis={"type": "log", "exponentformat": "power", "title": "worst relative error"},
        legend={"orientation": "h", "y": -0.2},
    )

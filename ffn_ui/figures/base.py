"""Colours, the figure frame and the small helpers every figure shares."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.words import number

# Okabe-Ito: distinguishable with the common kinds of colour blindness. Every palette here is
# checked under simulated colour-vision deficiencies in tests/ui/test_colour_vision.py.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


FIRED, SILENT, OTHER = "#D55E00", "#BBBBBB", "#999999"


SILENT_CELL = "#F2F2F2"  # a heatmap's background: what a masked (silent) cell shows


DIVERGING = "RdBu_r"  # blue below zero, red above, white at zero


SEQUENTIAL = "Blues"  # sizes with no sign: white at zero, deeper blue for more


FIRED_SCALE = [[0.0, "#FCBBA1"], [1.0, "#67000D"]]  # light to deep red: no white at the low end


MAX_COLUMNS = 256  # heatmap columns drawn; wider layers keep their most active neurons


FONT_SIZE = 14  # charts' text; presenter mode enlarges it (ffn_ui.page.display.show)


def f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def figure(data: list, height: int = 380, **layout) -> go.Figure:
    """The finished figure in one call.

    Plotly checks every property each time one is set, so a figure built at once costs a
    quarter of one finished with update_* calls. And Streamlit checks the whole figure
    again when it draws it (st.plotly_chart), so it is not checked here a first time: a
    wrong property still fails, in the tests that draw every page.
    """
    base = {"margin": {"t": 40, "b": 10, "l": 10, "r": 10}, "height": height}
    layout = {**base, "font": {"size": FONT_SIZE}, **layout}
    titled(layout)
    for axis in ("xaxis", "yaxis"):
        titled(layout.get(axis, {}))
    return go.Figure(data=data, layout=layout, _validate=False)


def curve(x, y, name: str, line: dict, hover: str | None = None, **more) -> go.Scatter:
    """A line through the points (x, y), sent as float32; `hover` is its hovertemplate."""
    return go.Scatter(
        x=f32(x), y=f32(y), mode="lines", name=name, line=line, hovertemplate=hover, **more
    )


def points(x, y, name: str, marker: dict, hover: str | None = None, **more) -> go.Scatter:
    """Markers at the points (x, y), y sent as float32 and x as given (numbers or labels);
    `more` can set mode="markers+text"."""
    more.setdefault("mode", "markers")
    return go.Scatter(x=x, y=f32(y), name=name, marker=marker, hovertemplate=hover, **more)


def heatmap_trace(values: np.ndarray, x: list, y: list, what: str, hover: str, **scale):
    """A heatmap of values (len(y), len(x)), sent as float32, its colour bar titled `what`;
    `scale` gives its colours (colorscale, zmin, zmax) and any more properties."""
    colorbar = {"title": what, "thickness": 12}
    return go.Heatmap(z=f32(values), x=x, y=y, colorbar=colorbar, hovertemplate=hover, **scale)


def titled(part: dict) -> None:
    """A title given as text, in the full form Plotly's own checks would have made of it."""
    if isinstance(part.get("title"), str):
        part["title"] = {"text": part["title"]}


def line_at(x: float | None = None, y: float | None = None, **line) -> dict:
    """A vertical line at x, or a horizontal one at y, across the whole plot: a layout shape."""
    if x is not None:
        return dict(type="line", x0=x, x1=x, xref="x", y0=0, y1=1, yref="y domain", line=line)
    return dict(type="line", y0=y, y1=y, yref="y", x0=0, x1=1, xref="x domain", line=line)


ZERO_LINE = {"color": "grey", "width": 1}


def largest(values: np.ndarray) -> float:
    """The largest finite |value|, for a colour scale centred on zero; 1 if there is none."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def diverging(values: np.ndarray) -> dict:
    """The colour scale of signed values: blue below zero, white at zero, red above, and
    symmetric, so the same shade means the same size either way."""
    limit = largest(values)
    return {"colorscale": DIVERGING, "zmid": 0, "zmin": -limit, "zmax": limit}


def arrow(tail: tuple[float, float], tip: tuple[float, float], colour: str) -> dict:
    """An arrow from tail to tip in data coordinates: a layout annotation."""
    (x0, y0), (x1, y1) = tail, tip
    return dict(
        x=x1,
        y=y1,
        ax=x0,
        ay=y0,
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=3,
        arrowwidth=3,
        arrowcolor=colour,
    )


def pair(v) -> str:
    return f"({number(v[0])}, {number(v[1])})"


def marker_scale(values: np.ndarray) -> dict:
    """`diverging` for markers, which name the same scale cmin/cmid/cmax."""
    scale = diverging(values)
    return {
        "colorscale": scale["colorscale"],
        "cmid": 0,
        "cmin": scale["zmin"],
        "cmax": scale["zmax"],
    }

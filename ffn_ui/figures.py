"""Plotly figure builders: arrays in, a go.Figure out, no Streamlit calls.

Arrays go to Plotly as float32 NumPy arrays (compact base64 in the page), and every
trace shows its exact values on hover.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from ffn_ui.alt_text import listed, number

# Okabe-Ito: distinguishable with the common kinds of colour blindness. Every palette here is
# checked under simulated colour-vision deficiencies in tests/ui/test_colour_vision.py.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
FIRED, SILENT, OTHER = "#D55E00", "#BBBBBB", "#999999"
SILENT_CELL = "#F2F2F2"  # a heatmap's background: what a masked (silent) cell shows
DIVERGING = "RdBu_r"  # blue below zero, red above, white at zero
SEQUENTIAL = "Blues"  # sizes with no sign: white at zero, deeper blue for more
FIRED_SCALE = [[0.0, "#FCBBA1"], [1.0, "#67000D"]]  # light to deep red: no white at the low end
MAX_COLUMNS = 256  # heatmap columns drawn; wider layers keep their most active neurons


FONT_SIZE = 14  # charts' text; presenter mode enlarges it (ffn_ui.display.show)


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


def most_active_columns(
    values: np.ndarray, fired: np.ndarray, order: np.ndarray, labels: list[str], keep: int
) -> tuple[np.ndarray, np.ndarray, list[str], str]:
    """Columns in `order`; past `keep`, the rest become one column of their mean.

    values, fired: (T, d_ff). Returns (values, fired, labels, a note saying what was done).
    """
    d_ff = values.shape[1]
    if d_ff <= keep:
        return values[:, order], fired[:, order], [labels[j] for j in order], ""
    shown, rest = order[: keep - 1], order[keep - 1 :]
    merged = values[:, rest].mean(axis=1, keepdims=True)  # (T, 1)
    values = np.hstack([values[:, shown], merged])
    fired = np.hstack([fired[:, shown], np.zeros((fired.shape[0], 1), bool)])
    note = (
        f"the {keep - 1} most active of {d_ff} neurons; "
        f"the last column is the mean of the other {len(rest)}"
    )
    return values, fired, [labels[j] for j in shown] + [f"other {len(rest)}"], note


def firing_heatmap(
    values: np.ndarray,
    fired: np.ndarray,
    token_labels: list[str],
    neuron_labels: list[str],
    what: str,
    mask: bool,
) -> go.Figure:
    """Token x neuron heatmap. values, fired: (T, K).

    With mask, only fired cells are coloured, on a scale whose faintest red is still
    clearly a colour; silent cells are blank grey and, when the cells are wide enough to
    hold it, marked with a dot, so a faint firing never looks like silence. Without mask,
    every cell shows its value on a diverging scale: blue below zero, white at zero.
    """
    z = np.where(fired, values, np.nan) if mask else values
    scale = diverging(values)
    if mask:
        scale = {"colorscale": FIRED_SCALE, "zmin": 0, "zmax": largest(np.where(fired, values, 0))}
    marks = {}
    if mask and len(neuron_labels) <= 64:
        marks = {"text": np.where(fired, "", "·"), "texttemplate": "%{text}"}
    heatmap = go.Heatmap(
        z=f32(z),
        x=neuron_labels,
        y=token_labels,
        **scale,
        **marks,
        colorbar={"title": what, "thickness": 12},
        hovertemplate=f"token %{{y}}<br>neuron %{{x}}<br>{what} %{{z:.4g}}<extra></extra>",
        xgap=1 if len(neuron_labels) <= 64 else 0,
        ygap=1,
    )
    return figure(
        [heatmap],
        min(900, max(340, 80 + 34 * len(token_labels))),
        yaxis={"autorange": "reversed", "title": "token", "type": "category"},
        xaxis={"title": "hidden neuron", "type": "category"},
        plot_bgcolor=SILENT_CELL,
    )


def largest(values: np.ndarray) -> float:
    """The largest finite |value|, for a colour scale centred on zero; 1 if there is none."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def diverging(values: np.ndarray) -> dict:
    """The colour scale of signed values: blue below zero, white at zero, red above, and
    symmetric, so the same shade means the same size either way."""
    limit = largest(values)
    return {"colorscale": DIVERGING, "zmid": 0, "zmin": -limit, "zmax": limit}


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


def histogram(values: np.ndarray, threshold: float, title: str) -> go.Figure:
    """Distribution of activations, binned in NumPy so only the counts travel. Values that
    are not finite cannot be binned; the title says how many were left out."""
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
        marker_color=np.where(centres > threshold, FIRED, SILENT),
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
    zeros, above = int(np.sum(finite == 0)), int(np.sum(finite > threshold))
    alt = (
        f"{number(finite.size)} activations: {number(zeros)} exactly 0, {number(above)} above "
        f"the dashed line at {number(threshold)} (fires above); the smallest "
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
        shapes=[line_at(x=threshold, dash="dash")],
        annotations=[label],
    )


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
    data.append(
        go.Scatter(
            x=coord_labels,
            y=f32(out),
            mode="markers",
            name="output (the sum)",
            marker={"symbol": "diamond", "size": 14, "color": "black"},
            hovertemplate="output %{x} = %{y:.6g}<extra></extra>",
        )
    )
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
        largest = f"{neuron_labels[k]} writes the most, {number(parts[k, c])}"
        coords.append(f"{name} = {number(out[c])} ({largest})")
    text = f"The output, the sum of what the neurons write: {listed(coords)}."
    if b2 is not None:
        adds = "0 everywhere" if not np.any(b2) else listed([number(v) for v in b2])
        text += f" b2 adds {adds}."
    return text


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
        data.append(
            go.Scatter(
                x=f32([x1]),
                y=f32([y1]),
                mode="markers",
                name=name,
                marker={"color": colour, "size": 6},
                hovertemplate=f"after {name}: (%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
            )
        )
    data.append(
        go.Scatter(
            x=f32([0]),
            y=f32([0]),
            mode="markers",
            name="start",
            marker={"color": "grey", "size": 8},
        )
    )
    points = np.vstack([tails, tips, [[0, 0]]])
    pad = 0.15 * max(1.0, float(np.abs(points).max()))
    lo, hi = points.min(axis=0) - pad, points.max(axis=0) + pad
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


def pair(v) -> str:
    return f"({number(v[0])}, {number(v[1])})"


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
    values: np.ndarray, rows: list[str], cols: list[str], title: str, what: str = "value"
) -> go.Figure:
    """Any matrix on a diverging scale centred on zero, exact values on hover."""
    heatmap = go.Heatmap(
        z=f32(values),
        x=cols,
        y=rows,
        **diverging(values),
        colorbar={"title": what, "thickness": 12},
        hovertemplate=f"row %{{y}}, column %{{x}}<br>{what} %{{z:.6g}}<extra></extra>",
    )
    return figure(
        [heatmap],
        min(700, max(260, 80 + 26 * len(rows))),
        title=title,
        yaxis={"autorange": "reversed", "type": "category"},
        xaxis={"type": "category"},
    )


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
        go.Scatter(
            x=f32(z),
            y=f32(values),
            mode="lines",
            name=name,
            line={"color": COLOURS[k % len(COLOURS)], "width": 3},
            hovertemplate=f"{name}(%{{x:.3f}}) = %{{y:.6g}}<extra></extra>",
        )
        for k, (name, values) in enumerate(series.items())
    ]
    shapes = [line_at(y=0, **ZERO_LINE), line_at(x=0, **ZERO_LINE)] if zero_lines else []
    shapes += layout.pop("shapes", [])
    axes = {"xaxis": {"title": xtitle}, "yaxis": {"title": ytitle}}
    for axis in ("xaxis", "yaxis"):
        axes[axis].update(layout.pop(axis, {}))
    return figure(data, 380, title=title, hovermode="x unified", shapes=shapes, **axes, **layout)


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
        go.Heatmap(
            x=f32(grid),
            y=f32(grid),
            z=f32(prob),
            colorscale=DIVERGING,
            zmid=0.5,  # undecided is white
            zmin=0,
            zmax=1,
            colorbar={"title": "P(class 1)", "thickness": 12},
            opacity=0.55,  # pale enough for the points on top to stand out
            hovertemplate="(%{x:.2f}, %{y:.2f}): P = %{z:.3f}<extra></extra>",
        )
    ]
    for cls, colour in ((0, COLOURS[0]), (1, COLOURS[5])):
        pts = X[y == cls]
        data.append(
            go.Scatter(
                x=f32(pts[:, 0]),
                y=f32(pts[:, 1]),
                mode="markers",
                name=f"class {cls}",
                marker={"color": colour, "size": 6, "line": {"color": "white", "width": 1}},
                hovertemplate=f"class {cls} at (%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
            )
        )
    return figure(
        data, 400, title=title, legend={"orientation": "h", "y": -0.12}, yaxis={"scaleanchor": "x"}
    )


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
        go.Scatter(
            x=f32(x),
            y=f32(pred),
            mode="lines",
            name="FFN",
            line={"color": COLOURS[0], "width": 3},
            hovertemplate="FFN(%{x:.2f}) = %{y:.4g}<extra></extra>",
        ),
    ]
    return figure(data, 400, title=title, legend={"orientation": "h", "y": -0.12})


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


def flops_vs_length(
    T: np.ndarray,
    series: dict[str, np.ndarray],
    crossover: float,
    title: str = "",
    chosen: int | None = None,
) -> go.Figure:
    """FLOPs against sequence length T on log axes, a dashed line where attention's T²
    terms overtake the FFN, and a grey one at a chosen T."""
    shapes = [line_at(x=crossover, dash="dash")]
    if chosen is not None:
        shapes.append(line_at(x=chosen, color="grey"))
    # On a log axis an annotation is placed in log10 units, unlike a shape.
    label = {
        "x": float(np.log10(crossover)),
        "y": 1,
        "yref": "paper",
        "text": f"T = {crossover:,.0f}",
        "showarrow": False,
    }
    return log_lines(
        T,
        series,
        title,
        "sequence length T",
        "FLOPs",
        log_x=True,
        shapes=shapes,
        annotations=[label],
    )


def routing_heatmap(
    probs: np.ndarray, chosen: np.ndarray, token_labels: list[str], expert_labels: list[str]
) -> go.Figure:
    """Token x expert router probabilities; a dot marks each token's chosen experts."""
    heatmap = go.Heatmap(
        z=f32(probs),
        x=expert_labels,
        y=token_labels,
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=1,
        text=np.where(chosen, "●", ""),
        texttemplate="%{text}",
        colorbar={"title": "probability", "thickness": 12},
        hovertemplate="token %{y} → %{x}: probability %{z:.3f}<extra></extra>",
    )
    picks = [
        f"{token} → {', '.join(e for e, c in zip(expert_labels, row, strict=True) if c)}"
        for token, row in zip(token_labels, chosen, strict=True)
    ]
    alt = f"The experts each token is sent to (●): {listed(picks)}."
    return figure(
        [heatmap],
        min(900, max(300, 80 + 30 * len(token_labels))),
        meta={"alt": alt},
        yaxis={"autorange": "reversed", "type": "category", "title": "token"},
        xaxis={"type": "category", "title": "expert (● chosen)"},
    )


def spread_heatmap(values: np.ndarray, rows: list[str], cols: list[str]) -> go.Figure:
    """How far each token's vector moved after each layer: (rows, cols), all >= 0.

    A sequential scale (white = unmoved), since there is no sign to show.
    """
    heatmap = go.Heatmap(
        z=f32(values),
        x=cols,
        y=rows,
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=largest(values),
        colorbar={"title": "moved", "thickness": 12},
        hovertemplate="%{y}<br>token %{x}<br>moved by %{z:.4g}<extra></extra>",
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


def half_planes(keys: np.ndarray, x: np.ndarray, limit: float = 3.0) -> go.Figure:
    """In the (x₁, x₂) plane, where each neuron of a 2-D key set fires (score key · x > 0),
    and the token x as a dot. keys: (K, 2), one key per row; x: (2,).

    Each half-plane is shaded in its own colour and hatch, and named on the plot, so the
    regions read without colour.
    """
    edge = limit * 1.1
    grid = np.linspace(-edge, edge, 2)
    corners = np.array([[-edge, -edge], [edge, -edge], [edge, edge], [-edge, edge]])
    data, marks = [], []
    for k, key in enumerate(keys):
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
        for k, key in enumerate(keys)
    ]
    at = ", ".join(f"{v:g}".replace("-", "−") for v in x)
    alt = f"Your token x = ({at}) in the plane: {'; '.join(where)}."
    return figure(
        data,
        440,
        meta={"alt": alt},
        annotations=marks,
        xaxis={"range": span, "title": "x₁", "zeroline": True, "constrain": "domain"},
        yaxis={"range": span, "title": "x₂", "zeroline": True, "scaleanchor": "x"},
        legend={"orientation": "h", "y": -0.2},
    )


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


def activation_curves(z: np.ndarray, series: dict[str, np.ndarray], ytitle: str) -> go.Figure:
    """The activations' curves over z. GELU-tanh is dashed, since it lies on exact GELU,
    and with both drawn an inset shows their difference, GELU − GELU-tanh; SwiGLU's slice
    up = 1 is dotted, since it is SiLU itself. The inset's axis sits on its right, clear of
    the main y-axis."""
    fig = curves(z, series, "", "z", ytitle)
    for trace in fig.data:
        if trace.name == "GELU-tanh":
            trace.line.dash = "dash"
        if trace.name == "SwiGLU, up = 1":  # silu(z) · 1: it lies on SiLU
            trace.line.dash = "dot"
    if {"GELU", "GELU-tanh"} <= set(series):
        gap = np.asarray(series["GELU"]) - np.asarray(series["GELU-tanh"])
        fig.add_trace(
            go.Scatter(
                x=f32(z),
                y=f32(gap),
                mode="lines",
                name="GELU − GELU-tanh (inset)",
                line={"color": "black", "width": 1.5},
                xaxis="x2",
                yaxis="y2",
                hovertemplate="GELU − GELU-tanh at %{x:.3f}: %{y:.2e}<extra></extra>",
            )
        )
        # top left: for z < 0 every activation stays near 0, so that corner is empty
        inset = {"anchor": "x2", "domain": [0.62, 0.97], "title": {"text": "GELU − tanh"}}
        fig.update_layout(
            xaxis2={"domain": [0.08, 0.42], "anchor": "y2", "showticklabels": False},
            yaxis2={**inset, "exponentformat": "e", "tickfont": {"size": 10}, "side": "right"},
        )
    return fig


def swiglu_surface(grid: np.ndarray, values: np.ndarray) -> go.Figure:
    """silu(gate) · up over a (gate, up) grid, with the two slices drawn on the page's
    curves marked: the diagonal gate = up, and the line up = 1."""
    fig = surface_contour(grid, grid, values, "silu(gate) × up", "gate", "up")
    ends = [float(grid[0]), float(grid[-1])]
    fig.add_trace(
        go.Scatter(
            x=f32(ends),
            y=f32(ends),
            mode="lines",
            name="gate = up = z",
            line={"color": "black", "dash": "dash", "width": 2},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=f32(ends),
            y=f32([1, 1]),
            mode="lines",
            name="up = 1",
            line={"color": "black", "dash": "dot", "width": 2},
        )
    )
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
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
    curve = go.Scatter(
        x=f32(shifts),
        y=f32(losses),
        mode="lines",
        name="loss",
        line={"color": COLOURS[0], "width": 3},
        hovertemplate="s = %{x:.2f}: loss %{y:.6g}<extra></extra>",
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
        [curve, here],
        340,
        title="this token's loss as the score moves",
        xaxis={"title": "change of the score, s"},
        yaxis={"title": "loss"},
        shapes=[line_at(x=kink, dash="dash")],
        annotations=[label],
        legend={"orientation": "h", "y": -0.25},
    )


def loss_and_recall(losses: np.ndarray, recall: np.ndarray) -> go.Figure:
    """A fact store's training: loss and recall per step, (steps,) each, on a log axis where
    a recall of 0 is drawn at 10⁻³."""
    steps = np.arange(1, len(losses) + 1)
    series = {"loss": losses, "recall": np.maximum(recall, 1e-3)}
    fig = log_lines(steps, series, "training", "step", "loss / recall")
    best = int(np.argmax(recall >= recall[-1])) + 1  # the first step at the final recall
    fig.layout.meta = {
        "alt": f"The loss falls from {number(losses[0])} at step 1 to {number(losses[-1])} "
        f"at step {len(losses)}; recall goes from {recall[0]:.0%} at step 1 to "
        f"{recall[-1]:.0%}, first reached at step {best}."
    }
    return fig


def largest_shares(shares: np.ndarray, names: list[str], word: str, most: int = 30) -> go.Figure:
    """The `most` largest of one word's per-neuron shares (d_ff,), largest first: FIRED where
    a neuron pushes the word's score up, SILENT where it pulls it down."""
    top = np.argsort(-shares, kind="stable")[:most]
    return bars(
        [names[j] for j in top],
        shares[top],
        f"each neuron's share of the score of “{word}”",
        "share",
        colours=np.where(shares[top] > 0, FIRED, SILENT),
    )


def key_and_value_bars(
    neuron: str,
    subjects: list[str],
    key_match: np.ndarray,
    words: list[str],
    push: np.ndarray,
    most: int = 8,
) -> list[go.Figure]:
    """[key, value]: one neuron as a key, the `most` subjects that match it best (key_match:
    (F,)), and as a value, the `most` words it pushes up most (push: (V,)); largest first."""
    sides = [
        (subjects, key_match, f"{neuron}'s key: subjects it matches", "match"),
        (words, push, f"{neuron}'s value: words it promotes", "push"),
    ]
    figs = []
    for names, values, title, what in sides:
        best = np.argsort(-values)[:most]
        figs.append(bars([names[i] for i in best], values[best], title, what, horizontal=True))
    return figs


def rank_one_change(
    change: np.ndarray, neuron_names: list[str], coord_names: list[str], most: int = 64
) -> go.Figure:
    """A rank-one change to W2, (d_ff, d_model), on a diverging scale: its first `most` rows,
    named by neuron_names (d_ff,), and its columns named by coord_names (d_model,)."""
    title = "the rank-one change to W2 (d_ff × d_model)"
    return matrix_heatmap(change[:most], neuron_names[:most], coord_names, title, "change")


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


def marker_scale(values: np.ndarray) -> dict:
    """`diverging` for markers, which name the same scale cmin/cmid/cmax."""
    scale = diverging(values)
    return {
        "colorscale": scale["colorscale"],
        "cmid": 0,
        "cmin": scale["zmin"],
        "cmax": scale["zmax"],
    }


LENS_ROW_PX = 18  # each block's row in the logit lens: its top token must fit in it


def lens_strip(blocks: list[str], tops: list[str], p_target: np.ndarray, word: str) -> go.Figure:
    """One row per block, read top to bottom: the top token read there, coloured by the
    target word's probability there (p_target: (L,)), so where the answer appears is
    plain to see. Rows, not columns: a token's text fits across, never in a thin cell."""
    cells = go.Heatmap(
        z=f32(p_target)[:, None],
        x=["top token"],
        y=blocks,
        text=[[top] for top in tops],
        texttemplate="%{text}",
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=1,
        colorbar={"title": f"p({word})", "thickness": 12, "len": 0.6},
        hovertemplate="after block %{y}: top token “%{text}”<br>"
        + f"p({word})"
        + " %{z:.3f}<extra></extra>",
        ygap=1,
    )
    first = next((b for b, top in zip(blocks, tops, strict=True) if top == word), None)
    on_top = (
        f"{word} first comes out on top after block {first}"
        if first
        else (f"{word} never comes out on top")
    )
    late = [f"{b}: {t}" for b, t in zip(blocks[-4:], tops[-4:], strict=True)]
    alt = (
        f"{on_top}; p({word}) is {number(p_target[-1])} after the last block, "
        f"{number(p_target.max())} at most. The top token after the last blocks: "
        f"{', '.join(late)}."
    )
    height = 90 + LENS_ROW_PX * len(blocks)
    return figure(
        [cells],
        height,
        meta={"alt": alt},
        xaxis={"side": "top"},
        yaxis={"title": "after block", "type": "category", "autorange": "reversed"},
    )


def feature_arrows(W: np.ndarray, names: list[str]) -> go.Figure:
    """Each feature's direction W[:, i] in a 2-D hidden space, as an arrow from the origin.

    W: (2, n). A dropped feature is a dot at the origin; features sharing the plane spread
    out like the spokes of a polygon.
    """
    arrows, data = [], []
    for i, name in enumerate(names):
        x, y = float(W[0, i]), float(W[1, i])
        colour = COLOURS[i % len(COLOURS)]
        arrows.append(arrow((0, 0), (x, y), colour))
        data.append(
            go.Scatter(
                x=f32([x]),
                y=f32([y]),
                mode="markers+text",
                name=name,
                text=[name],
                textposition="top center",
                marker={"color": colour, "size": 7},
                hovertemplate=f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
            )
        )
    limit = 1.25 * max(1.0, float(np.abs(W).max()))
    return figure(
        data,
        420,
        annotations=arrows,
        showlegend=False,
        xaxis={"range": [-limit, limit], "title": "hidden 1", "zeroline": True},
        yaxis={"range": [-limit, limit], "title": "hidden 2", "scaleanchor": "x", "zeroline": True},
    )


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

"""Plotly figure builders: arrays in, a go.Figure out, no Streamlit calls.

Arrays go to Plotly as float32 NumPy arrays (compact base64 in the page), and every
trace shows its exact values on hover.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# Okabe-Ito: distinguishable with the common kinds of colour blindness.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
FIRED, SILENT, OTHER = "#D55E00", "#BBBBBB", "#999999"
DIVERGING = "RdBu_r"  # blue below zero, red above, white at zero
MAX_COLUMNS = 256  # heatmap columns drawn; wider layers keep their most active neurons


def f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def compact(fig: go.Figure, height: int = 380) -> go.Figure:
    fig.update_layout(margin={"t": 40, "b": 10, "l": 10, "r": 10}, height=height)
    return fig


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
    """Token x neuron heatmap, diverging around zero; with mask, silent cells are blank.

    values, fired: (T, K).
    """
    z = np.where(fired, values, np.nan) if mask else values
    limit = float(np.nanmax(np.abs(values))) if values.size else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=f32(z),
            x=neuron_labels,
            y=token_labels,
            colorscale=DIVERGING,
            zmid=0,
            zmin=-limit,
            zmax=limit,
            colorbar={"title": what, "thickness": 12},
            hovertemplate=f"token %{{y}}<br>neuron %{{x}}<br>{what} %{{z:.4g}}<extra></extra>",
            xgap=1 if len(neuron_labels) <= 64 else 0,
            ygap=1,
        )
    )
    fig.update_yaxes(autorange="reversed", title="token", type="category")
    fig.update_xaxes(title="hidden neuron", type="category")
    fig.update_layout(plot_bgcolor="#F2F2F2")  # what a masked (silent) cell shows
    return compact(fig, height=min(900, max(340, 80 + 34 * len(token_labels))))


def bars(
    labels: list[str],
    values,
    title: str,
    value_name: str,
    colours=None,
    horizontal=False,
    highlight: int | None = None,
) -> go.Figure:
    """One bar per label with its exact value on hover; `highlight` outlines one bar."""
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
    fig = go.Figure(bar)
    fig.update_layout(title=title)
    if horizontal:
        fig.update_yaxes(autorange="reversed", type="category")
    else:
        fig.update_xaxes(type="category")
    return compact(fig, height=max(300, 40 + 24 * len(labels)) if horizontal else 320)


def histogram(values: np.ndarray, threshold: float, title: str) -> go.Figure:
    """Distribution of activations, binned in NumPy so only the counts travel."""
    values = np.asarray(values).ravel()
    counts, edges = np.histogram(values, bins=60)
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(
        go.Bar(
            x=f32(centres),
            y=f32(counts),
            width=f32(np.diff(edges)),
            marker_color=np.where(centres > threshold, FIRED, SILENT),
            hovertemplate="around %{x:.3g}: %{y} activations<extra></extra>",
        )
    )
    fig.add_vline(x=threshold, line_dash="dash", annotation_text="fires above")
    fig.update_layout(title=title, xaxis_title="activation", yaxis_title="count")
    return compact(fig, 320)


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
    fig = go.Figure()
    for k, label in enumerate(neuron_labels):
        colour = OTHER if label.startswith("other") else COLOURS[k % len(COLOURS)]
        fig.add_bar(
            x=coord_labels,
            y=f32(parts[k]),
            name=label,
            marker_color=colour,
            hovertemplate=f"{label} writes %{{y:.4g}} into %{{x}}<extra></extra>",
        )
    if b2 is not None:
        fig.add_bar(
            x=coord_labels,
            y=f32(b2),
            name="b2",
            marker_color="white",
            marker_line={"color": "black", "width": 1},
            hovertemplate="b2 adds %{y:.4g} to %{x}<extra></extra>",
        )
    fig.add_scatter(
        x=coord_labels,
        y=f32(out),
        mode="markers",
        name="output (the sum)",
        marker={"symbol": "diamond", "size": 14, "color": "black"},
        hovertemplate="output %{x} = %{y:.6g}<extra></extra>",
    )
    fig.update_layout(
        barmode="relative",
        xaxis_title="output coordinate",
        yaxis_title="amount written",
        legend={"orientation": "h", "y": -0.25},
    )
    fig.update_xaxes(type="category")
    fig.add_hline(y=0, line_color="grey", line_width=1)
    return compact(fig, 400)


def arrows_figure(parts: np.ndarray, b2: np.ndarray, labels: list[str]) -> go.Figure:
    """At d_model = 2: each neuron's write as an arrow in the plane, tip to tail, then b2.

    parts: (K, 2). The last tip is the output.
    """
    steps = np.vstack([parts, b2[None, :]])  # (K + 1, 2)
    tips = np.cumsum(steps, axis=0)
    tails = tips - steps
    fig = go.Figure()
    for k, name in enumerate([*labels, "b2"]):
        (x0, y0), (x1, y1) = tails[k], tips[k]
        fig.add_annotation(
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
            arrowcolor=COLOURS[k % len(COLOURS)] if name != "b2" else "black",
        )
        fig.add_scatter(
            x=f32([x1]),
            y=f32([y1]),
            mode="markers",
            name=name,
            marker={"color": COLOURS[k % len(COLOURS)] if name != "b2" else "black", "size": 6},
            hovertemplate=f"after {name}: (%{{x:.4g}}, %{{y:.4g}})<extra></extra>",
        )
    fig.add_scatter(
        x=f32([0]), y=f32([0]), mode="markers", name="start", marker={"color": "grey", "size": 8}
    )
    points = np.vstack([tails, tips, [[0, 0]]])
    pad = 0.15 * max(1.0, float(np.abs(points).max()))
    lo, hi = points.min(axis=0) - pad, points.max(axis=0) + pad
    fig.update_xaxes(range=[lo[0], hi[0]], title="out₁", zeroline=True)
    fig.update_yaxes(range=[lo[1], hi[1]], title="out₂", zeroline=True, scaleanchor="x")
    return compact(fig, 420)


def grouped_bars(series: dict[str, np.ndarray], coord_labels: list[str], title: str) -> go.Figure:
    """Several vectors side by side, one group per coordinate."""
    fig = go.Figure()
    for k, (name, values) in enumerate(series.items()):
        fig.add_bar(
            x=coord_labels,
            y=f32(values),
            name=name,
            marker_color=COLOURS[k % len(COLOURS)],
            hovertemplate=f"{name} %{{x}} = %{{y:.4g}}<extra></extra>",
        )
    fig.update_layout(barmode="group", title=title, legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(type="category")
    fig.add_hline(y=0, line_color="grey", line_width=1)
    return compact(fig, 360)


def matrix_heatmap(
    values: np.ndarray, rows: list[str], cols: list[str], title: str, what: str = "value"
) -> go.Figure:
    """Any matrix on a diverging scale centred on zero, exact values on hover."""
    limit = float(np.max(np.abs(values))) if values.size else 1.0
    fig = go.Figure(
        go.Heatmap(
            z=f32(values),
            x=cols,
            y=rows,
            colorscale=DIVERGING,
            zmid=0,
            zmin=-limit or -1,
            zmax=limit or 1,
            colorbar={"thickness": 12},
            hovertemplate=f"row %{{y}}, column %{{x}}<br>{what} %{{z:.6g}}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    fig.update_layout(title=title)
    return compact(fig, min(700, max(260, 80 + 26 * len(rows))))


def curves(
    z: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    ytitle: str,
    xtitle: str = "z",
    zero_lines: bool = True,
) -> go.Figure:
    """One line per series over the same x axis; zero_lines draws the axes through 0."""
    fig = go.Figure()
    for k, (name, values) in enumerate(series.items()):
        fig.add_scatter(
            x=f32(z),
            y=f32(values),
            mode="lines",
            name=name,
            line={"color": COLOURS[k % len(COLOURS)], "width": 3},
            hovertemplate=f"{name}(%{{x:.3f}}) = %{{y:.6g}}<extra></extra>",
        )
    fig.update_layout(title=title, xaxis_title=xtitle, yaxis_title=ytitle, hovermode="x unified")
    if zero_lines:
        fig.add_hline(y=0, line_color="grey", line_width=1)
        fig.add_vline(x=0, line_color="grey", line_width=1)
    return compact(fig, 380)


def surface_contour(
    xs: np.ndarray, ys: np.ndarray, values: np.ndarray, title: str, xtitle: str, ytitle: str
) -> go.Figure:
    """A function of two inputs as filled contours around zero; values: (len(ys), len(xs))."""
    limit = float(np.max(np.abs(values)))
    fig = go.Figure(
        go.Contour(
            x=f32(xs),
            y=f32(ys),
            z=f32(values),
            colorscale=DIVERGING,
            zmid=0,
            zmin=-limit,
            zmax=limit,
            colorbar={"thickness": 12},
            contours={"showlabels": True},
            hovertemplate=(
                f"{xtitle} %{{x:.2f}}, {ytitle} %{{y:.2f}}<br>value %{{z:.4g}}<extra></extra>"
            ),
        )
    )
    fig.update_layout(title=title, xaxis_title=xtitle, yaxis_title=ytitle)
    return compact(fig, 420)


def decision_surface(
    grid: np.ndarray, prob: np.ndarray, X: np.ndarray, y: np.ndarray, title: str
) -> go.Figure:
    """P(class 1) over a square grid, with the training points on top. prob: (G, G)."""
    fig = go.Figure(
        go.Heatmap(
            x=f32(grid),
            y=f32(grid),
            z=f32(prob),
            colorscale="RdBu_r",
            zmin=0,
            zmax=1,
            colorbar={"title": "P(class 1)", "thickness": 12},
            opacity=0.55,  # pale enough for the points on top to stand out
            hovertemplate="(%{x:.2f}, %{y:.2f}): P = %{z:.3f}<extra></extra>",
        )
    )
    for cls, colour in ((0, COLOURS[0]), (1, COLOURS[5])):
        pts = X[y == cls]
        fig.add_scatter(
            x=f32(pts[:, 0]),
            y=f32(pts[:, 1]),
            mode="markers",
            name=f"class {cls}",
            marker={"color": colour, "size": 6, "line": {"color": "white", "width": 1}},
            hovertemplate=f"class {cls} at (%{{x:.2f}}, %{{y:.2f}})<extra></extra>",
        )
    fig.update_layout(title=title, legend={"orientation": "h", "y": -0.12})
    fig.update_yaxes(scaleanchor="x")
    return compact(fig, 400)


def curve_fit(x: np.ndarray, target: np.ndarray, pred: np.ndarray, title: str) -> go.Figure:
    fig = go.Figure()
    fig.add_scatter(
        x=f32(x),
        y=f32(target),
        mode="markers",
        name="target",
        marker={"color": SILENT, "size": 5},
        hovertemplate="target(%{x:.2f}) = %{y:.4g}<extra></extra>",
    )
    fig.add_scatter(
        x=f32(x),
        y=f32(pred),
        mode="lines",
        name="FFN",
        line={"color": COLOURS[0], "width": 3},
        hovertemplate="FFN(%{x:.2f}) = %{y:.4g}<extra></extra>",
    )
    fig.update_layout(title=title, legend={"orientation": "h", "y": -0.12})
    return compact(fig, 400)


def log_lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    xtitle: str,
    ytitle: str,
    log_x: bool = False,
) -> go.Figure:
    """The same lines as `curves`, on a log y axis (and optionally log x)."""
    fig = curves(x, series, title, ytitle, xtitle, zero_lines=False)
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    fig.update_yaxes(type="log")
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def routing_heatmap(
    probs: np.ndarray, chosen: np.ndarray, token_labels: list[str], expert_labels: list[str]
) -> go.Figure:
    """Token x expert router probabilities; a dot marks each token's chosen experts."""
    fig = go.Figure(
        go.Heatmap(
            z=f32(probs),
            x=expert_labels,
            y=token_labels,
            colorscale="Blues",
            zmin=0,
            zmax=1,
            text=np.where(chosen, "●", ""),
            texttemplate="%{text}",
            colorbar={"title": "probability", "thickness": 12},
            hovertemplate="token %{y} → %{x}: probability %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category", title="token")
    fig.update_xaxes(type="category", title="expert (● chosen)")
    return compact(fig, min(900, max(300, 80 + 30 * len(token_labels))))


def spread_heatmap(values: np.ndarray, rows: list[str], cols: list[str]) -> go.Figure:
    """How far each token's vector moved after each layer: (rows, cols), all >= 0.

    A sequential scale (white = unmoved), since there is no sign to show.
    """
    fig = go.Figure(
        go.Heatmap(
            z=f32(values),
            x=cols,
            y=rows,
            colorscale="Blues",
            zmin=0,
            zmax=float(values.max()) or 1.0,
            colorbar={"title": "moved", "thickness": 12},
            hovertemplate="%{y}<br>token %{x}<br>moved by %{z:.4g}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", title="token")
    fig.update_layout(title="how far each token's vector moved", plot_bgcolor="#F2F2F2")
    return compact(fig, 340)

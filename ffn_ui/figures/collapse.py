"""Collapse's first figure: with no activation between them, W1 · W2 multiply out into one
matrix W_eff, drawn as matrix multiplication is set out by hand: W1 at the bottom left, W2
above W_eff, so that each entry of W_eff sits where its row of W1 meets its column of W2."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import diverging, f32, figure
from ffn_ui.words import number

GAP = 0.05  # the paper's share between the blocks


def product_heatmaps(
    W1: np.ndarray,
    W2: np.ndarray,
    W_eff: np.ndarray,
    names: tuple[list[str], list[str], list[str]],
    note: str = "",
    height: int = 440,
) -> go.Figure:
    """W1 (C, H) · W2 (H, C) = W_eff (C, C), set out as by hand: W1 at the bottom left,
    W2 at the top right, W_eff below W2 and beside W1, where row i of W1 and column j of
    W2 meet. Each matrix on its own diverging scale centred on zero (blue below, red
    above). names: the labels of the inputs (C), the neurons (H) and the outputs (C);
    `note` goes after the title (say, what is left out of a large model); `height` in px."""
    inputs, neurons, outputs = names
    C, H = W1.shape
    left = (1 - GAP) * H / (H + C)  # W1's share of the width, W2's of the height
    low = (1 - GAP) * C / (H + C)  # W1's and W_eff's share of the height
    blocks = {  # name: (values, columns, rows, x domain, y domain)
        "W1": (W1, neurons, inputs, [0, left], [0, low]),
        "W2": (W2, outputs, neurons, [left + GAP, 1], [low + GAP, 1]),
        "W_eff": (W_eff, outputs, inputs, [left + GAP, 1], [0, low]),
    }
    data, layout = [], {}
    for k, (name, (values, cols, rows, xs, ys)) in enumerate(blocks.items(), start=1):
        suffix = "" if k == 1 else str(k)
        data.append(
            go.Heatmap(
                z=f32(values),
                x=cols,
                y=rows,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                showscale=False,
                hovertemplate=f"{name} row %{{y}}, column %{{x}}: %{{z:.4g}}<extra></extra>",
                name=name,
                **diverging(values),
            )
        )
        layout[f"xaxis{suffix}"] = {
            "domain": [round(v, 6) for v in xs],
            "type": "category",
            "anchor": f"y{suffix}",
            "side": "top" if name == "W2" else "bottom",
            "showticklabels": name != "W_eff",  # its columns are W2's, right above
            "tickfont": {"size": 11},
            "title": {"text": f"<b>{name}</b> {values.shape[0]} × {values.shape[1]}"},
        }
        layout[f"yaxis{suffix}"] = {
            "domain": [round(v, 6) for v in ys],
            "type": "category",
            "autorange": "reversed",
            "anchor": f"x{suffix}",
            "showticklabels": name != "W_eff",  # its rows are W1's, level with them
            "tickfont": {"size": 11},
        }
    how = dict(
        x=0,
        y=1,
        xref="paper",
        yref="paper",
        xanchor="left",
        yanchor="top",
        align="left",
        showarrow=False,
        text="W_eff's entry (i, j) is<br>row i of W1 (below)<br>times column j of W2<br>(right): "
        "one matrix,<br>the same for every token.",
    )
    return figure(
        data,
        height,
        title=f"W1 · W2 = W_eff, one {C} × {C} matrix{note}",
        annotations=[how],
        meta={"alt": product_words(blocks)},
        margin={"t": 50, "b": 10, "l": 10, "r": 10},
        **layout,
    )


def product_words(blocks: dict) -> str:
    """Each matrix in words: its shape, and where its largest and smallest entries are."""
    said = []
    for name, (values, cols, rows, _, _) in blocks.items():
        hi = np.unravel_index(np.argmax(values), values.shape)
        lo = np.unravel_index(np.argmin(values), values.shape)
        said.append(
            f"{name}, {values.shape[0]} rows by {values.shape[1]} columns: largest "
            f"{number(values[hi])} at {rows[hi[0]]}, {cols[hi[1]]}; smallest "
            f"{number(values[lo])} at {rows[lo[0]]}, {cols[lo[1]]}."
        )
    return " ".join(said)

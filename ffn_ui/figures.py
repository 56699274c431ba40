"""Plotly figure builders: arrays in, a go.Figure out, no Streamlit calls."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

# Okabe-Ito: distinguishable with the common kinds of colour blindness.
NEURON_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")


def neuron_writes_figure(
    parts: np.ndarray, out: np.ndarray, neuron_labels: list[str], coord_labels: list[str]
) -> go.Figure:
    """What each neuron writes into each output coordinate, stacked, with the output on top.

    parts: (d_ff, d_model), row j = h_j * W2[j]; out: (d_model,), parts summed plus b2.
    """
    fig = go.Figure()
    for j, label in enumerate(neuron_labels):
        fig.add_bar(
            x=coord_labels,
            y=parts[j].astype(np.float32),
            name=label,
            marker_color=NEURON_COLOURS[j % len(NEURON_COLOURS)],
            hovertemplate=f"{label} writes %{{y:.4g}} into %{{x}}<extra></extra>",
        )
    fig.add_scatter(
        x=coord_labels,
        y=out.astype(np.float32),
        mode="markers",
        name="output (sum + b2)",
        marker={"symbol": "diamond", "size": 16, "color": "black"},
        hovertemplate="output %{x} = %{y:.4g}<extra></extra>",
    )
    fig.update_layout(
        barmode="relative",
        xaxis_title="output coordinate",
        yaxis_title="amount written",
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 10, "b": 10, "l": 10, "r": 10},
        height=360,
    )
    fig.add_hline(y=0, line_color="grey", line_width=1)
    return fig

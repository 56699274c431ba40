"""Who fires: the Neurons page's heatmap of every neuron for every token."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import (
    FIRED_SCALE,
    SILENT_CELL,
    diverging,
    figure,
    heatmap_trace,
    largest,
)
from ffn_ui.figures.charts import held_back_heatmap


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
    hidden: bool = False,
) -> go.Figure:
    """Token x neuron heatmap. values, fired: (T, K).

    `hidden`, before the guess of how many fire: every cell the same grey, marked "?", and
    no value nor count of them in the figure or its words.

    With mask, only fired cells are coloured, on a scale whose faintest red is still
    clearly a colour; silent cells are blank grey and, when the cells are wide enough to
    hold it, marked with a dot, so a faint firing never looks like silence. Fired cells
    that are negative (SwiGLU's neurons fire by their size, either way) put the diverging
    scale on them instead. Without mask, every cell shows its value on a diverging scale:
    blue below zero, white at zero.
    """
    height = min(900, max(340, 80 + 34 * len(token_labels)))
    axes = {
        "yaxis": {"autorange": "reversed", "title": "token", "type": "category"},
        "xaxis": {"title": "hidden neuron", "type": "category"},
    }
    if hidden:
        alt = (
            f"A grid of {len(token_labels)} tokens by {len(neuron_labels)} neurons, every "
            f"cell grey: which fired, and the {what} values, wait for the answer."
        )
        return held_back_heatmap(token_labels, neuron_labels, what, alt, height, **axes)
    z = np.where(fired, values, np.nan) if mask else values
    scale = diverging(values)
    shown = np.where(fired, values, 0)
    if mask and not (shown < 0).any():
        scale = {"colorscale": FIRED_SCALE, "zmin": 0, "zmax": largest(shown)}
    elif mask:
        scale = diverging(shown)
    marks = {}
    if mask and len(neuron_labels) <= 64:
        marks = {"text": np.where(fired, "", "·"), "texttemplate": "%{text}"}
    heatmap = heatmap_trace(
        z,
        neuron_labels,
        token_labels,
        what,
        f"token %{{y}}<br>neuron %{{x}}<br>{what} %{{z:.4g}}<extra></extra>",
        **scale,
        **marks,
        xgap=1 if len(neuron_labels) <= 64 else 0,
        ygap=1,
    )
    return figure([heatmap], height, plot_bgcolor=SILENT_CELL, **axes)

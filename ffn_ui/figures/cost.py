"""Scale & cost's FLOPs and Mixture of experts' routing."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import SEQUENTIAL, figure, heatmap_trace, line_at
from ffn_ui.figures.charts import log_lines
from ffn_ui.page.alt_text import listed


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
    heatmap = heatmap_trace(
        probs,
        expert_labels,
        token_labels,
        "probability",
        "token %{y} → %{x}: probability %{z:.3f}<extra></extra>",
        colorscale=SEQUENTIAL,
        zmin=0,
        zmax=1,
        text=np.where(chosen, "●", ""),
        texttemplate="%{text}",
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

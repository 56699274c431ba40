"""Scale & cost's shares and FLOPs, and Mixture of experts' routing."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import (
    COLOURS,
    OTHER,
    SEQUENTIAL,
    SILENT,
    f32,
    figure,
    heatmap_trace,
    line_at,
)
from ffn_ui.figures.charts import log_lines
from ffn_ui.words import listed

PART_COLOURS = (COLOURS[5], COLOURS[0], OTHER)  # the FFN vermillion, attention blue, norms grey


def block_shares(models: list[str], parts: dict[str, np.ndarray], hidden: bool) -> go.Figure:
    """Each model's block as one bar of 100 %, split into its parts' shares of the block's
    weights: parts maps a part's name to its weights per block, (models,) each, stacked in
    order. `hidden` draws every bar whole and grey, its split held back (a question asks
    for it): no trace, hover or word then carries a part's count."""
    title = "where each block's weights sit"
    layout = {
        "barmode": "stack",
        "title": title,
        "xaxis": {"range": [0, 1], "tickformat": ".0%", "title": "share of the block's weights"},
        "yaxis": {"autorange": "reversed", "type": "category"},
        "legend": {"orientation": "h", "y": -0.25, "traceorder": "normal"},
    }
    height = 130 + 32 * len(models)
    if hidden:
        whole = go.Bar(
            x=f32(np.ones(len(models))),
            y=models,
            orientation="h",
            name="the whole block",
            marker_color=SILENT,
            text=["?"] * len(models),
            textposition="inside",
            hovertemplate="%{y}: the split waits for your guess<extra></extra>",
        )
        alt = (
            f"One grey bar per model's block ({listed(models)}); how each splits between "
            "the FFN, attention and the norms is drawn once you have answered the question."
        )
        return figure([whole], height, meta={"alt": alt}, showlegend=False, **layout)
    total = np.sum(list(parts.values()), axis=0).astype(float)  # (models,)
    bars, said = [], []
    for colour, (name, weights) in zip(PART_COLOURS, parts.items(), strict=False):
        share = np.asarray(weights, dtype=float) / total  # (models,)
        said.append(
            f"{name}: " + ", ".join(f"{m} {s:.1%}" for m, s in zip(models, share, strict=True))
        )
        bars.append(
            go.Bar(
                x=f32(share),
                y=models,
                orientation="h",
                name=name,
                marker_color=colour,
                customdata=np.asarray(weights, dtype=float),
                text=[f"{s:.0%}" if s >= 0.08 else "" for s in share],
                textposition="inside",
                hovertemplate=f"%{{y}}: {name} %{{customdata:,.0f}} weights, %{{x:.1%}} of "
                "the block<extra></extra>",
            )
        )
    return figure(
        bars,
        height,
        meta={"alt": "Share of each block's weights. " + "; ".join(said) + "."},
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

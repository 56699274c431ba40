"""Facts in the weights: Memory lab's training and shares, a rank-one change, and the
Language model's logit lens."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import COLOURS, FIRED, SEQUENTIAL, SILENT, curve, f32, figure
from ffn_ui.figures.charts import bars, matrix_heatmap
from ffn_ui.words import number


def loss_and_recall(losses: np.ndarray, recall: np.ndarray) -> go.Figure:
    """A fact store's training: loss per step on a log axis (left), and recall, the share
    of facts recalled, on a linear one from 0 to 100 % (right); (steps,) each."""
    steps = np.arange(1, len(losses) + 1)
    loss = curve(
        steps,
        losses,
        "loss",
        {"color": COLOURS[0], "width": 3},
        hover="loss %{y:.4g}<extra></extra>",
    )
    share = curve(
        steps,
        recall,
        "recall",
        {"color": COLOURS[5], "width": 3, "dash": "dash"},
        hover="recall %{y:.0%}<extra></extra>",
        yaxis="y2",
    )
    best = int(np.argmax(recall >= recall[-1])) + 1  # the first step at the final recall
    alt = (
        f"The loss falls from {number(losses[0])} at step 1 to {number(losses[-1])} "
        f"at step {len(losses)}; recall goes from {recall[0]:.0%} at step 1 to "
        f"{recall[-1]:.0%}, first reached at step {best}."
    )
    return figure(
        [loss, share],
        380,
        title="training: the loss falls, the recall rises",
        meta={"alt": alt},
        hovermode="x unified",
        legend={"orientation": "h", "y": -0.25},
        xaxis={"title": "step"},
        yaxis={"title": "loss (log scale), solid", "type": "log", "tickvals": log_ticks(losses)},
        yaxis2={
            "title": "recall (share of facts), dashed",
            "overlaying": "y",
            "side": "right",
            "range": [0, 1.05],
            "tickvals": [0, 0.25, 0.5, 0.75, 1],
            "tickformat": ".0%",
            "showgrid": False,
        },
    )


def log_ticks(values: np.ndarray) -> list[float]:
    """Where a log axis over `values` (any shape) labels its ticks: the powers of ten
    around them, so that labels never crowd (Plotly's own label 2 and 5 of each power as
    well); 1, 2 and 5 of each power when the values span less than two powers of ten."""
    positive = values[values > 0]
    if positive.size == 0:
        return [1.0]
    low = int(np.floor(np.log10(positive.min())))
    high = int(np.ceil(np.log10(positive.max())))
    powers = [10.0**k for k in range(low, high + 1)]
    if high - low >= 2:
        return powers
    return [p * m for p in powers for m in (1, 2, 5)]


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

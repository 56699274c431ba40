"""Traps' first figure: W2 stored as one flat row-major list, and which of its entries each
output y[i] reads, with the right stride H and with the one-stride mistake's D."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import COLOURS, SILENT_CELL, f32, figure, line_at
from ffn_ui.words import number

ROW_PX = 30  # one output's row of cells


def pale(colour: str, share: float = 0.55) -> str:
    """A colour mixed with white, light enough for black text on it."""
    rgb = np.array([int(colour[k : k + 2], 16) for k in (1, 3, 5)], dtype=float)
    mixed = np.round(rgb + (255 - rgb) * share).astype(int)
    return "#" + "".join(f"{v:02X}" for v in mixed)


def reads(D: int, H: int, stride: int) -> list[range]:
    """The list indices output y[i] reads from W2 (D × H, row-major) when its row i is
    taken to start at i·stride: H entries from there. Stride H is right."""
    return [range(i * stride, i * stride + H) for i in range(D)]


def stride_reads(D: int, H: int, W2: list[float], shown: bool = True) -> go.Figure:
    """W2's flat list (D·H entries) as a row of cells per output and per stride: the cell
    under index k is coloured, in y[i]'s colour and with the number read, when y[i] reads
    entry k. The one-stride rows are blank until `shown` (they answer whether the mistake
    changes the answer); then any read past the list's end is marked ✗, where the code
    raises IndexError."""
    N = D * H
    strides = {f"stride H = {H}": (H, True), f"one stride D = {D}": (D, shown)}
    wrong = reads(D, H, D)
    width = max(N, wrong[-1].stop) if shown else N  # columns: the list, and any read past it
    rows, z, text, hover = [], [], [], []
    for label, (stride, drawn) in strides.items():
        for i, taken in enumerate(reads(D, H, stride)):
            rows.append(f"y{i + 1}, {label}")
            cells, words, tips = [np.nan] * width, [""] * width, [""] * width
            if drawn:
                for j, k in enumerate(taken):
                    cells[k] = i + 1
                    words[k] = number(W2[k]) if k < N else "✗"
                    tips[k] = tip(i, j, k, H, W2)
            z.append(cells)
            text.append(words)
            hover.append(tips)
    scale = []
    for i in range(D):  # one colour per output row, pale enough for its numbers
        colour = pale(COLOURS[i % len(COLOURS)])
        scale += [[i / D, colour], [(i + 1) / D, colour]]
    grid = go.Heatmap(
        z=f32(z),
        x=[str(k) for k in range(width)],
        y=rows,
        text=text,
        texttemplate="%{text}",
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
        colorscale=scale,
        zmin=0.5,
        zmax=D + 0.5,
        showscale=False,
        xgap=2,
        ygap=2,
    )
    end = dict(x=N - 0.5, xref="x", y=1, yref="paper", yanchor="bottom", showarrow=False,
               text=f"end of the list ({N})", font={"size": 11})  # fmt: skip
    marks = {"shapes": [line_at(x=N - 0.5, color="black", dash="dash")], "annotations": [end]}
    if not shown:
        held = dict(x=0.5, xref="paper", y=0.25, yref="paper", showarrow=False,
                    text="held back until the answer", font={"size": 14})  # fmt: skip
        marks = {"annotations": [held]}
    return figure(
        [grid],
        min(620, 150 + ROW_PX * len(rows)),
        title="What each y[i] reads of W2's flat list",
        xaxis={
            "type": "category",
            "title": f"index in W2's list ({D} × {H} = {N} entries)",
            "tickfont": {"size": 11},
        },
        yaxis={"type": "category", "autorange": "reversed"},
        plot_bgcolor=SILENT_CELL,
        meta={"alt": reads_in_words(D, H, shown)},
        **marks,
    )


def tip(i: int, j: int, k: int, H: int, W2: list[float]) -> str:
    """What y[i] takes as W2[i][j] when it reads entry k of the list."""
    if k >= len(W2):
        return f"y{i + 1} reads W2[{k}] for W2[{i}][{j}]: past the list's end, IndexError"
    read = f"y{i + 1} reads W2[{k}] = {number(W2[k])} for W2[{i}][{j}]"
    return read if divmod(k, H) == (i, j) else read + f"; it is W2[{k // H}][{k % H}]"


def spans(taken: list[range]) -> str:
    return ", ".join(f"y{i + 1} entries {r.start} to {r.stop - 1}" for i, r in enumerate(taken))


def reads_in_words(D: int, H: int, shown: bool) -> str:
    """What the figure shows: each output's span with each stride, and, for the mistake,
    the entries read twice, never, or past the end."""
    N = D * H
    said = f"W2's list has {N} entries. With stride H = {H}: {spans(reads(D, H, H))}."
    if not shown:
        return said + f" With one stride D = {D}: held back until the answer."
    wrong = reads(D, H, D)
    counts = np.bincount([k for r in wrong for k in r], minlength=N)
    said += f" With one stride D = {D}: {spans(wrong)}."
    if H == D or D == 1:
        return said + " The same entries as the right stride."
    twice, never = np.flatnonzero(counts[:N] > 1), np.flatnonzero(counts[:N] == 0)
    past = int(counts[N:].sum())
    for found, how in ((twice, "read more than once"), (never, "never read")):
        if found.size:
            said += f" Entries {', '.join(map(str, found))}: {how}."
    if past:
        said += f" {past} reads past the list's end: IndexError."
    return said

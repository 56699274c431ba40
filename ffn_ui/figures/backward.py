"""The backward pass drawn: Backprop's maps stacked over the same neurons (the gradient
going back through the gate), and Build it's diagram of the lines a learner writes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ffn_ui.figures.base import COLOURS, diverging, f32, figure
from ffn_ui.words import number

PANEL_GAP = 0.08  # the paper's height between two maps, where the lower one's title stands
GATE_SCALE = [[0.0, "#F2F2F2"], [1.0, COLOURS[0]]]  # closed: pale grey; open: blue


@dataclass(frozen=True)
class Panel:
    """One map of a stack: its title, its values (rows, columns) or None while held back,
    its colour bar's title, and whether it is a 0/1 gate (else signed, centred on 0)."""

    title: str
    values: np.ndarray | None
    what: str
    gate: bool = False


def stacked_maps(
    panels: list[Panel],
    rows: list[str],
    cols: list[str],
    title: str,
    marked: tuple[int, int] | None = None,
) -> go.Figure:
    """Maps of the same positions (rows) and neurons (columns), one above the other, each
    with its own colour bar beside it; a held-back map (values None) says so in its place.
    `marked`: (row, column) of one cell, outlined on every map."""
    k = len(panels)
    height = (1 - PANEL_GAP * (k - 1)) / k  # each map's share of the paper
    data, layout, notes, shapes = [], {}, [], []
    for n, panel in enumerate(panels):
        suffix = "" if n == 0 else str(n + 1)
        top = 1 - n * (height + PANEL_GAP)
        domain = [round(max(top - height, 0.0), 6), round(top, 6)]
        layout[f"yaxis{suffix}"] = {
            "domain": domain,
            "type": "category",
            "autorange": "reversed",
            "anchor": f"x{suffix}",
            "tickfont": {"size": 11},
        }
        layout[f"xaxis{suffix}"] = {
            "type": "category",
            "anchor": f"y{suffix}",
            "matches": "x" if n else None,
            "showticklabels": n == k - 1,  # the neurons, named once under the last map
            "tickfont": {"size": 11},
        }
        notes.append(
            dict(x=0, y=top, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
                 text=f"<b>{panel.title}</b>", showarrow=False)
        )  # fmt: skip
        if panel.values is None:
            notes.append(
                dict(x=0.5, y=top - height / 2, xref="paper", yref="paper", showarrow=False,
                     text="held back until the answer")
            )  # fmt: skip
            data.append(  # an empty map keeps the rows and columns in place
                go.Heatmap(z=f32(np.full((len(rows), len(cols)), np.nan)), x=cols, y=rows,
                           xaxis=f"x{suffix}", yaxis=f"y{suffix}", showscale=False,
                           hoverinfo="skip", name=panel.what)
            )  # fmt: skip
            continue
        scale = (
            {"colorscale": GATE_SCALE, "zmin": 0, "zmax": 1}
            if panel.gate
            else diverging(panel.values)
        )
        data.append(
            go.Heatmap(
                z=f32(panel.values),
                x=cols,
                y=rows,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                name=panel.what,
                colorbar={"title": panel.what, "thickness": 10, "len": height,
                          "y": top - height / 2, "yanchor": "middle"},
                hovertemplate=f"%{{y}}, %{{x}}<br>{panel.what} %{{z:.4g}}<extra></extra>",
                **scale,
            )
        )  # fmt: skip
        if marked is not None:
            r, c = marked
            shapes.append(
                dict(type="rect", xref=f"x{suffix}", yref=f"y{suffix}", x0=c - 0.5, x1=c + 0.5,
                     y0=r - 0.5, y1=r + 0.5, line={"color": "black", "width": 3})
            )  # fmt: skip
    for axis in layout.values():
        if axis.get("matches") is None:
            axis.pop("matches", None)
    return figure(
        data,
        min(720, 90 + k * (34 + 20 * len(rows))),
        title=title,
        annotations=notes,
        shapes=shapes,
        meta={"alt": maps_in_words(panels, rows, cols)},
        margin={"t": 70, "b": 10, "l": 10, "r": 10},
        **layout,
    )


def maps_in_words(panels: list[Panel], rows: list[str], cols: list[str]) -> str:
    """Each map in words: its size, how many cells are exactly 0, its largest and smallest
    entries and where; a held-back map, that it is."""
    said = []
    for panel in panels:
        if panel.values is None:
            said.append(f"{panel.title}: held back until the answer.")
            continue
        v = panel.values
        hi, lo = (np.unravel_index(pick(v), v.shape) for pick in (np.argmax, np.argmin))
        said.append(
            f"{panel.title}: {len(rows)} rows by {len(cols)} columns, "
            f"{int(np.sum(v == 0)):,} of {v.size:,} cells exactly 0; largest {number(v[hi])} "
            f"at {rows[hi[0]]}, {cols[hi[1]]}; smallest {number(v[lo])} at {rows[lo[0]]}, "
            f"{cols[lo[1]]}."
        )
    return " ".join(said)


# Build it's diagram: where each quantity's box stands, (x, y): the forward pass on the top
# row, the backward pass walking back along the middle one, the weights' gradients below.
PLACES = {
    "x": (0, 2), "h_pre": (1, 2), "h": (2, 2), "out": (3, 2),
    "dx": (0, 1), "dh_pre": (1, 1), "dh": (2, 1), "dout": (3, 1),
    "dW1": (0.55, 0), "db1": (1.45, 0), "dW2": (2.55, 0), "db2": (3.45, 0),
}  # fmt: skip
# Each arrow: (from, to), along the forward pass, then back.
ARROWS = [
    ("x", "h_pre"), ("h_pre", "h"), ("h", "out"), ("out", "dout"),
    ("dout", "dh"), ("dh", "dh_pre"), ("dh_pre", "dx"),
    ("dh_pre", "dW1"), ("dh_pre", "db1"), ("dout", "dW2"), ("dout", "db2"),
]  # fmt: skip
# A line's state: its box's fill, its border, and the word on it (meaning not on colour alone).
STATES = {
    "given": ("#E8E8E8", "#888888", "given"),
    "to write": ("#FFFFFF", "#666666", "to write"),
    "wrong": ("#F6CDBF", "#D55E00", "✗ wrong"),
    "right": ("#BFE6DA", "#009E73", "✓ right"),
}
BOX_W, BOX_H = 0.88, 0.62  # a box's size, in the diagram's units


def line_diagram(
    states: dict[str, str], shapes: dict[str, tuple], about: dict[str, str], next_line: str | None
) -> go.Figure:
    """The forward and backward lines as boxes: x → h_pre → h → out, then back from dout
    through dh and dh_pre to dx and to each weight's gradient. Each box says its name, its
    shape and its state (STATES: right, wrong, to write; x and dout are given), in words and
    in colour; the next line to write has a thick border. about: what each line is (hover)."""
    shapes_drawn, notes = [], []
    for start, end in ARROWS:
        (x0, y0), (x1, y1) = PLACES[start], PLACES[end]
        dx, dy = x1 - x0, y1 - y0
        # from the edge of one box to the edge of the next
        sx = 0.5 * BOX_W * np.sign(dx) if abs(dx) >= abs(dy) * 1.5 else 0.0
        sy = 0.5 * BOX_H * np.sign(dy) if sx == 0 else 0.0
        notes.append(
            dict(x=x1 - sx, y=y1 - sy, ax=x0 + sx, ay=y0 + sy, xref="x", yref="y", axref="x",
                 ayref="y", showarrow=True, arrowhead=2, arrowwidth=1.5, arrowcolor="#555555",
                 text="")
        )  # fmt: skip
    for name, (x, y) in PLACES.items():
        state = states.get(name, "given")
        fill, border, word = STATES[state]
        thick = name == next_line
        shapes_drawn.append(
            dict(type="rect", x0=x - BOX_W / 2, x1=x + BOX_W / 2, y0=y - BOX_H / 2,
                 y1=y + BOX_H / 2, fillcolor=fill, layer="below",
                 line={"color": "black" if thick else border, "width": 4 if thick else 1.5,
                       "dash": "dash" if state == "to write" and not thick else "solid"})
        )  # fmt: skip
        shape = ",".join(str(n) for n in shapes[name])  # no spaces: the box is narrow
        said = "next" if thick else word
        label = f"<b>{name}</b><br>({shape}{',' if len(shapes[name]) == 1 else ''})<br>{said}"
        notes.append(dict(x=x, y=y, xref="x", yref="y", text=label, showarrow=False,
                          font={"color": "#1F1F1F"}))  # fmt: skip
    names = list(PLACES)
    hover = go.Scatter(
        x=f32([PLACES[n][0] for n in names]),
        y=f32([PLACES[n][1] for n in names]),
        mode="markers",
        marker={"size": 40, "opacity": 0},
        hovertext=[f"{n}: {about.get(n, 'given')}, {states.get(n, 'given')}" for n in names],
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
    )
    lines = list(about)  # in the order they are written: three forward, then the backward
    rows = {"forward": lines[:3], "backward": lines[3:]}
    alt = " ".join(
        f"{way.capitalize()}: "
        + "; ".join(f"{n} {shapes[n]} {states.get(n, 'given')}" for n in row)
        + "."
        for way, row in rows.items()
    )
    right = sum(s == "right" for s in states.values())
    alt += f" Lines right: {right} of {len(about)}" + (
        f"; next: {next_line}." if next_line else "."
    )
    axis = {"visible": False, "fixedrange": True}
    return figure(
        [hover],
        380,
        title="Your lines: forward on top, back below",
        shapes=shapes_drawn,
        annotations=notes,
        xaxis={**axis, "range": [-0.5, 3.9]},
        yaxis={**axis, "range": [-0.4, 2.4]},
        plot_bgcolor="white",
        meta={"alt": alt},
    )

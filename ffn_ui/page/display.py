"""Putting figures on a page: larger in presenter mode, or two to a row, with the figure in
numbers under each; and, on a projector, text a teacher says aloud tucked away."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ffn_ui.classroom import recording
from ffn_ui.figures import FONT_SIZE
from ffn_ui.page.alt_text import describe

IN_NUMBERS = "The figure in numbers: "
PRESENTER_FONT = 20  # chart text on a projector, in step with the page's 24 px (18 px otherwise)
PRESENTER_TICKS = 18  # Streamlit's theme sizes ticks from the page's font when the chart is
# drawn, which can be before the presenter style applies (13.5 px then): so they are set here
# The chart toolbar keeps saving a picture and resetting the axes (dragging still zooms,
# a double click resets): each button is a Tab stop, and eight on every chart kept a
# keyboard user from a page's first question.
CHART_CONFIG = {
    "modeBarButtonsToRemove": ["zoom2d", "pan2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]
}


def show(fig: go.Figure, presenter: bool, **kwargs) -> None:
    """Draw a figure, and under it the figure in numbers; a teacher's page also records
    it for the class (ffn_ui/classroom/recording.py)."""
    alt = describe(fig)
    recording.figure(fig, alt)
    draw(fig, alt, presenter, **kwargs)


def draw(fig: go.Figure, alt: str, presenter: bool, words_below: bool = True, **kwargs) -> None:
    """The figure, and under it `alt`, the figure in numbers, as plain text (no Markdown:
    the labels may be a visitor's words). In presenter mode every text in the figure grows
    with the page's: the hover labels, the ticks (set here, not left to the chart theme),
    and an axis that set a smaller size of its own (an inset) in proportion. The figure
    is changed in place. With `words_below` False, `alt` is only the chart's accessible
    name, and the caller shows the words elsewhere (the class view, all at its end)."""
    if st.session_state.get("contrast", False):
        bolder(fig)
    if presenter:
        fig.update_layout(
            font_size=PRESENTER_FONT,
            hoverlabel_font_size=PRESENTER_FONT,
            height=int((fig.layout.height or 400) * 1.3),
        )
        for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
            if axis.tickfont.size:
                axis.tickfont.size = round(axis.tickfont.size * PRESENTER_FONT / FONT_SIZE)
            else:
                axis.tickfont.size = PRESENTER_TICKS
    kwargs.setdefault("config", CHART_CONFIG)
    if words_below:
        st.plotly_chart(fig, **kwargs)
        st.text(f"{IN_NUMBERS}{alt}")
    else:  # the words are the chart's name for a screen reader; the page shows them later
        st.plotly_chart(fig, alt=alt, **kwargs)


def bolder(fig: go.Figure) -> None:
    """High contrast, for a washed-out projector: black text and axes, darker grid lines,
    and lines half as thick again."""
    fig.update_layout(font_color="black")
    axes = {
        "linecolor": "black",
        "showline": True,
        "gridcolor": "#888888",
        "tickcolor": "black",
        "tickfont_color": "black",  # Streamlit's chart theme greys ticks and axis titles
        "title_font_color": "black",
    }
    fig.update_xaxes(**axes)
    fig.update_yaxes(**axes)
    for trace in fig.data:
        if trace.type in ("scatter", "scattergl") and "lines" in (trace.mode or ""):
            trace.line.width = 1.5 * (trace.line.width or 2)


def show_in_pairs(figs: list[go.Figure], presenter: bool) -> None:
    """Figures two a row, in order."""
    for start in range(0, len(figs), 2):
        for column, fig in zip(st.columns(2), figs[start : start + 2], strict=False):
            with column:
                show(fig, presenter)


def tucked(label: str, presenter: bool):
    """Where a page writes what a teacher would say aloud before its first figure: a closed
    expander named `label` in presenter mode, so that the figure gets the first screen of a
    projector; the page itself otherwise."""
    return st.expander(label) if presenter else st.container()

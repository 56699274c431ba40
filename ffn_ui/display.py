"""Putting figures on a page: larger in presenter mode, or two to a row."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st


def show(fig: go.Figure, presenter: bool, **kwargs) -> None:
    """Draw a figure, larger in presenter mode."""
    if presenter:
        fig.update_layout(font_size=20, height=int((fig.layout.height or 400) * 1.3))
    st.plotly_chart(fig, **kwargs)


def show_in_pairs(figs: list[go.Figure], presenter: bool) -> None:
    """Figures two a row, in order."""
    for start in range(0, len(figs), 2):
        for column, fig in zip(st.columns(2), figs[start : start + 2], strict=False):
            with column:
                show(fig, presenter)

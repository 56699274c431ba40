"""Putting figures and shared pickers on a page."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ffn_ui.model import Model
from ffn_ui.url import bound_select


def show(fig: go.Figure, presenter: bool, **kwargs) -> None:
    """Draw a figure, larger in presenter mode."""
    if presenter:
        fig.update_layout(font_size=20, height=int((fig.layout.height or 400) * 1.3))
    else:
        fig.update_layout(font_size=14)
    st.plotly_chart(fig, **kwargs)


def neuron_labels(d_ff: int) -> list[str]:
    return [f"n{j + 1}" for j in range(d_ff)]


def pick_token_and_neuron(model: Model, container=st) -> tuple[int, int]:
    """The token and neuron a learner is looking at; shared by the Neurons and Key–value pages."""
    left, right = container.columns(2)
    token = bound_select("token", "tok", model.token_labels, model.token_labels[0], left)
    labels = neuron_labels(model.d_ff)
    neuron = bound_select("neuron", "neuron", labels, labels[0], right)
    return model.token_labels.index(token), labels.index(neuron)

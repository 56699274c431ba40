"""Putting figures and shared pickers on a page."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ffn_ui.labels import labels
from ffn_ui.model import Toy
from ffn_ui.url import bound_select


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


def pick_token_and_neuron(toy: Toy, container=st) -> tuple[int, int]:
    """The token and neuron a learner is looking at; shared by the Neurons and Key–value pages."""
    left, right = container.columns(2)
    token = bound_select(
        "token",
        "tok",
        toy.token_labels,
        toy.token_labels[0],
        left,
        gone=tokens_gone(toy),
        carry=same_position(toy.token_labels),
    )
    neurons = labels("n", toy.d_ff)
    neuron = bound_select(
        "neuron", "neuron", neurons, neurons[0], right, gone=f"now that d_ff = {toy.d_ff}"
    )
    return toy.token_labels.index(token), neurons.index(neuron)


def tokens_gone(toy: Toy) -> str:
    """Why a picked token may be gone: the end of the note the token pickers show."""
    return f"now that there {'is 1 token' if toy.T == 1 else f'are {toy.T} tokens'}"


def same_position(token_labels: list[str]):
    """For a token picker: a pick from an earlier input ("3: sat") maps to the token now at
    the same position ("3: dog"), if there is one."""
    by_position = {label.split(":")[0]: label for label in token_labels}

    def carry(old: object) -> str | None:
        return by_position.get(str(old).split(":")[0])

    return carry

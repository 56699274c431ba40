"""The pickers several pages share: a token, a neuron, and what happens to a pick when
the tokens change under it."""

from __future__ import annotations

import streamlit as st

from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_select
from ffn_ui.toy import Toy


def pick_token(
    tokens: list[str],
    label: str = "token",
    key: str = "tok",
    container=st,
    default: int = 0,
    gone: str = "",
) -> int:
    """The index of the token picked among `tokens` (labels like "3: sat"), bound to the URL
    by `key`. A pick that is gone from new tokens moves to the token at its position."""
    token = bound_select(
        label,
        key,
        tokens,
        tokens[min(default, len(tokens) - 1)],
        container,
        gone=gone,
        carry=same_position(tokens),
    )
    return tokens.index(token)


def pick_token_and_neuron(toy: Toy, container=st) -> tuple[int, int]:
    """The token and neuron a learner is looking at; shared by the Neurons and Key–value pages."""
    left, right = container.columns(2)
    t = pick_token(toy.token_labels, container=left, gone=tokens_gone(toy))
    neurons = labels("n", toy.d_ff)
    neuron = bound_select(
        "neuron", "neuron", neurons, neurons[0], right, gone=f"now that d_ff = {toy.d_ff}"
    )
    return t, neurons.index(neuron)


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

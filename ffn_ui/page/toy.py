"""The toy every page works on: its sizes, activation, weights and tokens, from the sidebar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# What the sidebar shows -> the core's activation names. Short labels keep URLs readable.
ACTIVATION_LABELS = {
    "ReLU": "relu",
    "GELU": "gelu",
    "GELU-tanh": "gelu_tanh",
    "SiLU": "silu",
    "none": "identity",
}
MAX_EDIT = 16  # weights are editable in tables up to d_model, d_ff <= 16


def weight(name: str, shape: str) -> property:
    """A property of the toy that reads one of its weights: toy.W1 is toy.weights["W1"]."""
    return property(lambda toy: toy.weights[name], doc=shape)


@dataclass(frozen=True)
class Toy:
    """The sidebar's toy FFN and its tokens: what a page needs to run it and label its figures."""

    d_model: int
    d_ff: int
    activation: str  # a key of ffn_core.ACTIVATIONS
    activation_label: str
    weights: dict[str, np.ndarray]  # W1 (d_model, d_ff), b1, W2 (d_ff, d_model), b2
    # The same weights again, for what must not hold them (a fragment keeps its arguments
    # for as long as the session lives): random ones come back from the shared cache.
    again: Callable[[], dict[str, np.ndarray]]
    x: np.ndarray  # (T, d_model)
    token_labels: list[str]  # T labels, unique, in order
    presenter: bool
    tokens_from: str = "sentence"  # "sentence", "random" or "edited"

    @property
    def T(self) -> int:
        return self.x.shape[0]

    W1 = weight("W1", "(d_model, d_ff): column j is neuron j's key")
    b1 = weight("b1", "(d_ff,)")
    W2 = weight("W2", "(d_ff, d_model): row j is neuron j's value")
    b2 = weight("b2", "(d_model,)")

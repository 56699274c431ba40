"""The toy every page works on: its sizes, activation, weights and tokens, from the sidebar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ffn_core import forms
from ffn_core.activations import LABELS, Activation, get_activation

# What the sidebar shows -> the core's names: each activation's label (ffn_core.activations),
# then SwiGLU, the gated FFN (ffn_core.forms). Short labels keep URLs readable.
ACTIVATION_LABELS = LABELS
FFN_LABELS = {**ACTIVATION_LABELS, "SwiGLU": "swiglu"}
MAX_EDIT = 16  # weights are editable in tables up to d_model, d_ff <= 16


def weight(name: str, shape: str) -> property:
    """A property of the toy that reads one of its weights: toy.W1 is toy.weights["W1"]."""
    return property(lambda toy: toy.weights[name], doc=shape)


@dataclass(frozen=True)
class Toy:
    """The sidebar's toy FFN and its tokens: what a page needs to run it and label its figures."""

    d_model: int
    d_ff: int
    activation: str  # a key of ffn_core.ACTIVATIONS, or "swiglu" (ffn_core.forms)
    activation_label: str
    # W1 (d_model, d_ff), b1, W2 (d_ff, d_model), b2; or W_gate, W_up (d_model, d_ff) and
    # W_down (d_ff, d_model) when gated
    weights: dict[str, np.ndarray]
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

    @property
    def gated(self) -> bool:
        """SwiGLU: three matrices, no biases, and a gate instead of an activation."""
        return forms.is_gated(self.activation)

    @property
    def bend(self) -> Activation:
        """The plain FFN's activation and its facts (ffn_core.activations); SwiGLU's gate,
        SiLU, when gated."""
        return get_activation(forms.GATES.get(self.activation, self.activation))

    @property
    def cost_kind(self) -> str:
        """What ffn_core.lessons.costs counts: "swiglu" (three matrices) or "standard" (two)."""
        return "swiglu" if self.gated else "standard"

    @property
    def scores(self) -> np.ndarray:
        """(T, d_ff): each token against each neuron's key, x·W1 + b1; for SwiGLU the
        gate's scores x·W_gate."""
        if self.gated:
            return self.x @ self.W_gate
        return self.x @ self.W1 + self.b1

    def forward(self, x: np.ndarray) -> np.ndarray:
        """FFN(x), (..., d_model) for x (..., d_model), in the toy's form."""
        return forms.run(x, self.weights, self.activation)[0]

    W1 = weight("W1", "(d_model, d_ff): column j is neuron j's key")
    b1 = weight("b1", "(d_ff,)")
    W2 = weight("W2", "(d_ff, d_model): row j is neuron j's value")
    b2 = weight("b2", "(d_model,)")
    W_gate = weight("W_gate", "(d_model, d_ff): column j is how neuron j's gate opens")
    W_up = weight("W_up", "(d_model, d_ff): column j is neuron j's signed key")
    W_down = weight("W_down", "(d_ff, d_model): row j is neuron j's value")

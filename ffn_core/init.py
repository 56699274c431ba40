"""Starting weights for the explorer: random schemes and the lesson's hand-set example."""

from __future__ import annotations

import numpy as np

INIT_SCHEMES = ("normal", "xavier")


def init_weights(
    d_model: int, d_ff: int, scheme: str = "normal", seed: int = 0, gated: bool = False
) -> dict[str, np.ndarray]:
    """W1 (d_model, d_ff), b1 (d_ff,), W2 (d_ff, d_model), b2 (d_model,), biases zero; or,
    `gated`, SwiGLU's W_gate and W_up (d_model, d_ff) and W_down (d_ff, d_model).

    normal: entries N(0, 1 / fan_in), so a unit-variance input keeps unit variance.
    xavier: Glorot uniform, U(-a, a) with a = sqrt(6 / (fan_in + fan_out)).
    """
    if scheme not in INIT_SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; expected one of {', '.join(INIT_SCHEMES)}")
    rng = np.random.default_rng(seed)

    def matrix(fan_in: int, fan_out: int) -> np.ndarray:
        if scheme == "normal":
            return rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-bound, bound, (fan_in, fan_out))

    W1 = matrix(d_model, d_ff)  # (d_model, d_ff): W_gate when gated
    W2 = matrix(d_ff, d_model)  # (d_ff, d_model): W_down when gated
    if gated:
        W_up = matrix(d_model, d_ff)  # (d_model, d_ff), drawn after the others
        return {"W_gate": W1, "W_up": W_up, "W_down": W2}
    return {"W1": W1, "b1": np.zeros(d_ff), "W2": W2, "b2": np.zeros(d_model)}


def lesson_example() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The lesson's tiny trace: x = [1, -1], keys [1, 1] and [1, -1], W2 = I, zero biases.

    Keys are columns of W1 in the x @ W convention. The output is [0, 2].
    """
    keys = np.array([[1.0, 1.0], [1.0, -1.0]])  # one key per row, as the lesson writes them
    weights = {"W1": keys.T, "b1": np.zeros(2), "W2": np.eye(2), "b2": np.zeros(2)}
    return np.array([[1.0, -1.0]]), weights

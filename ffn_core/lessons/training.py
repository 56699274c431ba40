"""Training a small FFN on toy tasks with the core's backward pass and Adam.

The FFN's output has d_model coordinates. A 2-D classification task uses them as the two
class scores (softmax cross-entropy); a 1-D curve uses the single output as the prediction
(mean squared error). No extra layer is added, so what is trained is exactly the FFN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ffn_core.forms import is_gated, run, run_backward
from ffn_core.init import init_weights
from ffn_core.softmax import log_softmax, softmax

TASKS = {
    "XOR": "classify",
    "two circles": "classify",
    "spiral": "classify",
    "two blobs": "classify",
    "|x|": "regress",
    "sin": "regress",
    "line": "regress",
}


def make_task(name: str, n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points X (n, 2) with labels y in {0, 1}, or X (n, 1) with targets y (n,)."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; expected one of {', '.join(TASKS)}")
    rng = np.random.default_rng(seed)
    if name == "XOR":
        centres = rng.choice([-1.0, 1.0], size=(n, 2))
        return centres + 0.3 * rng.standard_normal((n, 2)), (centres.prod(axis=1) > 0).astype(int)
    if name == "two circles":
        y = rng.integers(0, 2, n)
        radius = np.where(y == 1, 0.5, 1.3) + 0.12 * rng.standard_normal(n)
        angle = rng.uniform(0, 2 * np.pi, n)
        return np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]), y
    if name == "spiral":
        y = rng.integers(0, 2, n)
        t = rng.uniform(0.25, 1.0, n) * 3 * np.pi
        X = np.column_stack([t * np.cos(t + np.pi * y), t * np.sin(t + np.pi * y)]) / (3 * np.pi)
        return 1.6 * X + 0.03 * rng.standard_normal((n, 2)), y
    if name == "two blobs":
        y = rng.integers(0, 2, n)
        return np.where(y[:, None] == 1, 0.8, -0.8) + 0.4 * rng.standard_normal((n, 2)), y
    x = np.sort(rng.uniform(-2, 2, n))
    target = {"|x|": np.abs(x), "sin": np.sin(2 * x), "line": 0.5 * x + 0.2}[name]
    return x[:, None], target


def loss_and_grad(out: np.ndarray, y: np.ndarray, kind: str) -> tuple[float, np.ndarray]:
    """Mean loss over the n points and dL/dout, shape of out (n, d_model).

    classify: softmax cross-entropy over the output coordinates, y the class index.
    regress: mean squared error of out[:, 0] against y.
    """
    n = out.shape[0]
    if kind == "classify":
        log_p = log_softmax(out)  # (n, classes)
        dout = np.exp(log_p)
        dout[np.arange(n), y] -= 1
        return float(-log_p[np.arange(n), y].mean()), dout / n
    err = out[:, 0] - y  # (n,)
    dout = np.zeros_like(out)
    dout[:, 0] = 2 * err / n
    return float(np.mean(err**2)), dout


def score(out: np.ndarray, y: np.ndarray, kind: str) -> float:
    """Accuracy for classification; R² (1 = perfect) for a curve."""
    if kind == "classify":
        return float(np.mean(out.argmax(axis=1) == y))
    return float(1 - np.sum((out[:, 0] - y) ** 2) / np.sum((y - y.mean()) ** 2))


class Adam:
    """Adam (beta1 0.9, beta2 0.999, eps 1e-8) over a dict of arrays, updated in place."""

    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for name, g in grads.items():
            m, v = self.moments[name]
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            m_hat = m / (1 - 0.9**self.t)
            v_hat = v / (1 - 0.999**self.t)
            self.params[name] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


@dataclass(frozen=True)
class TrainResult:
    weights: dict[str, np.ndarray]
    losses: np.ndarray  # (steps,)
    scores: np.ndarray  # (steps,): accuracy or R² after each step


def train_ffn(
    X: np.ndarray,
    y: np.ndarray,
    kind: str,
    d_ff: int,
    activation: str,
    steps: int,
    lr: float = 0.02,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> TrainResult:
    """Full-batch Adam on the FFN d_model -> d_ff -> d_model: `activation` names its bend,
    or a gated form ("swiglu", or "bilinear" with no SiLU; see ffn_core.forms).

    Deterministic for a seed. `progress(step)` is called every 50 steps.
    """
    start = init_weights(X.shape[1], d_ff, "normal", seed, gated=is_gated(activation))
    weights = {k: v.copy() for k, v in start.items()}
    optimiser = Adam(weights, lr)
    losses, scores = np.zeros(steps), np.zeros(steps)
    for step in range(steps):
        out, cache = run(X, weights, activation)
        losses[step], dout = loss_and_grad(out, y, kind)
        scores[step] = score(out, y, kind)
        _, grads = run_backward(dout, cache)
        optimiser.step(grads)
        if progress is not None and step % 50 == 0:
            progress(step)
    return TrainResult(weights, losses, scores)


def class_probability(weights: dict[str, np.ndarray], points: np.ndarray, activation: str):
    """P(class 1) that a trained two-class network gives each point: points (n, 2) -> (n,)."""
    out, _ = run(points, weights, activation)  # (n, 2): class scores
    return softmax(out)[:, 1]


def probability_grid(
    weights: dict[str, np.ndarray], activation: str, extent: float = 2.2, n: int = 60
) -> tuple[np.ndarray, np.ndarray]:
    """P(class 1) over an n × n grid of [-extent, extent]²: (grid (n,), prob (n, n)), where
    prob[i, j] is the probability at the point (grid[j], grid[i])."""
    grid = np.linspace(-extent, extent, n)  # (n,)
    gx, gy = np.meshgrid(grid, grid)  # (n, n) each
    points = np.column_stack([gx.ravel(), gy.ravel()])  # (n², 2)
    return grid, class_probability(weights, points, activation).reshape(n, n)

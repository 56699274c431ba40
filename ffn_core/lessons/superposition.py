"""Toy models of superposition (Elhage et al. 2022): more features than dimensions.

n sparse features x go down into m < n dimensions and back up:

    h  = x @ Wᵀ                   (B, m)    W: (m, n), column i is feature i's direction
    z  = h @ W + b                (B, n)
    x' = ReLU(z)                  (B, n)
    L  = mean_batch Σ_i I_i (x_i − x'_i)²   importance I: (n,)

When features are dense the model keeps the m most important ones, at right angles, and
drops the rest. When they are sparse, two features rarely fire together, so the model can
afford to give several of them overlapping directions: it stores more features than it
has dimensions, and the ReLU filters out the small interference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ffn_core.activations import relu
from ffn_core.ffn import ffn_backward, ffn_forward
from ffn_core.lessons.training import Adam

STEPS, BATCH, LEARNING_RATE = 4000, 1024, 1e-2  # the 5 -> 2 picture settles by then


@dataclass(frozen=True)
class ToyModel:
    W: np.ndarray  # (n_hidden, n_features)
    b: np.ndarray  # (n_features,)
    losses: np.ndarray  # (steps,)


def sample_features(
    rng: np.random.Generator, batch: int, n_features: int, probability: float | np.ndarray
) -> np.ndarray:
    """(batch, n): each feature is 0 with probability 1 − p, else uniform in [0, 1].

    With p of shape (C, 1, 1), (C, batch, n): C batches thresholded from the same draws."""
    values = rng.random((batch, n_features))
    return np.where(rng.random((batch, n_features)) < probability, values, 0.0)


def forward(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, tuple]:
    """x' = ReLU((x @ Wᵀ) @ W + b): (B, n) -> (B, n), and the cache for `loss_and_grads`.

    Stacked models work too: x (C, B, n), W (C, m, n), b (C, 1, n)."""
    h = x @ np.swapaxes(W, -1, -2)  # (B, m)
    z = h @ W + b  # (B, n)
    return relu(z), (x, h, z)


def reconstruction_loss(
    z: np.ndarray, x: np.ndarray, importance: np.ndarray
) -> tuple[float, np.ndarray]:
    """mean_batch Σ_i I_i (x_i − ReLU(z_i))² and its gradient dL/dz (B, n).

    For stacked models (C, B, n), the sum of their C losses."""
    batch = x.shape[-2]
    diff = relu(z) - x  # (B, n)
    loss = float(np.sum(importance * diff**2) / batch)
    return loss, 2.0 * importance * diff / batch * (z > 0)


def train_on_features(
    params: dict[str, np.ndarray],
    grads_of: Callable[[np.ndarray], tuple[float, dict[str, np.ndarray]]],
    n_features: int,
    feature_probability: float | np.ndarray,
    steps: int,
    batch: int,
    rng: np.random.Generator,
    learning_rate: float,
) -> np.ndarray:
    """Adam on `params`, each step on a fresh batch of sparse features; the loss curve."""
    adam = Adam(params, learning_rate)
    losses = np.empty(steps)
    for step in range(steps):
        x = sample_features(rng, batch, n_features, feature_probability)
        losses[step], grads = grads_of(x)
        adam.step(grads)
    return losses


def loss_and_grads(
    x: np.ndarray, W: np.ndarray, b: np.ndarray, importance: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The importance-weighted loss and its gradients dW (m, n) and db (n,).

    W appears twice, on the way down and on the way up, so dW has two terms. Stacked
    models (x (C, B, n), W (C, m, n), b (C, 1, n)) get their own gradients, (C, m, n) and
    (C, 1, n): the loss is a sum over models that share no parameter.
    """
    _, (x, h, z) = forward(x, W, b)
    loss, dz = reconstruction_loss(z, x, importance)
    db = dz.sum(axis=-2, keepdims=True).reshape(b.shape)  # (n,)
    dh = dz @ np.swapaxes(W, -1, -2)  # (B, m)
    dW = np.swapaxes(h, -1, -2) @ dz + np.swapaxes(dh, -1, -2) @ x  # (m, n): up, then down
    return loss, dW, db


def train_toy_model(
    n_features: int,
    n_hidden: int,
    feature_probability: float,
    importance: np.ndarray,
    steps: int = STEPS,
    batch: int = BATCH,
    seed: int = 0,
    learning_rate: float = LEARNING_RATE,
) -> ToyModel:
    """Adam on fresh batches of sparse features; W starts Xavier-normal, b at zero."""
    rng = np.random.default_rng(seed)
    importance = checked_importance(importance, n_features)
    params = {
        "W": rng.normal(0.0, np.sqrt(2.0 / (n_hidden + n_features)), (n_hidden, n_features)),
        "b": np.zeros(n_features),
    }

    def grads_of(x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        loss, dW, db = loss_and_grads(x, params["W"], params["b"], importance)
        return loss, {"W": dW, "b": db}

    losses = train_on_features(
        params, grads_of, n_features, feature_probability, steps, batch, rng, learning_rate
    )
    return ToyModel(params["W"], params["b"], losses)


def checked_importance(importance: np.ndarray, n_features: int) -> np.ndarray:
    importance = np.asarray(importance, dtype=float)
    if importance.shape != (n_features,):
        raise ValueError(f"importance has shape {importance.shape}, expected ({n_features},)")
    return importance


def feature_norms(W: np.ndarray) -> np.ndarray:
    """‖W_i‖ for every column (n,): about 1 for a feature the model keeps, 0 for one it drops."""
    return np.linalg.norm(W, axis=0)


def interference(W: np.ndarray) -> np.ndarray:
    """Σ_{j≠i} (Ŵ_i · W_j)² for every feature (n,): how much of the others lies along it."""
    norms = feature_norms(W)
    unit = W / np.where(norms > 1e-12, norms, 1.0)  # (m, n)
    overlap = (unit.T @ W) ** 2  # (n, n)
    return overlap.sum(axis=1) - np.diag(overlap)


def dimensions_per_feature(W: np.ndarray) -> float:
    """m / ‖W‖_F²: 1 when each kept feature has a dimension of its own, less when they share."""
    return W.shape[0] / float(np.sum(W**2))


def feature_dimensionality(W: np.ndarray) -> np.ndarray:
    """D_i = ‖W_i‖⁴ / Σ_j (W_i · W_j)² for every feature (n,): the share of a dimension
    feature i has (1 alone, 1/2 in an antipodal pair, 2/5 in a pentagon, 0 if dropped)."""
    gram = W.T @ W  # (n, n)
    norms_sq = np.diag(gram)
    shared = np.sum(gram**2, axis=1)
    return np.where(shared > 1e-12, norms_sq**2 / np.where(shared > 1e-12, shared, 1.0), 0.0)


# --- the neuron version: a hidden ReLU layer, the FFN's own shape -------------------------


@dataclass(frozen=True)
class NeuronModel:
    """x' = ReLU(FFN(x)) with ReLU hidden neurons, fewer neurons than features."""

    W1: np.ndarray  # (n_features, n_neurons): column j is neuron j's key
    b1: np.ndarray  # (n_neurons,)
    W2: np.ndarray  # (n_neurons, n_features): row j is neuron j's value
    b2: np.ndarray  # (n_features,)
    losses: np.ndarray  # (steps,)


def train_neuron_model(
    n_features: int,
    n_neurons: int,
    feature_probability: float,
    importance: np.ndarray,
    steps: int = STEPS,
    batch: int = BATCH,
    seed: int = 0,
    learning_rate: float = LEARNING_RATE,
) -> NeuronModel:
    """The same sparse features through the core's `ffn_forward` (ReLU) and a final ReLU,
    trained with Adam on the importance-weighted loss."""
    rng = np.random.default_rng(seed)
    importance = checked_importance(importance, n_features)
    scale = np.sqrt(2.0 / (n_features + n_neurons))
    params = {
        "W1": rng.normal(0.0, scale, (n_features, n_neurons)),
        "b1": np.zeros(n_neurons),
        "W2": rng.normal(0.0, scale, (n_neurons, n_features)),
        "b2": np.zeros(n_features),
    }

    def grads_of(x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        out, cache = ffn_forward(x, params["W1"], params["b1"], params["W2"], params["b2"])
        loss, dout = reconstruction_loss(out, x, importance)  # out (B, n) is z here
        _, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
        return loss, {"W1": dW1, "b1": db1, "W2": dW2, "b2": db2}

    losses = train_on_features(
        params, grads_of, n_features, feature_probability, steps, batch, rng, learning_rate
    )
    return NeuronModel(params["W1"], params["b1"], params["W2"], params["b2"], losses)


def firing_by_feature(W1: np.ndarray, b1: np.ndarray) -> np.ndarray:
    """(n_features, n_neurons): how far each neuron's activation rises above its resting
    value relu(b1) when one feature alone is 1 (negative: the feature switches it off)."""
    return relu(W1 + b1) - relu(b1)  # row i: the input e_i through the hidden layer


def polysemantic(firing: np.ndarray, threshold: float = 0.1) -> np.ndarray:
    """(n_neurons,) bool: the neurons that fire above `threshold` for two or more features."""
    return (firing > threshold).sum(axis=0) >= 2


# --- the phase change: one feature against another in one dimension ----------------------

NOT_KEPT, DEDICATED, SUPERPOSED = 0, 1, 2  # what happens to the second feature


def phase_of(W: np.ndarray) -> int:
    """For W of shape (1, 2): NOT_KEPT if feature 2's norm is under 0.5, DEDICATED if it
    alone has the dimension, SUPERPOSED if both features share it."""
    first, second = np.abs(W[0, :2])
    if second < 0.5:
        return NOT_KEPT
    return SUPERPOSED if first >= 0.5 else DEDICATED


def phase_diagram(
    sparsities: np.ndarray,
    relative_importances: np.ndarray,
    steps: int = 1500,
    batch: int = 256,
    seed: int = 0,
) -> np.ndarray:
    """(len(relative_importances), len(sparsities)) of phases: two features (importance 1
    and r) in one dimension, one model per cell, as in the paper's phase diagram.

    Each cell is `train_toy_model(2, 1, 1 − sparsity, [1, r], steps, batch, seed)`. All
    cells start from the same seed, so they share their initial W and their random draws
    and differ only in which draws count as firing: they train side by side, stacked along
    a first axis, in one loop instead of one loop per cell.
    """
    r, sparsity = np.meshgrid(relative_importances, sparsities, indexing="ij")
    cells = r.size
    importance = np.stack([np.ones(cells), r.ravel()], axis=1)[:, None, :]  # (C, 1, 2)
    probability = (1.0 - sparsity.ravel())[:, None, None]  # (C, 1, 1)
    rng = np.random.default_rng(seed)
    W0 = rng.normal(0.0, np.sqrt(2.0 / 3), (1, 2))  # as train_toy_model draws it for m=1, n=2
    params = {"W": np.repeat(W0[None], cells, axis=0), "b": np.zeros((cells, 1, 2))}

    def grads_of(x: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        loss, dW, db = loss_and_grads(x, params["W"], params["b"], importance)
        return loss, {"W": dW, "b": db}

    train_on_features(params, grads_of, 2, probability, steps, batch, rng, LEARNING_RATE)
    phases = [phase_of(W) for W in params["W"]]
    return np.array(phases, dtype=int).reshape(r.shape)

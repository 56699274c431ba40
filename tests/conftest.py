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


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker more than the cores. A browser or class test spends part of its
    time waiting (for a student's poll, for Chromium to draw), and a third worker fills
    that time on two cores (benchmarks/RESULTS.md, "The test suite's own time")."""
    return (os.cpu_count() or 1) + 1


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
    items[:] = long_tests_first(items, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def long_tests_first(items: list, workers: int) -> list:
    """The tests marked `long` shared out to the head of each worker's first share.

    xdist's worksteal schedule hands each of its workers one contiguous share of the
    collection at the start, and later moves tests from the tail of a long queue to an
    idle worker. A test of a minute or more left in the middle of a share starts late and
    keeps its worker busy after the others are done; at the head of a share it starts at
    once. Every worker reorders the same collection the same way, as xdist requires.
    """
    long = [item for item in items if item.get_closest_marker("long")]
    if workers < 2 or not long:
        return items
    rest = [item for item in items if not item.get_closest_marker("long")]
    shares, left = [], len(items)
    for k in range(workers):  # the sizes worksteal cuts the collection into
        shares.append(left // (workers - k))
        left -= shares[-1]
    ordered = []
    for k, size in enumerate(shares):
        heads = long[k::workers]
        ordered += heads + rest[: max(0, size - len(heads))]
        rest = rest[max(0, size - len(heads)) :]
    return ordered + rest


def pytest_generate_tests(metafunc):
    if "walk_seed" in metafunc.fixturenames:
        seeds = [int(s) for s in metafunc.config.getoption("--walk-seeds").split(",")]
        metafunc.parametrize("walk_seed", seeds)


@pytest.fixture(scope="session")
def server():
    """One app server per worker, for the browser tests and the protocol sessions that need
    no server of their own (one that measures its CPU or memory starts its own)."""
    from harness.server import AppServer

    app = AppServer()
    app.start()
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture(scope="session")
def chromium():
    """One Chromium per worker, and the context its tests' pages share (see browser.Browser)."""
    from browser import CHROMIUM, CHROMIUM_ARGS, DESKTOP, new_context, require_chromium
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched, new_context(launched, DESKTOP)
        finally:
            launched.close()


@pytest.fixture
def browser(chromium):
    """This test's Chromium: every page it opens is closed after it."""
    from browser import Browser

    opened = Browser(*chromium)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def fresh_caches():
    """Streamlit's caches outlive an AppTest; start each page test from empty ones, and
    from an empty room store (the process keeps it outside the caches)."""
    import streamlit as st

    from ffn_ui.classroom.room import store

    st.cache_data.clear()
    st.cache_resource.clear()
    store.forget()


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
def minilm_installed() -> None:
    """For tests that need all-MiniLM-L6-v2's files on the server's side, not loaded here."""
    from helpers import require

    from ffn_core.models.minilm.files import find_model_dir
    from ffn_core.models.sources import MINILM

    require(find_model_dir() is not None, f"all-MiniLM-L6-v2 is not installed: {MINILM.install}")


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

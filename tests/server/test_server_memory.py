"""Whatever visitors send, the server's memory stays bounded.

A visitor who asks for seed after seed at the caps once grew a server from 521 MB to
923 MB in twelve links, and it never came back down: every cache kept every entry. Now
each cache holds a bounded number of entries of a measured size (benchmarks/RESULTS.md),
so the growth has a ceiling whatever the links.
"""

from __future__ import annotations

import pytest

from harness.protocol import Visitor
from harness.server import AppServer

CAPS = "d_model=1024&d_ff=4096&tokens=random&T=64"
# 43 distinct seeds, sizes and texts, each new to every cache it passes through.
LINKS = (
    [("Neurons", f"{CAPS}&seed={seed}") for seed in range(1, 17)]
    + [("Key_value_memory", f"d_model=768&d_ff=3072&seed={seed}") for seed in range(1, 5)]
    + [
        ("Mixture_of_experts", f"d_model={d}&d_ff={f}&E=16&k=2&seed={seed}")
        for seed, (d, f) in enumerate([(256, 1024), (255, 1024), (256, 1023), (200, 800)] * 2)
    ]
    + [("Memory_lab", f"d_model={d}&mem_dff=256&seed=0") for d in (120, 124, 126, 1024)]
    + [("Neurons", f"d_model={d}&d_ff={4 * d}&seed={d}") for d in (48, 96, 160, 320, 500, 700)]
    + [("Real_model", f"rm_text={'word+' * n}end") for n in (30, 31)]
    + [("Language_model", f"lm_text={'%3F+' * n}end") for n in (70, 71, 72)]
)
# The ceiling for these links, from the per-entry sizes in benchmarks/RESULTS.md: two large
# weight sets (2 x 67 MB), sixteen experts (16 x 4.2 MB), four fact stores and two traces
# (under 10 MB together), three language-model traces at the 64-token cap (3 x 49 MB), and
# 50 MB for the rest (Streamlit's per-session state and message cache, and what the
# allocator keeps).
CEILING_MB = 2 * 67 + 16 * 4.2 + 10 + 3 * 49 + 50


@pytest.fixture(scope="module")
def quiet_server():
    """A server of its own, so that nothing else runs on it while it is measured."""
    app = AppServer("memory")
    app.start()
    try:
        yield app
    finally:
        app.stop()


@pytest.mark.long
def test_distinct_seeds_sizes_and_texts_stay_under_the_ceiling(
    quiet_server, minilm, smollm_installed
):
    app = quiet_server
    assert len({link for link in LINKS}) == len(LINKS) == 43
    for page in {page for page, _ in LINKS}:  # imports, models and first runs, once
        with Visitor(app.port) as visitor:
            assert not visitor.open(page).exceptions
    warm = app.memory_mb()
    peak = warm
    for page, query in LINKS:
        with Visitor(app.port) as visitor:
            seen = visitor.open(page, query)
        assert not seen.exceptions, (page, query, seen.exceptions)
        peak = max(peak, app.memory_mb())
    grown = app.memory_mb() - warm
    print(f"memory: warm {warm:.0f} MB, peak {peak:.0f} MB, grown {grown:.0f} MB")
    assert grown < CEILING_MB, f"grew {grown:.0f} MB (ceiling {CEILING_MB:.0f} MB)"
    # and no moment above it by more than one link's own work (under 100 MB, bench_links)
    assert peak - warm < CEILING_MB + 100, f"peaked {peak - warm:.0f} MB above warm"


# Eight new seeds at the caps, then five mixture-of-experts sizes of 16 experts: this took
# a fresh server from 180 MB to 1,035 MB once.
THIRTEEN = [("Neurons", f"d_model=1024&d_ff=4096&tokens=random&T=64&seed={s}") for s in range(8)]
THIRTEEN += [
    ("Mixture_of_experts", f"d_model={d}&d_ff=1024&E=16&seed={i}")
    for i, d in enumerate((256, 250, 240, 230, 220))
]


def test_thirteen_links_stay_within_the_memory_budget():
    app = AppServer("thirteen-links")
    app.start()
    try:
        for page in ("Neurons", "Mixture_of_experts"):
            with Visitor(app.port) as visitor:
                assert not visitor.open(page).exceptions
        warm = app.memory_mb()
        for page, query in THIRTEEN:
            with Visitor(app.port) as visitor:
                assert not visitor.open(page, query).exceptions
        grown = app.memory_mb() - warm
    finally:
        app.stop()
    print(f"13 links: warm {warm:.0f} MB, grown {grown:.0f} MB")
    assert grown < CEILING_MB, f"grew {grown:.0f} MB"

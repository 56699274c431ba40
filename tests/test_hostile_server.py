"""What a hostile visitor once did to a real server, replayed through Streamlit's protocol:
a class opening one untrained setting together, and a visitor's links holding memory."""

from __future__ import annotations

import threading

from test_server_memory import CEILING_MB

from harness.protocol import Visitor
from harness.server import AppServer

# Two settings of the same cost that no one has trained yet on a fresh server.
UNTRAINED = [f"guess=no&bigger=true&task=sin&act={act}" for act in ("GELU-tanh", "SiLU")]


def cpu_of(app: AppServer, visitors: int, query: str) -> float:
    """Server CPU seconds for `visitors` opening Collapse at `query` at the same moment."""
    start, errors = threading.Barrier(visitors), []

    def visit() -> None:
        with Visitor(app.port) as visitor:
            start.wait()
            errors.extend(visitor.open("Collapse", query).exceptions)

    before = app.cpu_seconds()
    threads = [threading.Thread(target=visit) for _ in range(visitors)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return app.cpu_seconds() - before


def training_cost(app: AppServer, visitors: int, query: str) -> float:
    """What training costs when `visitors` open an untrained setting together: their CPU,
    less what the same visitors cost once it is trained (drawing the page)."""
    return cpu_of(app, visitors, query) - cpu_of(app, visitors, query)


def test_twenty_students_opening_one_untrained_setting_train_it_once():
    app = AppServer("twenty-students")
    app.start()
    try:
        with Visitor(app.port) as visitor:  # imports and the page's start-up, paid once
            assert not visitor.open("Collapse").exceptions
        alone = training_cost(app, 1, UNTRAINED[0])
        together = training_cost(app, 20, UNTRAINED[1])
    finally:
        app.stop()
    print(f"training for one student: {alone:.2f} s of server CPU; for twenty: {together:.2f} s")
    assert alone > 0.2  # the setting was really untrained, or this test measures nothing
    assert together < 2 * alone, (alone, together)


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


def test_the_protocol_visitor_sees_what_a_page_shows():
    """The checks above read what Visitor collects: it must see notes and charts."""
    app = AppServer("visitor")
    app.start()
    try:
        with Visitor(app.port) as visitor:
            seen = visitor.open("Neurons", "d_model=abc")
    finally:
        app.stop()
    assert any("address set d_model to `abc`" in note for note in seen.notes)
    assert len(seen.charts) == 4 and not seen.exceptions

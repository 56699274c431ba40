"""What a hostile visitor once did to a real server, replayed through Streamlit's protocol:
a class opening one untrained setting together."""

from __future__ import annotations

import threading

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

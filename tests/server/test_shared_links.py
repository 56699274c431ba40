"""A shared link shares the view, never the guesses: its reader predicts before seeing
the answer. Read from the protocol, as a browser receives the page; that a guess never
enters the address bar is checked in Chromium (tests/browser/test_browser_superposition.py),
since the browser writes a bound control's value there itself."""

from __future__ import annotations

import pytest

from harness.class_protocol import Participant
from harness.server import AppServer

ASK = "Make your guess above to see the answer."


@pytest.fixture(scope="module")
def app():
    server = AppServer("shared-links")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_link_that_still_holds_a_guess_asks_its_reader_and_drops_the_guess(app):
    reader = Participant(app.port, "x1=-2&x2=-2&guess_home=neither")  # an older version's link
    assert ASK in reader.shown.notes
    assert not [n for n in reader.shown.notes if n.startswith(("Right", "Not this time"))]
    assert reader.values["guess_home"] == "not sure yet"
    assert "guess" not in (reader.shown.address or "") and "x1=-2" in reader.query

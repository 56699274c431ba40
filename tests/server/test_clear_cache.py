"""Any visitor's websocket may send Streamlit's `BackMsg{clear_cache: true}`, which clears
every cache of the server for everyone. Once, that ended every class on a one-process
deployment (the rooms lived in a cache) and dropped both real models. Now the server
ignores the message, and the rooms and the models live outside the caches anyway."""

from __future__ import annotations

import time

from streamlit.proto.BackMsg_pb2 import BackMsg

from harness.class_protocol import Participant, token_x1
from harness.protocol import Visitor
from harness.server import AppServer

ENDED = "has ended"
LOADED = ("all-MiniLM-L6-v2 preloaded", "its corpus index preloaded", "SmolLM2-135M preloaded")


def preloaded(app: AppServer) -> list[str]:
    return [line for line in app.log.read_text().splitlines() if "preloaded" in line]


def clear_every_cache(port: int) -> None:
    """What the developer menu's "Clear cache" sends, from a visitor of its own."""
    with Visitor(port) as hostile:
        assert not hostile.open("Glossary").exceptions
        msg = BackMsg()
        msg.clear_cache = True
        hostile.ws.send(msg.SerializeToString())
        assert not hostile.open("Glossary").exceptions  # the message was handled by now


def test_a_visitor_clearing_the_caches_ends_no_class_and_drops_no_model(
    smollm_installed, minilm_installed
):
    app = AppServer("clear-cache", env={"FFN_PRELOAD_MODELS": "1"})
    app.start()
    try:
        teacher = Participant(app.port)
        code = teacher.start_class()
        student = Participant(app.port, f"room={code}")
        began = time.monotonic()
        while len(preloaded(app)) < len(LOADED) and time.monotonic() - began < 120:
            time.sleep(0.25)
        assert len(preloaded(app)) == len(LOADED)
        clear_every_cache(app.port)
        time.sleep(1.0)
        for run in [*teacher.tick(), *student.tick()]:
            assert not run.exceptions
        assert not any(ENDED in note for note in teacher.notes + student.notes)
        teacher.set("x1", 2.0)  # the class goes on: a change reaches the student
        began = time.monotonic()
        while token_x1(student.shown) != "2" and time.monotonic() - began < 10:
            time.sleep(max(0.0, min(student.next_due(), teacher.next_due()) - time.monotonic()))
            teacher.tick()
            student.tick()
        assert token_x1(student.shown) == "2"
        late = Participant(app.port, f"room={code}")  # and a new student joins
        assert not any(ENDED in note for note in late.notes)
        assert any(code in text for text in late.shown.texts + late.notes)
        with Visitor(app.port) as visitor:  # both models are still loaded: none again
            assert not visitor.open("Real_model").exceptions
            assert not visitor.open("Language_model").exceptions
        assert len(preloaded(app)) == len(LOADED), preloaded(app)
        for person in (teacher, student, late):
            person.close()
    finally:
        app.stop()

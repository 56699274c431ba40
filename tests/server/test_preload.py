"""FFN_PRELOAD_MODELS=1: a server loads both real models in the background from its first
page run, into the caches the pages read, and says so in its log; without it, nothing is
loaded ahead of need (the default, for Community Cloud's memory)."""

from __future__ import annotations

import time

from harness.protocol import Visitor
from harness.server import AppServer

LOADED = ("all-MiniLM-L6-v2 preloaded", "its corpus index preloaded", "SmolLM2-135M preloaded")


def preloaded(app: AppServer) -> list[str]:
    return [line for line in app.log.read_text().splitlines() if "preloaded" in line]


def test_the_models_load_ahead_of_need_only_when_asked(smollm_installed, minilm_installed):
    asked = AppServer("preload", env={"FFN_PRELOAD_MODELS": "1"})
    default = AppServer("no-preload")
    asked.start()
    default.start()
    try:
        for app in (asked, default):
            with Visitor(app.port) as visitor:  # a page that uses no model
                assert not visitor.open("Glossary").exceptions
        began = time.monotonic()
        while len(preloaded(asked)) < len(LOADED) and time.monotonic() - began < 120:
            time.sleep(0.25)
        said = preloaded(asked)
        assert [sum(what in line for line in said) for what in LOADED] == [1, 1, 1], said
        assert preloaded(default) == []
        with Visitor(asked.port) as visitor:  # the pages read what was loaded, once
            assert not visitor.open("Real_model").exceptions
            assert not visitor.open("Language_model").exceptions
        assert len(preloaded(asked)) == len(LOADED)
    finally:
        asked.stop()
        default.stop()

"""What FFN_PRELOAD_MODELS=1 saves the first visitor to a real-model page.

    python -m benchmarks.preload_models

Two fresh servers, one with the setting and one without. On each, a first visitor opens
the Glossary (a page that uses no model); with the setting, the server then loads both
models in the background, and this waits for its log to say so. Then a visitor opens the
Language model page and then the Real model page: the server CPU and the wall time of
each first visit.
"""

from __future__ import annotations

import time
from datetime import date

from harness.protocol import Visitor
from harness.server import AppServer


def first_visits(env: dict[str, str]) -> dict[str, tuple[float, float]]:
    app = AppServer("preload-bench", env=env)
    app.start()
    try:
        with Visitor(app.port) as visitor:
            visitor.open("Glossary")
        began = time.monotonic()
        while env and "SmolLM2-135M preloaded" not in app.log.read_text():
            if time.monotonic() - began > 120:
                raise RuntimeError("the models were not preloaded within 120 s")
            time.sleep(0.25)
        costs = {}
        for page in ("Language_model", "Real_model"):
            cpu, wall = app.cpu_seconds(), time.monotonic()
            with Visitor(app.port) as visitor:
                visitor.open(page)
            costs[page] = (app.cpu_seconds() - cpu, time.monotonic() - wall)
        return costs
    finally:
        app.stop()


def main() -> None:
    without, with_ = first_visits({}), first_visits({"FFN_PRELOAD_MODELS": "1"})
    print(f"{date.today()} | the first visit to a real-model page: server CPU s, wall s")
    for page in without:
        (c0, w0), (c1, w1) = without[page], with_[page]
        print(f"{page}: {c0:.2f} CPU s, {w0:.2f} s  ->  preloaded: {c1:.2f} CPU s, {w1:.2f} s")


if __name__ == "__main__":
    main()

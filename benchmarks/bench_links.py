"""What one link can cost the server: each page's costliest link, opened cold.

    python -m benchmarks.bench_links            # every page
    python -m benchmarks.bench_links Collapse   # pages whose name contains "Collapse"

For each candidate link a fresh server starts, one visitor opens the page at its defaults
(so imports and the page's own start-up are paid), and then a second visitor opens the
link, with settings no cache has seen. The table gives the server CPU seconds that link
cost, how far it raised the server's peak resident memory above what it held before, and
how much of that it still holds a few seconds later (what the bounded caches kept, such as
the weights it drew). Peak minus kept is what the link added only while it ran.
Targets (issue 13): under 2 s of CPU and under 100 MB added while it runs, for every page.
"""

from __future__ import annotations

import sys
import time
from datetime import date

from ffn_ui.page.server import TRIM_EVERY
from harness.caps import COSTLIEST_LINKS, split_guesses
from harness.class_protocol import Participant
from harness.protocol import Visitor
from harness.server import AppServer


def cost(page: str, query: str) -> tuple[float, float, float, float, list[str]]:
    """(CPU s, peak MB added, MB kept, wall s, exceptions) of opening page?query cold,
    then making the query's guesses."""
    app = AppServer("bench-links")
    app.start()
    try:
        with Visitor(app.port) as warm:
            warm.open(page)
        time.sleep(0.5)
        cpu, rss = app.cpu_seconds(), app.memory_mb()
        began = time.perf_counter()
        link, guesses = split_guesses(query)
        with Participant(app.port, link, page) as visitor:  # opens the link
            errors = list(visitor.shown.exceptions)
            for key, answer in guesses:  # a guess rides in no link: the visitor clicks it
                errors += visitor.choose(key, answer).exceptions
        wall = time.perf_counter() - began
        used, peak = app.cpu_seconds() - cpu, app.memory_mb("VmHWM") - rss
        time.sleep(TRIM_EVERY + 0.5)
        with Visitor(app.port) as later:  # its run hands freed memory back first
            later.open("Traps")
        return used, peak, app.memory_mb() - rss, wall, errors
    finally:
        app.stop()


def main() -> None:
    wanted = sys.argv[1] if len(sys.argv) > 1 else ""
    print(f"{date.today()} | each page's costliest link, opened cold on a fresh server")
    print("page | link | server CPU s | peak MB added | MB kept | MB while running | wall s")
    print("--- | --- | ---: | ---: | ---: | ---: | ---:")
    for page, queries in COSTLIEST_LINKS.items():
        if wanted not in (page or "Home"):
            continue
        for query in queries:
            cpu, peak, kept, wall, errors = cost(page, query)
            assert not errors, (page, query, errors)
            print(
                f"{page or 'Home'} | `{query}` | {cpu:.2f} | {peak:.0f} | {kept:.0f} | "
                f"{peak - kept:.0f} | {wall:.2f}"
            )


if __name__ == "__main__":
    main()

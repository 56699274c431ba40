"""What one link can cost the server: each page's costliest link, opened cold.

    python -m benchmarks.bench_links            # every page
    python -m benchmarks.bench_links Collapse   # pages whose name contains "Collapse"

For each candidate link a fresh server starts, one visitor opens the page at its defaults
(so imports and the page's own start-up are paid), and then a second visitor opens the
link, with settings no cache has seen. The table gives the server CPU seconds that link
cost and how far it raised the server's peak resident memory above what it held before.
Targets (issue 13): under 2 s of CPU and under 100 MB added, for every page.
"""

from __future__ import annotations

import sys
import time
from datetime import date

from harness.caps import COSTLIEST_LINKS
from harness.protocol import Visitor
from harness.server import AppServer


def cost(page: str, query: str) -> tuple[float, float, float, list[str]]:
    """(CPU s, peak MB added, wall s, exceptions) of opening page?query cold."""
    app = AppServer("bench-links")
    app.start()
    try:
        with Visitor(app.port) as warm:
            warm.open(page)
        time.sleep(0.5)
        cpu, rss = app.cpu_seconds(), app.memory_mb()
        began = time.perf_counter()
        with Visitor(app.port) as visitor:
            seen = visitor.open(page, query)
        wall = time.perf_counter() - began
        return app.cpu_seconds() - cpu, app.memory_mb("VmHWM") - rss, wall, seen.exceptions
    finally:
        app.stop()


def main() -> None:
    wanted = sys.argv[1] if len(sys.argv) > 1 else ""
    print(f"{date.today()} | each page's costliest link, opened cold on a fresh server")
    print("page | link | server CPU s | peak MB added | wall s")
    print("--- | --- | ---: | ---: | ---:")
    for page, queries in COSTLIEST_LINKS.items():
        if wanted not in (page or "Home"):
            continue
        for query in queries:
            cpu, added, wall, errors = cost(page, query)
            assert not errors, (page, query, errors)
            print(f"{page or 'Home'} | `{query}` | {cpu:.2f} | {added:.0f} | {wall:.2f}")


if __name__ == "__main__":
    main()

"""How long each page takes to appear when a student opens the teacher's link.

    python -m benchmarks.cold_load              # every page, 5 rounds
    python -m benchmarks.cold_load --rounds 3 Neurons Backprop

Two servers run side by side: the app, and `benchmarks/floor_page.py` (one slider and one
small Plotly heatmap), the least any Streamlit page with a chart can be on this machine.
Debian's Chromium opens each page in a fresh browser context, as a new student would, once
per round, the pages interleaved with the floor so that both see the same machine. A
page's first figure is there when the first chart on the page (in its order) is drawn: a
page opens on its figure, and figures below the first screen may come later. It is ready
when its first script run has finished and every chart it sent is drawn. The table gives
the median time to each, their ratios to the floor's median (the floor's one chart is both
its first figure and its last), and the median CPU seconds Chromium spent on the page
(drawing is most of a cold load here: no GPU, two cores).
Every page is opened once before the rounds start, so the server's caches are warm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from datetime import date
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.server import AppServer

CHROMIUM = "/usr/bin/chromium-headless-shell"  # Debian's, as the browser tests use
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 800}
PAGES = {
    "Home": "", "Neurons": "Neurons", "Key–value memory": "Key_value_memory",
    "Activations": "Activations", "Collapse": "Collapse", "Position-wise": "Position-wise",
    "Backprop": "Backprop", "Traps": "Traps", "Scale & cost": "Scale_and_cost",
    "Mixture of experts": "Mixture_of_experts", "Superposition": "Superposition",
    "Memory lab": "Memory_lab", "Real model": "Real_model",
    "Language model": "Language_model", "Build it": "Build_it", "Glossary": "Glossary",
}  # fmt: skip
# Ready: as many Plotly charts drawn as the first run sent (Streamlit loads its Plotly code
# only when a chart arrives, so the charts appear after the rest of the page).
READY = """charts => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    if (!document.querySelector('[data-testid="stElementContainer"]')) return false;
    const drawn = document.querySelectorAll('[data-testid="stPlotlyChart"] .main-svg');
    return new Set([...drawn].map(svg => svg.closest('[data-testid="stPlotlyChart"]'))).size
        >= charts;
}"""


# The first figure: the first chart in the page's order is drawn (it may be the only one).
FIRST_FIGURE = """() => {
    const first = document.querySelector('[data-testid="stPlotlyChart"]');
    return first !== null && first.querySelector('.main-svg') !== null;
}"""


class FirstRun:
    """Reads a page's websocket: whether its first script run has finished, and how many
    places on the page that run filled with a Plotly chart."""

    def __init__(self, page) -> None:
        self.finished, self.charts = False, set()
        page.on("websocket", lambda ws: ws.on("framereceived", self.frame))

    def frame(self, payload) -> None:
        if isinstance(payload, str) or self.finished:
            return
        msg = ForwardMsg()
        msg.ParseFromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "script_finished":
            self.finished = True
        elif kind == "delta" and msg.delta.new_element.WhichOneof("type") == "plotly_chart":
            self.charts.add(tuple(msg.metadata.delta_path))


def chromium_cpu() -> float:
    """CPU seconds used so far by every Chromium process alive now."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        proc = Path("/proc", pid)
        try:
            if "chromium" not in (proc / "cmdline").read_text(errors="replace"):
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def load(browser, url: str) -> tuple[float, float, float]:
    """(seconds to the first figure, seconds to ready, Chromium CPU seconds) of opening
    `url` in a fresh context; a page without a chart has its first figure when ready."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    run = FirstRun(page)
    cpu = chromium_cpu()
    began = time.perf_counter()
    page.goto(url)
    first = None
    while not run.finished:
        if first is None and page.evaluate(FIRST_FIGURE):
            first = time.perf_counter() - began
        page.wait_for_timeout(20)
    if run.charts and first is None:
        page.wait_for_function(FIRST_FIGURE, polling=20, timeout=120_000)
        first = time.perf_counter() - began
    page.wait_for_function(READY, arg=len(run.charts), polling=20, timeout=120_000)
    ready = time.perf_counter() - began
    used = chromium_cpu() - cpu  # the closing context's processes are still counted
    context.close()
    return (ready if first is None else first), ready, used


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("pages", nargs="*", help="page names (default: every page)")
    args = parser.parse_args()
    names = [n for n in PAGES if not args.pages or any(w in n for w in args.pages)]
    app, floor = AppServer("cold-load"), AppServer("cold-floor", "benchmarks/floor_page.py")
    app.start()
    floor.start()
    times: dict[str, list[tuple[float, float, float]]] = {n: [] for n in ["floor", *names]}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            load(browser, floor.url)
            for name in names:  # warm the server: imports, models, caches
                load(browser, f"{app.url}/{PAGES[name]}")
            for _ in range(args.rounds):
                for name in names:
                    times["floor"].append(load(browser, floor.url))
                    times[name].append(load(browser, f"{app.url}/{PAGES[name]}"))
            browser.close()
    finally:
        app.stop()
        floor.stop()
    base = statistics.median(r for _, r, _ in times["floor"])
    print(f"{date.today()} | {args.rounds} rounds, a fresh context per load, medians")
    print("page | first figure s | × floor | ready s | × floor | Chromium CPU s")
    print("--- | ---: | ---: | ---: | ---: | ---:")
    for name, runs in times.items():
        first, ready, cpu = (statistics.median(run[k] for run in runs) for k in range(3))
        print(f"{name} | {first:.2f} | {first / base:.2f} | {ready:.2f} | {ready / base:.2f} "
              f"| {cpu:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()

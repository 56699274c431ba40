"""Every page at its maximum settings: time of a first and a second run, largest chart.

    python -m benchmarks.bench_caps

Targets: no run over 2 s, no chart over 1 MB of figure data.
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from harness.caps import MAX, PAGES

ROOT = Path(__file__).resolve().parent.parent


def at_max(page: str | None, extra: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {**MAX, **extra}.items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    return at


def largest_chart(at: AppTest) -> int:
    return max((len(c.proto.spec) for c in at.get("plotly_chart")), default=0)


def main() -> None:
    print(f"{date.today()} | every page at d_model 1024, d_ff 4096, T 64 and its own maxima")
    print("page | first run s | second run s | charts | largest chart kB")
    for name, (page, extra) in PAGES.items():
        st.cache_data.clear()
        st.cache_resource.clear()
        at = at_max(page, extra)
        start = time.perf_counter()
        at.run()
        first = time.perf_counter() - start
        start = time.perf_counter()
        at.run()
        second = time.perf_counter() - start
        assert not at.exception, (name, at.exception)
        charts = len(at.get("plotly_chart"))
        print(f"{name} | {first:.2f} | {second:.2f} | {charts} | {largest_chart(at) / 1e3:.0f}")


if __name__ == "__main__":
    main()

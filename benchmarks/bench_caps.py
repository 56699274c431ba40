"""Every page at its maximum settings: time of a first and a second run, largest chart.

    python -m benchmarks.bench_caps

Targets: no run over 2 s, no chart over 1 MB of figure data.
"""

from __future__ import annotations

import time
from datetime import date

import streamlit as st

from harness.caps import PAGES, at_max, largest_chart


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

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

ROOT = Path(__file__).resolve().parent.parent
MAX = {"d_model": "1024", "d_ff": "4096", "tokens": "random", "T": "64", "act": "GELU"}
PAGES = {
    "Home": (None, {}),
    "Neurons": ("pages/1_Neurons.py", {"view": "pre-activation"}),
    "Key–value": ("pages/2_Key_value_memory.py", {"neuron": "n4096"}),
    "Activations": ("pages/3_Activations.py", {"range": "10.0"}),
    "Collapse": (
        "pages/4_Collapse.py",
        {"L": "12", "guess": "no", "bigger": "true", "task": "spiral"},
    ),
    "Position-wise": ("pages/5_Position-wise.py", {"coord": "1024"}),
    "Backprop": ("pages/6_Backprop.py", {"B": "4"}),
    "Traps": (
        "pages/7_Traps.py",
        {
            "D": "8",
            "H": "8",
            "guess_stride": "the same answer",
            "guess_t": "the same answer",
            "guess_clamp": "no",
        },
    ),
    "Scale & cost": ("pages/8_Scale_and_cost.py", {"layers": "96", "seq_T": "131,072"}),
    "Mixture of experts": ("pages/9_Mixture_of_experts.py", {"E": "16", "k": "16"}),
    "Memory lab": (
        "pages/10_Memory_lab.py",
        {"mem_dff": "256", "topn": "20", "apply_edit": "true"},
    ),
    "Real model": (
        "pages/11_Real_model.py",
        {"rm_text": ("word " * 40).strip(), "rm_cols": "256", "rm_k": "256"},
    ),
}


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

"""How long does a page's script run take? Medians of AppTest reruns, against an empty page.

    python -m benchmarks.bench_pages

Each page runs once to warm its caches, then reruns with the same controls, as after a
learner moves a control that the caches do not depend on. The empty page measured in the
same process is AppTest's own floor.
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import date
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from harness.caps import as_link

ROOT = Path(__file__).resolve().parent.parent
PAGES = {
    "Home": None,
    "Neurons": "app_pages/Neurons.py",
    "Key–value": "app_pages/Key_value_memory.py",
    "Activations": "app_pages/Activations.py",
    "Collapse": "app_pages/Collapse.py",
    "Collapse, trained": "app_pages/Collapse.py",
    "Position-wise": "app_pages/Position-wise.py",
    "Backprop": "app_pages/Backprop.py",
    "Traps, answered": "app_pages/Traps.py",
    "Scale & cost": "app_pages/Scale_and_cost.py",
    "Mixture of experts": "app_pages/Mixture_of_experts.py",
    "Memory lab": "app_pages/Memory_lab.py",
    "Real model": "app_pages/Real_model.py",
}
ANSWERS = {  # pages whose figures wait for the learner's guess
    "Collapse, trained": {"guess": "no", "task": "spiral"},
    "Traps, answered": {
        "guess_stride": "the same answer",
        "guess_t": "the same answer",
        "guess_clamp": "no",
    },
}
SETTINGS = {
    "defaults": {},
    "lesson shapes (B 2, T 4, C 8, d_ff 32)": {
        "d_model": "8",
        "d_ff": "32",
        "B": "2",
        "tokens": "random",
        "T": "4",
    },
    "GPT-2 small, T = 16": {
        "d_model": "768",
        "d_ff": "3072",
        "act": "GELU",
        "tokens": "random",
        "T": "16",
    },
}
RUNS = 15


def median_ms(at: AppTest, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    return statistics.median(times) * 1e3


def open_app(page: str | None, query: dict[str, str]) -> tuple[AppTest, float]:
    """The app on a page, after its first (cold) run, whose time is returned too."""
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    as_link(at, query)
    if page:
        at.switch_page(page)
    start = time.perf_counter()
    at.run()
    return at, (time.perf_counter() - start) * 1e3


def main() -> None:
    sys.path.insert(0, str(ROOT))
    empty = AppTest.from_string("import streamlit as st\nst.write('hello')", default_timeout=60)
    empty.run()
    floor = median_ms(empty)
    print(f"{date.today()} | AppTest median of {RUNS} reruns | empty page: {floor:.1f} ms")
    print("page | setting | first run ms | rerun ms (median) | rerun / empty page")
    for setting, query in SETTINGS.items():
        for name, page in PAGES.items():
            at, cold = open_app(page, {**query, **ANSWERS.get(name, {})})
            warm = median_ms(at)
            print(f"{name} | {setting} | {cold:.0f} | {warm:.1f} | {warm / floor:.1f}")


if __name__ == "__main__":
    main()

"""Opening the app's pages in AppTest, and independent expectations to check them against."""

from __future__ import annotations

import numpy as np
from plotly_data import chart_traces, decode
from streamlit.testing.v1 import AppTest

from ffn_core.init import init_weights
from ffn_core.tokens import embed_words

TIMEOUT = 30  # seconds: a first run imports pandas and plotly
NEURONS, KEY_VALUE = "pages/1_Neurons.py", "pages/2_Key_value_memory.py"
ACTIVATIONS, COLLAPSE = "pages/3_Activations.py", "pages/4_Collapse.py"
POSITION_WISE = "pages/5_Position-wise.py"
BACKPROP, TRAPS = "pages/6_Backprop.py", "pages/7_Traps.py"
SCALE, MOE = "pages/8_Scale_and_cost.py", "pages/9_Mixture_of_experts.py"
MEMORY, REAL_MODEL = "pages/10_Memory_lab.py", "pages/11_Real_model.py"
GLOSSARY = "pages/12_Glossary.py"
ALL_PAGES = [None, NEURONS, KEY_VALUE, ACTIVATIONS, COLLAPSE, POSITION_WISE, BACKPROP, TRAPS,
             SCALE, MOE, MEMORY, REAL_MODEL, GLOSSARY]  # fmt: skip
# Pages that wait for the learner's prediction before drawing everything.
ANSWERS = {
    COLLAPSE: {"guess": "no"},
    TRAPS: {"guess_stride": "the same answer", "guess_t": "the same answer", "guess_clamp": "no"},
    SCALE: {"guess_share": "about two thirds"},
    POSITION_WISE: {"guess_rows_moved": "only its own row"},
    BACKPROP: {
        "guess_precision": "10⁻⁷ or smaller in float64, 10⁻² or worse in float32",
        "guess_dw1": "exactly zero",
    },
}
DEFAULT_WORDS = ["the", "cat", "sat", "on", "the", "mat"]


def open_page(page: str | None = None, query: dict | None = None) -> AppTest:
    """A fresh session on `page` (None: home), as if opened by a link with `query`."""
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if page:
        at.switch_page(page)
    return at.run()


def click(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.sidebar.button if b.label == label]
    return button.click().run()


def traces(at: AppTest, chart: int) -> list[dict]:
    return chart_traces(at)[chart]


def trace_y(at: AppTest, chart: int, name: str | None = None, kind: str | None = None):
    """y of the first trace on the chart matching a name or a type."""
    for t in traces(at, chart):
        if (name is None or t.get("name") == name) and (kind is None or t["type"] == kind):
            return decode(t["y"])
    raise KeyError(f"no trace named {name!r} of type {kind!r} on chart {chart}")


def heatmap(at: AppTest) -> dict:
    (trace,) = [t for t in traces(at, 0) if t["type"] == "heatmap"]
    return trace


def expected_default_model(d_model=4, d_ff=16, seed=0, words=DEFAULT_WORDS):
    """x and weights rebuilt from the core, not through the UI."""
    return embed_words(words, d_model), init_weights(d_model, d_ff, "normal", seed)


def warnings_text(at: AppTest) -> str:
    return " | ".join(w.value for w in [*at.warning, *at.info, *at.error])


def shown_table(at: AppTest, index: int = 0):
    """A styled table's cells as the learner sees them (Styler's display strings)."""
    import pyarrow as pa

    styler = at.dataframe[index].proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


def link_noted(text: str, key: str, raw: str) -> bool:
    """Whether a note says the page's address set `key` to `raw` (quoted, a long value cut),
    or to a text too long to use whole."""
    said = f"address set {key} to"
    return said in text and (raw[:40] in text or f"of {len(raw):,} characters" in text)


def relu(z):
    return np.maximum(z, 0)

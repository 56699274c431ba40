"""The tests' shared helpers, in one place.

- the machine: `require` fails in CI when something a test needs is missing, else skips;
- the core: scalar activations written from their formulas, an FFN in explicit loops,
  random weights on any shape, and centred differences;
- the pages: opening one in AppTest as a link would, and reading back its charts, metrics,
  notes and tables.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ffn_core.init import init_weights
from ffn_core.tokens import embed_words
from harness.caps import as_link
from harness.protocol import decode

# --- the machine -----------------------------------------------------------------------


def require(present: bool, reason: str) -> None:
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"this test must run in CI: {reason}")
    pytest.skip(reason)


# --- the core --------------------------------------------------------------------------


def _silu_scalar(z: float) -> float:
    # Two branches so exp never overflows: z / (1 + e^-z) = z e^z / (1 + e^z).
    if z >= 0:
        return z / (1.0 + math.exp(-z))
    e = math.exp(z)
    return z * e / (1.0 + e)


def _gelu_tanh_scalar(z: float) -> float:
    # 0.5 z (1 + tanh(u)); for u < 0, 1 + tanh(u) = 2 e^{2u} / (1 + e^{2u}) avoids cancelling.
    u = math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)
    if u >= 0:
        return 0.5 * z * (1.0 + math.tanh(u))
    e = math.exp(2.0 * u)
    return z * e / (1.0 + e)


# Scalar versions written from the textbook formulas with the math module only, so they
# share no code with ffn_core. Phi(z) = erfc(-z / sqrt 2) / 2 stays accurate for z << 0,
# where 1 + erf(z / sqrt 2) would cancel.
SCALAR_ACTIVATIONS = {
    "relu": lambda z: z if z > 0 else 0.0,
    "gelu": lambda z: z * 0.5 * math.erfc(-z / math.sqrt(2.0)),
    "gelu_tanh": lambda z: _gelu_tanh_scalar(z),
    "silu": _silu_scalar,
    "relu_squared": lambda z: z * z if z > 0 else 0.0,
    "identity": lambda z: z,
}


def loop_ffn(x, W1, b1, W2, b2, activation="relu"):
    """The FFN with explicit Python loops over positions, neurons and coordinates (float64)."""
    act = SCALAR_ACTIVATIONS[activation]
    x = np.asarray(x, dtype=np.float64)
    C, H = W1.shape
    rows = x.reshape(-1, C)
    out = np.zeros_like(rows)
    for n, row in enumerate(rows):
        h = [act(sum(row[c] * W1[c, j] for c in range(C)) + b1[j]) for j in range(H)]
        for c in range(C):
            out[n, c] = sum(h[j] * W2[j, c] for j in range(H)) + b2[c]
    return out.reshape(x.shape)


def random_ffn(rng, d_model, d_ff, scale=0.5, dtype=np.float64):
    """W1 (d_model, d_ff), b1, W2 (d_ff, d_model), b2 drawn from a normal distribution."""
    W1 = rng.standard_normal((d_model, d_ff)) * scale
    b1 = rng.standard_normal(d_ff) * scale
    W2 = rng.standard_normal((d_ff, d_model)) * scale
    b2 = rng.standard_normal(d_model) * scale
    return tuple(a.astype(dtype) for a in (W1, b1, W2, b2))


def numerical_grad(f, arr, eps=1e-6):
    """Centred differences of the scalar f() with respect to every entry of arr, in place."""
    grad = np.zeros_like(arr, dtype=np.float64)
    for idx in np.ndindex(arr.shape):
        original = arr[idx]
        arr[idx] = original + eps
        plus = f()
        arr[idx] = original - eps
        minus = f()
        arr[idx] = original
        grad[idx] = (plus - minus) / (2 * eps)
    return grad


MEMORY_D_MODEL, MEMORY_D_FF = 32, 64  # the Memory lab's store when the sidebar's d_model is small


def setup_table(name, d_model=MEMORY_D_MODEL, d_ff=MEMORY_D_FF, activation="relu"):
    """A fact table trained as the Memory lab trains it, computed from the core: (facts,
    result, E (V, d_model), the subjects' vectors X (F, d_model), the objects (F,))."""
    from ffn_core.lessons.memory import FACT_TABLES, fact_indices, train_memory, vocab_embeddings

    facts = FACT_TABLES[name]
    result = train_memory(facts, d_model, d_ff, activation, seed=0)
    E = vocab_embeddings(d_model)
    subjects, objects = fact_indices(facts)
    return facts, result, E, E[subjects], objects


def npz_bytes(**arrays) -> bytes:
    """An NPZ file of these arrays, as a visitor would upload it."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# --- the pages -------------------------------------------------------------------------

TIMEOUT = 30  # seconds: a first run imports pandas and plotly
NEURONS, KEY_VALUE = "app_pages/Neurons.py", "app_pages/Key_value_memory.py"
ACTIVATIONS, COLLAPSE = "app_pages/Activations.py", "app_pages/Collapse.py"
POSITION_WISE = "app_pages/Position-wise.py"
BACKPROP, TRAPS = "app_pages/Backprop.py", "app_pages/Traps.py"
BUILD_IT = "app_pages/Build_it.py"
SCALE, MOE = "app_pages/Scale_and_cost.py", "app_pages/Mixture_of_experts.py"
SUPERPOSITION = "app_pages/Superposition.py"
MEMORY, REAL_MODEL = "app_pages/Memory_lab.py", "app_pages/Real_model.py"
LANGUAGE_MODEL, GLOSSARY = "app_pages/Language_model.py", "app_pages/Glossary.py"
ALL_PAGES = [None, NEURONS, KEY_VALUE, ACTIVATIONS, COLLAPSE, POSITION_WISE, BACKPROP,
             BUILD_IT, TRAPS, SCALE, MOE, SUPERPOSITION, MEMORY, REAL_MODEL, LANGUAGE_MODEL,
             GLOSSARY]  # fmt: skip
# Pages that wait for the learner's prediction before drawing everything.
ANSWERS = {
    COLLAPSE: {"guess": "no"},
    TRAPS: {"guess_stride": "the same answer", "guess_t": "the same answer", "guess_clamp": "no"},
    SCALE: {"guess_share": "about two thirds"},
    SUPERPOSITION: {"guess_kept": "5", "guess_phase": "already at 50 % zeros"},
    POSITION_WISE: {"guess_rows_moved": "only its own row"},
    NEURONS: {"guess_fire": "about half"},
    KEY_VALUE: {"guess_kv": "nothing"},
    ACTIVATIONS: {"guess_dead": "no, the same"},
    BUILD_IT: {"build_h": "2C = 16", "guess_build_2c": "h (2, 4, 16), dW1 (8, 16)"},  # asked at 2C
    BACKPROP: {
        "guess_precision": "10⁻⁶ or smaller in float64, 10⁻² or worse in float32",
        "guess_dw1": "exactly zero",
    },
}
DEFAULT_WORDS = ["the", "cat", "sat", "on", "the", "mat"]


def app_test(page: str | None = None, query: dict | None = None) -> AppTest:
    """A fresh session on `page` (None: home), as if opened by a link with `query`, not
    yet run."""
    at = AppTest.from_file("../app.py", default_timeout=TIMEOUT)
    as_link(at, query or {})
    if page:
        at.switch_page(page)
    return at


def open_page(page: str | None = None, query: dict | None = None) -> AppTest:
    """A fresh session on `page` (None: home), as if opened by a link with `query`, run."""
    return app_test(page, query).run()


def click(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.sidebar.button if b.label == label]
    return button.click().run()


def guessed(at: AppTest, key: str) -> AppTest:
    """Answer the page's question `key` with its first real option, if the page asks it:
    what the question settles is drawn only after a guess."""
    asked = [r for r in at.radio if r.key == key]
    return asked[0].set_value(asked[0].options[1]).run() if asked else at


def traces(at: AppTest, chart: int) -> list[dict]:
    return chart_traces(at)[chart]


def trace_y(at: AppTest, chart: int, name: str | None = None, kind: str | None = None):
    """y of the first trace on the chart matching a name or a type."""
    for t in traces(at, chart):
        if (name is None or t.get("name") == name) and (kind is None or t["type"] == kind):
            return decode(t["y"])
    raise KeyError(f"no trace named {name!r} of type {kind!r} on chart {chart}")


def heatmap(at: AppTest) -> dict:
    """The page's first heatmap, on whichever chart it is drawn."""
    return next(t for chart in chart_traces(at) for t in chart if t["type"] == "heatmap")


def expected_default_model(d_model=4, d_ff=16, seed=0, words=DEFAULT_WORDS):
    """x and weights rebuilt from the core, not through the UI."""
    return embed_words(words, d_model), init_weights(d_model, d_ff, "normal", seed)


ASK = "Make your guess above to see the answer."  # a question's prompt, not a note


def warnings_text(at: AppTest) -> str:
    """Every note the page shows (warnings, infos, errors), a question's prompt aside."""
    return " | ".join(w.value for w in [*at.warning, *at.info, *at.error] if w.value != ASK)


def shown_table(at: AppTest, index: int = 0):
    """A styled table's cells as the learner sees them (Styler's display strings)."""
    import pyarrow as pa

    styler = at.dataframe[index].proto.arrow_data.styler
    return pa.ipc.open_stream(styler.display_values).read_all().to_pandas()


# Settings under which a page draws controls it hides at its defaults: random tokens draw
# the sidebar's T (every page has the sidebar, so the home page stands for all), and a
# typed-in loss draws Backprop's row of dout.
VARIANTS = {None: [{"tokens": "random"}], "app_pages/Backprop.py": [{"loss": "typed in"}]}


@functools.cache
def bound_keys() -> dict[tuple, list[tuple[str, tuple]]]:
    """Every URL-bound key and its rule, on the first page (and settings) that draws it:
    {(page, settings as items): [(key, rule), ...]}. Read from the pages themselves (each
    bound control registers its key as it is drawn), so a new control is tested without
    touching the tests; computed once per run, when first asked for."""
    import streamlit as st

    from ffn_ui.controls.url import REGISTRY_KEY

    st.cache_data.clear()
    st.cache_resource.clear()
    seen: set[str] = set()
    groups: dict[tuple, list] = {}
    visits = [(page, {}) for page in ALL_PAGES]
    visits += [(page, v) for page, variants in VARIANTS.items() for v in variants]
    for page, variant in visits:
        settings = {**ANSWERS.get(page, {}), **variant}  # every question answered
        rules = open_page(page, settings).session_state[REGISTRY_KEY]
        for key, rule in rules.items():
            if key not in seen and rule[0] != "derived":
                seen.add(key)
                groups.setdefault((page, tuple(settings.items())), []).append((key, rule))
    return groups


def link_noted(text: str, key: str, raw: str) -> bool:
    """Whether a note says the page's address set `key` to `raw` (quoted, a long value cut),
    or to a text too long to use whole."""
    said = f"address set {key} to"
    return said in text and (raw[:40] in text or f"of {len(raw):,} characters" in text)


def relu(z):
    return np.maximum(z, 0)


def metric(at: AppTest, label: str) -> str:
    """The value of the one metric whose label starts with `label`."""
    (found,) = [m for m in at.metric if m.label.startswith(label)]
    return found.value


def edit_table(at: AppTest, key: str, rows: dict | None = None, added=(), deleted=()) -> None:
    """Queue what st.data_editor sends when a person edits cells, adds or deletes rows;
    the next run applies it."""
    at.session_state[key] = {
        "edited_rows": rows or {},
        "added_rows": list(added),
        "deleted_rows": list(deleted),
    }


def chart_traces(app_test) -> list[list[dict]]:
    """The traces of every Plotly chart on an AppTest page, in page order."""
    return [json.loads(chart.proto.spec)["data"] for chart in app_test.get("plotly_chart")]


def run_notebook(book) -> dict:
    """Execute every cell; the JSON the last one prints."""
    from nbclient import NotebookClient

    NotebookClient(book, timeout=300, kernel_name="python3").execute()
    for cell in book.cells:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, errors
    (printed,) = [o["text"] for o in book.cells[-1].outputs if o.get("name") == "stdout"]
    return json.loads(printed)


def page_words(node, questions: bool = True) -> str:
    """Every word the page shows under `node`, in the page's order: headings, text,
    captions, notes, metrics, the figures' words; with `questions`, also the questions'
    labels, the metrics' help and page links' labels."""
    said = []
    for child in getattr(node, "children", {}).values():
        if child.type == "metric":
            helped = f" {child.help or ''}" if questions else ""
            said.append(f"{child.label} {child.value}{helped}")
        elif questions and child.type in ("radio", "page_link"):
            said.append(child.label)
        elif child.type != "radio" and isinstance(getattr(child, "value", None), str):
            said.append(child.value)
        else:
            said.append(page_words(child, questions))
    return " ".join(s for s in said if s)

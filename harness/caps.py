"""The app's maximum settings, and the links that cost the server most: for tests and
benchmarks alike.

MAX holds the sidebar's caps; PAGES adds each page's own maxima (name: (page file,
settings)), as AppTest opens them. COSTLIEST_LINKS are the same as links a visitor could
send, each with a seed no cache has seen, plus the other candidates for a page's most
expensive link.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from streamlit.testing.v1 import AppTest

from ffn_ui.page.path import URL_PATHS

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py and app_pages/

MAX = {"d_model": "1024", "d_ff": "4096", "tokens": "random", "T": "64", "act": "GELU"}
PAGES = {
    "Home": (None, {}),
    "Neurons": ("app_pages/Neurons.py", {"view": "pre-activation"}),
    "Key–value": ("app_pages/Key_value_memory.py", {"neuron": "n4096"}),
    "Activations": ("app_pages/Activations.py", {"range": "10.0"}),
    "Collapse": (
        "app_pages/Collapse.py",
        {"L": "12", "guess": "no", "bigger": "true", "task": "spiral"},
    ),
    "Position-wise": ("app_pages/Position-wise.py", {"coord": "1024"}),
    "Backprop": ("app_pages/Backprop.py", {"B": "4"}),
    "Traps": (
        "app_pages/Traps.py",
        {
            "D": "8",
            "H": "8",
            "guess_stride": "the same answer",
            "guess_t": "the same answer",
            "guess_clamp": "no",
        },
    ),
    "Scale & cost": ("app_pages/Scale_and_cost.py", {"layers": "96", "seq_T": "131,072"}),
    "Mixture of experts": ("app_pages/Mixture_of_experts.py", {"E": "16", "k": "16"}),
    "Superposition": (
        "app_pages/Superposition.py",
        {
            "sp_n": "80",
            "sp_m": "19",
            "sp_k": "10",
            "sp_sparsity": "99.9%",
            "guess_kept": "5",
            "guess_phase": "already at 50 % zeros",
        },
    ),
    "Memory lab": (
        "app_pages/Memory_lab.py",
        {"mem_dff": "256", "topn": "20", "apply_edit": "true", "guess_edit": "one or two"},
    ),
    "Real model": (
        "app_pages/Real_model.py",
        {"rm_text": ("word " * 40).strip(), "rm_cols": "256", "rm_k": "256"},
    ),
    "Language model": (
        "app_pages/Language_model.py",
        {"lm_text": ("? " * 150).strip(), "lm_new": "12", "guess_gate": "about nothing"},
    ),
}


def url_path(page_file: str | None) -> str:
    """app_pages/Collapse.py -> Collapse (the page's URL path); the home page is ""."""
    if page_file is None:
        return ""
    return URL_PATHS[page_file]


COLD = {"seed": "12345"}  # a seed no visitor asked for before: nothing is cached
COSTLIEST_LINKS = {
    url_path(page): [urlencode({**MAX, **COLD, **extra})] for page, extra in PAGES.values()
}
COSTLIEST_LINKS["Collapse"] += [
    urlencode({**MAX, **COLD, "guess": "no", "bigger": "true", "task": task, "act": act})
    for task in ("XOR", "sin", "|x|")
    for act in ("GELU-tanh", "SiLU")
]
# The gradient check at the largest size it still runs (just under 2,000 entries), with
# its ε sweep: many small forward passes rather than a few big ones.
COSTLIEST_LINKS["Backprop"] += [
    urlencode({"d_model": "16", "d_ff": "40", "tokens": "random", "T": "8", "B": "4", **COLD}),
    urlencode({"d_model": "16", "d_ff": "40", "tokens": "random", "T": "8", "B": "4",
               "f32": "true", "act": "GELU", **COLD}),
]  # fmt: skip
COSTLIEST_LINKS["Memory_lab"] += [
    urlencode({**MAX, **COLD, "mem_dff": "256", "act": "SiLU"}),
]
COSTLIEST_LINKS["Collapse"] += [urlencode({**MAX, **COLD, "L": "12"})]  # before a guess


# Sections whose code runs only once a learner opens them (a click, not a link): opened
# at the caps, as any visitor can.
OPENED = {"app_pages/Real_model.py": ("rm_open_5", "rm_open_6")}


def at_max(page: str | None, extra: dict[str, str]) -> AppTest:
    """An AppTest session on `page` (None: home) opened by a link at the caps, with every
    section open, not yet run."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    as_link(at, {**MAX, **extra})
    for key in OPENED.get(page, ()):
        at.session_state[key] = True
    if page:
        at.switch_page(page)
    return at


def as_link(at: AppTest, query: dict[str, str]) -> None:
    """Open `at` as a link with `query` would, with the guesses among it already made: a
    guess is the learner's own and never rides in a link (ffn_ui/page/predict.py)."""
    for key, value in query.items():
        if key.startswith("guess"):
            at.session_state[key] = value
        else:
            at.query_params[key] = value


def split_guesses(query: str) -> tuple[str, list[tuple[str, str]]]:
    """A link's query without its guesses, and the guesses, which a visitor makes by
    clicking once the page is open."""
    pairs = parse_qsl(query)
    link = urlencode([(k, v) for k, v in pairs if not k.startswith("guess")])
    return link, [(k, v) for k, v in pairs if k.startswith("guess")]


def largest_chart(at: AppTest) -> int:
    """The size in bytes of the largest Plotly figure a run shipped."""
    return max((len(c.proto.spec) for c in at.get("plotly_chart")), default=0)


# The fact rewrite at the costliest offered block with a guess made (the page then shows
# the edited model's answers), for each fact.
COSTLIEST_LINKS["Language_model"] += [
    urlencode({"lm_fact": fact, "lm_new_answer": " Tokyo", "lm_edit_block": "17",
               "guess_neighbour": "yes, unchanged"})
    for fact in ("France's capital", "The Eiffel Tower")
]  # fmt: skip

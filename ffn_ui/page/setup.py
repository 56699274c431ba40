"""The one call every page starts with: page config, the sidebar model, presets, presenter.

    model = setup("Neurons", "Neurons: who fires, per token", INTRO)

reads every control from the URL and the session, so a page works when opened first by
its own link, and returns the Toy (the sidebar's toy) the page computes on.
"""

from __future__ import annotations

import streamlit as st

from ffn_core.init import lesson_example
from ffn_core.lessons.costs import swiglu_d_ff
from ffn_ui.classroom import recording
from ffn_ui.classroom.follow import class_controls
from ffn_ui.controls.url import bound_number, bound_select, bound_toggle
from ffn_ui.page import editing
from ffn_ui.page.files import show_upload_result, weight_files
from ffn_ui.page.inputs import model_weights, tokens
from ffn_ui.page.server import configure_process, hand_back_freed_memory
from ffn_ui.toy import FFN_LABELS, MAX_EDIT, Toy

INIT_OPTIONS = ("normal", "Xavier", "hand-edited", "uploaded")
TOKEN_OPTIONS = ("sentence", "random", "edited")
# On every page: the figure in numbers under each chart (st.text) set like a caption; a link
# in the page wraps rather than cutting its words off; and on a phone no chart toolbar,
# which would sit on the chart's title (a tap still shows the values). A chosen pill's
# text darker than the theme's red on its pale tint, which falls short of WCAG AA.
PAGE_CSS = """
[data-testid="stText"] { font-size: 0.875rem; }
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] span { white-space: normal; }
@media (max-width: 600px) { .js-plotly-plot .modebar-container { display: none; } }
.ffn-code { font-family: monospace; font-size: 1.4em; font-weight: 700; white-space: nowrap; }
[data-testid="stButtonGroup"] button[aria-pressed="true"] * { color: #8c1d2b; }
"""
# A projector: larger text, and the first figure on the first screen (less padding).
PRESENTER_CSS = """
html { font-size: 24px !important; }
[data-testid="stMain"] h1 { font-size: 1.6rem; padding: 0.5rem 0; }
[data-testid="stMain"] h2 { font-size: 1.3rem; padding: 0.5rem 0 0.25rem; }
[data-testid="stMain"] h3 { font-size: 1.15rem; padding: 0.5rem 0 0.25rem; }
[data-testid="stMain"] [data-testid="stAlertContainer"] { padding: 0.4rem 0.8rem; }
[data-testid="stMainBlockContainer"] { padding: 3rem 1.5rem 2rem; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.5rem; }
[data-testid="stSidebar"] { font-size: 20px; }
@media (max-width: 600px) { .katex-display > .katex { font-size: 0.8em; } }
"""
# A washed-out projector: every text black (captions are faded with opacity), links underlined.
HIGH_CONTRAST_CSS = """
[data-testid="stApp"], [data-testid="stApp"] * { color: #000000 !important; }
[data-testid="stCaptionContainer"] { opacity: 1 !important; }
[data-testid="stApp"] a { text-decoration: underline !important; }
[data-tag] { background-color: #ffffff !important; border: 2px solid #000000; }
"""


def setup_page(title: str) -> None:
    """Page config first: Streamlit requires it before any other element. Then what the
    server process sets for itself (ffn_ui/page/server.py)."""
    st.set_page_config(page_title=f"{title} · FFN Explorer", page_icon="⏳", layout="wide")
    configure_process()
    hand_back_freed_memory()


def setup(
    title: str, heading: str, lede: str, sidebar_note: str = "", tuck_model: bool = False
) -> Toy:
    """Config, then the page's heading and its one sentence, then everything the sidebar
    decides. The page's figure comes next (ffn_ui/page/stage.py), its explanation after.

    Notes about the link and the tables for edited weights follow the lede; a page can
    say in `sidebar_note` how it uses the sidebar's toy, and `tuck_model` puts the model's
    controls in a closed expander, for a page whose example does not use them.
    """
    presenter = page_frame(title, heading, lede)
    return sidebar_toy(presenter, sidebar_note, tuck_model)


def page_frame(title: str, heading: str, lede: str) -> bool:
    """The page's frame: config, the display toggles, the heading and its one sentence,
    the notes on a link or an upload, the presets and the class controls. True in
    presenter mode."""
    setup_page(title)
    sidebar = st.sidebar
    presenter = display_toggles(sidebar)
    st.title(heading)
    recording.heading(heading)
    st.markdown(lede)
    class_line = st.container(key="class_line")  # a class's one line, under the sentence
    show_upload_result()
    presets(sidebar, presenter)
    with recording.paused():  # the class's own line and notes: not the page's words
        class_controls(sidebar, class_line, presenter)
    return presenter


def display_toggles(sidebar) -> bool:
    """Presenter mode and high contrast, each reader's own, and the page's style for them.
    True in presenter mode."""
    presenter = bound_toggle(
        "Presenter mode",
        "presenter",
        container=sidebar,
        help="Larger text and figures for a projector; the intro and secondary controls "
        "tucked away.",
    )
    contrast = bound_toggle(
        "High contrast",
        "contrast",
        container=sidebar,
        help="Black text and bolder chart lines, for a washed-out projector.",
    )
    css = PAGE_CSS + (PRESENTER_CSS if presenter else "") + (HIGH_CONTRAST_CSS if contrast else "")
    st.html(f"<style>{css}</style>")
    if presenter:  # the whole width for the lesson: the sidebar opens with its arrow
        st.set_page_config(initial_sidebar_state="collapsed")
    return presenter


def sidebar_toy(presenter: bool, sidebar_note: str, tuck_model: bool) -> Toy:
    """The sidebar's toy model and tokens, which every toy page shares."""
    sidebar = st.sidebar
    if tuck_model:  # a page with an example of its own keeps the shared model out of sight
        sidebar = sidebar.expander("The model the other pages share")
    else:
        sidebar.subheader("Model")
    if sidebar_note:
        sidebar.caption(sidebar_note)
    d_model = bound_number("d_model", "d_model", 1, 1024, 4, sidebar, help="Token width.")
    for factor in (2, 4):  # one a row: two a row cut their words off in presenter mode
        sidebar.button(
            f"d_ff = {factor} × d_model", on_click=set_d_ff, args=(factor,), width="stretch"
        )
    sidebar.button(
        "d_ff = 8/3 × d_model, for SwiGLU", on_click=set_d_ff, args=(8 / 3,), width="stretch"
    )
    d_ff = bound_number("d_ff", "d_ff", 1, 4096, 16, sidebar, help="Hidden neurons.")
    matched = swiglu_d_ff(d_model)
    sidebar.caption(
        "SwiGLU has three matrices where the plain FFN has two, so Llama-style models make "
        f"it narrower: at d_ff = 8/3 × d_model ({matched}, "
        f"{'exactly' if 8 * d_model % 3 == 0 else 'rounded up'}), where the plain FFN takes "
        f"4 × d_model = {4 * d_model}. The button above sets it; d_ff below is what runs."
    )
    act_label = bound_select(
        "FFN",
        "act",
        list(FFN_LABELS),
        "ReLU",
        sidebar,
        help="The bend between W1 and W2 (none: no bend), or SwiGLU: Llama's gated FFN, "
        "silu(x·W_gate) ⊙ (x·W_up) · W_down, three matrices and no biases.",
    )
    more = sidebar.expander("More settings") if presenter and not tuck_model else sidebar
    seed = bound_number("seed", "seed", 0, 2**31 - 1, 0, more)
    init = bound_select(
        "weights",
        "init",
        INIT_OPTIONS,
        "normal",
        more,
        help="normal: N(0, 1/fan-in), where fan-in is the number of inputs a neuron adds up "
        "(d_model for W1), so scores start of order 1. Xavier: Glorot uniform, scaled by fan-in "
        "and fan-out together. hand-edited: tables on the "
        f"page (d_model, d_ff ≤ {MAX_EDIT}). uploaded: an NPZ or JSON file.",
    )

    sidebar.subheader("Tokens")
    mode = bound_select(
        "tokens from", "tokens", TOKEN_OPTIONS, "sentence", sidebar, radio=True, horizontal=True
    )
    x, labels = tokens(mode, d_model, seed, sidebar)
    weights, again = model_weights(init, d_model, d_ff, seed, FFN_LABELS[act_label])
    weight_files(again, more)
    return Toy(
        d_model=d_model,
        d_ff=d_ff,
        activation=FFN_LABELS[act_label],
        activation_label=act_label,
        weights=weights,
        again=again,
        x=x,
        token_labels=labels,
        presenter=presenter,
        tokens_from=mode,
    )


def presets(container, presenter: bool) -> None:
    """One click to each key picture; stacked in presenter mode, where text is larger."""
    container.subheader("Presets")
    places = [container] * 3 if presenter else container.columns(3)
    for place, (label, action, hint) in zip(places, PRESETS, strict=True):
        place.button(label, on_click=action, help=hint, width="stretch" if presenter else "content")


def preset_lesson() -> None:
    x, weights = lesson_example()
    state = st.session_state
    state.update(d_model=2, d_ff=2, act="ReLU", init="hand-edited", tokens="edited", T=1)
    state.update(x1=float(x[0, 0]), x2=float(x[0, 1]))  # the home page's example shows the same x
    editing.replace_arrays("hand_weights", weights)
    editing.replace_arrays("edited_x", {"x": x})


def preset_small() -> None:
    st.session_state.update(d_model=4, d_ff=16, act="ReLU", init="normal", tokens="sentence")


def preset_gpt2() -> None:
    st.session_state.update(d_model=768, d_ff=3072, act="GELU", init="normal", tokens="sentence")


PRESETS = (
    ("Lesson", preset_lesson, "d_model = d_ff = 2, x = [1, −1] → [0, 2]"),
    ("Small", preset_small, "d_model = 4, d_ff = 16, ReLU"),
    ("GPT-2", preset_gpt2, "768 → 3072, GELU, random weights"),
)


def set_d_ff(factor: float) -> None:
    """d_ff = factor × d_model: 4 as in most models, 2 for the lesson's first exercise, 8/3
    for SwiGLU at the plain FFN's parameter count (Llama rounds it up to a multiple)."""
    d_model = st.session_state.get("d_model", 4)
    d_ff = swiglu_d_ff(d_model) if factor == 8 / 3 else factor * d_model
    st.session_state["d_ff"] = min(int(d_ff), 4096)

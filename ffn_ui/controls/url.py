"""Controls bound to the URL and kept across pages, each drawn from a value it can show.

Before a control is drawn, its value is checked twice:

- The session's value, the learner's own earlier pick, must still exist. A token, a neuron
  or a fact disappears when the sentence or a size changes. Then the control is reset
  through `st.session_state`, with a note such as "token 6: mat no longer exists now that
  there are 2 tokens; showing 1: hello".
- The address's value, from a shared link or the back button, must be one the control
  accepts. If not, the control is reset the same way, and the note quotes the value as
  literal text, never as Markdown.

Nothing here deletes a query parameter bound to a widget: in a browser session Streamlit
raises if a script tries. Streamlit itself brings the address bar in line with a value set
through `st.session_state`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ffn_ui.streamlit_internals import forget_seed, history_navigation, kept_by_widgets
from ffn_ui.words import literal

BOUND = {"bind": "query-params", "persist_state": "session"}
REGISTRY_KEY = "bound_params"  # session_state: every bound key drawn so far, with its rule


def register(key: str, *rule) -> None:
    """Record what a bound key accepts, so tests can fuzz every one, including new ones.

    rule: ("number", low, high, integer) | ("choice", options) | ("bool",) | ("text", max)
    | ("derived",) for a control that shows a value computed from others.
    """
    st.session_state.setdefault(REGISTRY_KEY, {})[key] = rule


def keep_link_values() -> None:
    """Before any control is drawn: a value a link gave a bound control stays the session's
    when the learner moves to another page.

    On a page switch Streamlit 1.67 drops from the address every parameter bound to a
    control of the page being left (each page draws the sidebar's controls itself), and a
    value it had seeded from a link, kept only under that page's control, then went back
    to its default: a learner who opened ?act=SwiGLU&d_ff=24 lost both at the first click
    on the menu, while a value they had typed stayed. Writing such a value back through
    st.session_state makes it the session's own, as a typed one is. A value the session
    already keeps under its key is left alone, so that Streamlit writes it into the new
    page's address as it does for a typed one; an adopted link value reaches the address
    from the page's next run. Back and Forward are left to the address they restore
    (ffn_ui/page/history.py). Which values are kept under their key has no public API
    (ffn_ui/streamlit_internals.kept_by_widgets): every value is adopted if it moves.
    """
    state = st.session_state
    if get_script_run_ctx() is None or history_navigation():
        return
    kept = kept_by_widgets() or set()
    for key, rule in state.get(REGISTRY_KEY, {}).items():
        if key in state and rule[0] != "derived" and key not in kept:
            state[key] = state[key]


MAX_NUMBER_CHARS = 32  # a number's text in the address: longer is no number a control takes


def parse_number(raw: str, low: float, high: float, integer: bool = False) -> float | None:
    """The number in raw if it is finite, within [low, high] (and whole if asked), else None.

    A whole number of any length is a valid Python int, which math.isfinite and float()
    cannot take (OverflowError), and reading a very long one costs time: so a text longer
    than any number a control takes is refused before it is read, and an int is compared,
    never converted."""
    if len(raw) > MAX_NUMBER_CHARS:
        return None
    try:
        value = int(raw) if integer else float(raw)
    except (ValueError, OverflowError):
        return None
    if not integer and not math.isfinite(value):
        return None
    return value if low <= value <= high else None


def settle(
    key: str,
    label: str,
    fallback: object,
    *,
    keeps: Callable[[object], bool],
    accepts: Callable[[str], bool],
    expected: str,
    gone: str = "",
    shown: Callable[[object], str] = str,
    carry: Callable[[object], object] | None = None,
) -> None:
    """Make sure the control `key` is drawn from a value it can show.

    keeps(value): whether the session's value still exists; accepts(raw): whether the
    address's text is usable. `gone` ends the note for a value that no longer exists,
    e.g. "now that d_ff = 8". carry(stale) may name the stale value's counterpart among the
    new options (token 3 of a new sentence for token 3 of the old one), taken silently.
    """
    state = st.session_state
    stale = key in state and not keeps(state[key])
    raw = st.query_params.get(key)
    if raw is not None and not accepts(raw) and not (stale and mirrors(raw, state[key], shown)):
        state[key] = fallback
        forget_url_value(key)
        st.warning(
            f"The page's address set {key} to {literal(raw)}, but {in_sentence(label)} must be "
            f"{expected}; using {literal(shown(fallback))}."
        )
    elif stale:
        old = state[key]
        counterpart = carry(old) if carry else None
        state[key] = fallback if counterpart is None else counterpart
        if counterpart is None:
            where = f" {gone}" if gone else ""
            st.info(
                f"{label} {literal(shown(old))} no longer exists{where}; "
                f"showing {literal(shown(fallback))}."
            )


def mirrors(raw: str, value: object, shown: Callable[[object], str]) -> bool:
    """Whether the address's text is just the session's own value, as Streamlit wrote it."""
    if raw == shown(value) or raw.lower() == str(value).lower():
        return True
    try:
        return float(raw) == float(value)  # "1" for 1.0
    except (TypeError, ValueError, OverflowError):
        return False


def in_sentence(label: str) -> str:
    """A label as it reads mid-sentence: "Presenter mode" -> "presenter mode", "ReLU" kept."""
    return label[0].lower() + label[1:] if label[1:2].islower() else label


def forget_url_value(key: str) -> None:
    """Stop Streamlit seeding the control from a rejected address value, and drop that value.
    The one way this app drops an address value, bound to a widget or not (`w`, `x`):
    deleting a bound key from st.query_params raises in a browser session.

    Streamlit keeps a copy of the address to seed bound widgets from; for a whole-number
    input it raises OverflowError on ?d_model=inf instead of ignoring it. Neither that
    copy nor the way Streamlit clears a value has a public API: both are behind
    ffn_ui/streamlit_internals.py (`forget_seed`), whose tests say when they move.
    """
    forget_seed(key)


def number_text(low, high, integer: bool) -> str:
    return f"a {'whole ' if integer else ''}number from {low} to {high}"


def bound_slider(label: str, key: str, low, high, default, step, container=st, **kwargs):
    """A slider kept in the URL under `key`."""
    integer = isinstance(default, int)
    register(key, "number", low, high, integer)
    settle(
        key,
        label,
        default,
        keeps=lambda v: isinstance(v, int | float) and low <= v <= high,
        accepts=lambda raw: parse_number(raw, low, high, integer) is not None,
        expected=number_text(low, high, integer),
        gone=kwargs.pop("gone", ""),
    )
    return container.slider(label, low, high, default, step, key=key, **BOUND, **kwargs)


def bound_number(label: str, key: str, low: int, high: int, default: int, container=st, **kwargs):
    """A whole-number input kept in the URL under `key`."""
    register(key, "number", low, high, True)
    settle(
        key,
        label,
        default,
        keeps=lambda v: isinstance(v, int) and low <= v <= high,
        accepts=lambda raw: parse_number(raw, low, high, integer=True) is not None,
        expected=number_text(low, high, True),
        gone=kwargs.pop("gone", ""),
    )
    return container.number_input(label, low, high, default, 1, key=key, **BOUND, **kwargs)


def bound_select(
    label: str,
    key: str,
    options: Sequence[str],
    default: str,
    container=st,
    radio: bool = False,
    gone: str = "",
    carry: Callable[[object], object] | None = None,
    **kw,
):
    """A selectbox (or radio) of plain strings, kept in the URL by the option's text.

    `gone` says why an earlier pick may have disappeared, e.g. "now that d_ff = 8"; `carry`
    maps such a pick to its counterpart among the new options, if it has one.
    """
    settle_choice(key, label, default, options, gone=gone, carry=carry)
    widget = container.radio if radio else container.selectbox
    return widget(label, options, index=list(options).index(default), key=key, **BOUND, **kw)


def settle_choice(key: str, label: str, default, options: Sequence, fmt=str, **notes) -> None:
    """Register and settle a key whose value is one of `options`, written in the address as
    fmt(option); `notes` go to settle (gone, carry, shown)."""
    shown = [fmt(o) for o in options]
    register(key, "choice", tuple(shown))
    settle(
        key,
        label,
        default,
        keeps=lambda v: v in options,
        accepts=lambda raw: raw in shown,
        expected=choices_text(shown),
        **notes,
    )


def choices_text(options: Sequence[str], most: int = 6) -> str:
    more = f" and {len(options) - most} more" if len(options) > most else ""
    return f"one of {literal(', '.join(options[:most]))}{more}"


def bound_toggle(label: str, key: str, default: bool = False, container=st, **kwargs) -> bool:
    register(key, "bool")
    settle(
        key,
        label,
        default,
        keeps=lambda v: isinstance(v, bool),
        accepts=lambda raw: raw.lower() in ("true", "false"),
        expected="true or false",
        shown=lambda v: str(v).lower(),
    )
    return container.toggle(label, default, key=key, **BOUND, **kwargs)


def bound_text(label: str, key: str, default: str, max_chars: int, container=st, **kwargs) -> str:
    register(key, "text", max_chars)
    raw = st.query_params.get(key)
    if raw is not None and len(raw) > max_chars:  # Streamlit keeps the first max_chars
        st.warning(
            f"The page's address set {key} to a {in_sentence(label)} of {len(raw):,} "
            f"characters; using the first {max_chars}."
        )
    return container.text_input(label, default, max_chars, key=key, **BOUND, **kwargs)


def whole_words(text: str, max_chars: int, container=st) -> str:
    """A text box full to its `max_chars` may have cut its last word in two (a browser keeps
    the first max_chars of a pasted text): the text up to its last whole word, with a note
    that says where it stops. Any shorter text as it is."""
    if len(text) < max_chars or " " not in text.strip():
        return text
    kept = text.rsplit(" ", 1)[0].rstrip()
    tail = kept.rsplit(" ", 1)[-1]
    container.caption(
        f"The box holds at most {max_chars} characters, so a longer text stops there; the "
        f"page reads it up to the last whole word, {literal(tail)}."
    )
    return kept


def bound_multiselect(
    label: str,
    key: str,
    options: Sequence[str],
    container=st,
    gone: str = "",
    pills: bool = False,
    **kwargs,
):
    """A multiselect kept in the URL as repeated values (?key=a&key=b); as pills, every
    option shown and wrapping, for a few short options in a narrow column.

    Picks that no longer exist (a neuron past a smaller d_ff) are dropped with a note; so
    are address values that are not among the options.
    """
    register(key, "choice", tuple(options))
    state = st.session_state
    if isinstance(state.get(key), list) and not set(state[key]) <= set(options):
        stale = [v for v in state[key] if v not in options]
        state[key] = [v for v in state[key] if v in options]
        where = f" {gone}" if gone else ""
        st.info(f"{label}: {literal(', '.join(stale))} no longer exist{where}; dropped.")
    else:
        bad = [raw for raw in st.query_params.get_all(key) if raw not in options]
        if bad:  # Streamlit drops them itself and keeps the valid ones
            st.warning(
                f"The page's address set {key} to {literal(', '.join(bad))}, which is not "
                f"among the {label} options; using the valid ones only."
            )
    if pills:
        wrapped = {"width": "stretch", "wrap": True}
        return container.pills(
            label, options, selection_mode="multi", key=key, **wrapped, **BOUND, **kwargs
        )
    return container.multiselect(label, options, key=key, **BOUND, **kwargs)


def bound_select_slider(label: str, key: str, options: Sequence, default, fmt, container=st):
    """A select_slider kept in the URL by each option's formatted text."""
    settle_choice(key, label, default, options, fmt, shown=fmt)
    return container.select_slider(label, options, default, format_func=fmt, key=key, **BOUND)

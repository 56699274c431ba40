"""Controls bound to the URL and kept across pages, with a visible note for a bad link.

Streamlit drops an invalid bound value silently and shows the default; a teacher who
shared that link would never know. Each helper here checks the raw value first and, if it
cannot be used, says so at the top of the page before falling back to the default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

BOUND = {"bind": "query-params", "persist_state": "session"}
REGISTRY_KEY = "bound_params"  # session_state: every bound key drawn so far, with its rule


def register(key: str, *rule) -> None:
    """Record what a bound key accepts, so tests can fuzz every one, including new ones.

    rule: ("number", low, high, integer) | ("choice", options) | ("bool",) | ("text", max).
    """
    st.session_state.setdefault(REGISTRY_KEY, {})[key] = rule


def link_note(key: str, raw: str, expected: str, default: object) -> None:
    """Say what was wrong with the link's value, and drop it before Streamlit reads it."""
    st.warning(f"The link set {key}={raw!r}, but {key} must be {expected}; using {default}.")
    forget_link_value(key)


def forget_link_value(key: str) -> None:
    """Remove a rejected value from the URL and from the copy Streamlit seeds widgets from.

    Streamlit 1.67 seeds a bound widget from the URL as first loaded, and for a whole-number
    input ?d_model=inf raises OverflowError there instead of ignoring the value. That copy
    has no public API, so this reaches for it, and does nothing if it is ever renamed.
    """
    del st.query_params[key]
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as params:
        initial = getattr(params, "_initial_query_params", None)
        if isinstance(initial, dict):
            initial.pop(key, None)


def parse_number(raw: str, low: float, high: float, integer: bool = False) -> float | None:
    """The number in raw if it is finite, within [low, high] (and whole if asked), else None."""
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and low <= value <= high else None


def bound_slider(label: str, key: str, low, high, default, step, container=st, **kwargs):
    """A slider kept in the URL under `key`."""
    integer = isinstance(default, int)
    register(key, "number", low, high, integer)
    raw = st.query_params.get(key)
    if raw is not None and parse_number(raw, low, high, integer) is None:
        link_note(key, raw, f"a {'whole ' if integer else ''}number from {low} to {high}", default)
    return container.slider(label, low, high, default, step, key=key, **BOUND, **kwargs)


def bound_number(label: str, key: str, low: int, high: int, default: int, container=st, **kwargs):
    """A whole-number input kept in the URL under `key`."""
    register(key, "number", low, high, True)
    raw = st.query_params.get(key)
    if raw is not None and parse_number(raw, low, high, integer=True) is None:
        link_note(key, raw, f"a whole number from {low} to {high}", default)
    return container.number_input(label, low, high, default, 1, key=key, **BOUND, **kwargs)


def bound_select(
    label: str, key: str, options: Sequence[str], default: str, container=st, radio=False, **kw
):
    """A selectbox (or radio) of plain strings, kept in the URL by the option's text."""
    register(key, "choice", tuple(options))
    raw = st.query_params.get(key)
    if raw is not None and raw not in options:
        link_note(key, raw, f"one of {', '.join(options)}", default)
    widget = container.radio if radio else container.selectbox
    return widget(label, options, index=list(options).index(default), key=key, **BOUND, **kw)


def bound_toggle(label: str, key: str, default: bool = False, container=st, **kwargs) -> bool:
    register(key, "bool")
    raw = st.query_params.get(key)
    if raw is not None and raw.lower() not in ("true", "false"):
        link_note(key, raw, "true or false", default)
    return container.toggle(label, default, key=key, **BOUND, **kwargs)


def bound_text(label: str, key: str, default: str, max_chars: int, container=st, **kwargs) -> str:
    register(key, "text", max_chars)
    raw = st.query_params.get(key)
    if raw is not None and len(raw) > max_chars:
        st.warning(f"The link's {key} is {len(raw)} characters long; using the first {max_chars}.")
    return container.text_input(label, default, max_chars, key=key, **BOUND, **kwargs)


def bound_multiselect(label: str, key: str, options: Sequence[str], container=st, **kwargs):
    """A multiselect kept in the URL as repeated values (?key=a&key=b)."""
    register(key, "choice", tuple(options))
    bad = [raw for raw in st.query_params.get_all(key) if raw not in options]
    if bad:  # Streamlit drops the unknown ones itself and keeps the rest
        st.warning(
            f"The link set {key}={', '.join(bad)!r}, but {key} must be among the "
            "listed options; using the valid ones only."
        )
    return container.multiselect(label, options, key=key, **BOUND, **kwargs)


def bound_select_slider(label: str, key: str, options: Sequence, default, fmt, container=st):
    """A select_slider kept in the URL by each option's formatted text."""
    shown = [fmt(o) for o in options]
    register(key, "choice", tuple(shown))
    raw = st.query_params.get(key)
    if raw is not None and raw not in shown:
        link_note(key, raw, f"one of {', '.join(shown)}", fmt(default))
    return container.select_slider(label, options, default, format_func=fmt, key=key, **BOUND)

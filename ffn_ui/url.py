"""Controls bound to the URL and kept across pages, with a visible note for a bad link.

Streamlit drops an invalid bound value silently and shows the default; a teacher who
shared that link would never know. Each helper here checks the raw value first and, if it
cannot be used, says so at the top of the page before falling back to the default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import streamlit as st

BOUND = {"bind": "query-params", "persist_state": "session"}


def link_note(key: str, raw: str, expected: str, default: object) -> None:
    st.warning(f"The link set {key}={raw!r}, but {key} must be {expected}; using {default}.")


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
    raw = st.query_params.get(key)
    if raw is not None and parse_number(raw, low, high, integer) is None:
        link_note(key, raw, f"a {'whole ' if integer else ''}number from {low} to {high}", default)
    return container.slider(label, low, high, default, step, key=key, **BOUND, **kwargs)


def bound_number(label: str, key: str, low: int, high: int, default: int, container=st, **kwargs):
    """A whole-number input kept in the URL under `key`."""
    raw = st.query_params.get(key)
    if raw is not None and parse_number(raw, low, high, integer=True) is None:
        link_note(key, raw, f"a whole number from {low} to {high}", default)
    return container.number_input(label, low, high, default, 1, key=key, **BOUND, **kwargs)


def bound_select(
    label: str, key: str, options: Sequence[str], default: str, container=st, radio=False, **kw
):
    """A selectbox (or radio) of plain strings, kept in the URL by the option's text."""
    raw = st.query_params.get(key)
    if raw is not None and raw not in options:
        link_note(key, raw, f"one of {', '.join(options)}", default)
    widget = container.radio if radio else container.selectbox
    return widget(label, options, index=list(options).index(default), key=key, **BOUND, **kw)


def bound_toggle(label: str, key: str, default: bool = False, container=st, **kwargs) -> bool:
    raw = st.query_params.get(key)
    if raw is not None and raw.lower() not in ("true", "false"):
        link_note(key, raw, "true or false", default)
    return container.toggle(label, default, key=key, **BOUND, **kwargs)


def bound_text(label: str, key: str, default: str, max_chars: int, container=st, **kwargs) -> str:
    raw = st.query_params.get(key)
    if raw is not None and len(raw) > max_chars:
        st.warning(f"The link's {key} is {len(raw)} characters long; using the first {max_chars}.")
    return container.text_input(label, default, max_chars, key=key, **BOUND, **kwargs)


def bound_multiselect(label: str, key: str, options: Sequence[str], container=st, **kwargs):
    """A multiselect kept in the URL as repeated values (?key=a&key=b)."""
    bad = [raw for raw in st.query_params.get_all(key) if raw not in options]
    if bad:
        link_note(key, ", ".join(bad), "among the listed options", "the valid ones only")
    return container.multiselect(label, options, key=key, **BOUND, **kwargs)


def bound_select_slider(label: str, key: str, options: Sequence, default, fmt, container=st):
    """A select_slider kept in the URL by each option's formatted text."""
    shown = [fmt(o) for o in options]
    raw = st.query_params.get(key)
    if raw is not None and raw not in shown:
        link_note(key, raw, f"one of {', '.join(shown)}", fmt(default))
    return container.select_slider(label, options, default, format_func=fmt, key=key, **BOUND)

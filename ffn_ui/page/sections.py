"""Page sections that rerun on their own, as fragments.

A session keeps a fragment's function, and its arguments, between reruns. Defined in a
page, the function would keep the page's globals alive with it: every array of the
page's last run, for as long as the session lasts. Defined here, it keeps only this
shared module, and its arguments are small settings.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core import ACTIVATIONS
from ffn_core.swiglu import swiglu_slices
from ffn_ui import figures
from ffn_ui.controls.url import bound_multiselect, bound_slider, bound_toggle
from ffn_ui.page.display import show
from ffn_ui.page.toy import ACTIVATION_LABELS as NAMES

SLICES = ("SwiGLU, gate = up = z", "SwiGLU, up = 1")  # one-input slices of SwiGLU
DEFAULT_CURVES = ["ReLU", "GELU", "GELU-tanh", "SiLU"]


def curves_notice(chosen: list[str]) -> str:
    """The one "notice" sentence for the curves drawn, and a word on the lines that lie on
    one another."""
    notice = (
        "Notice: ReLU is exactly 0 below zero, while GELU and SiLU dip slightly negative "
        "and have a nonzero slope almost everywhere."
    )
    if {"GELU", "GELU-tanh"} <= set(chosen):
        notice += " GELU-tanh (dashed) lies on GELU: the inset shows the gap."
    if {"SiLU", "SwiGLU, up = 1"} <= set(chosen):
        notice += (
            " SwiGLU with up = 1 is silu(z) itself, so its line (dotted) lies exactly on SiLU's."
        )
    return notice


@st.fragment
def curves_section(presenter: bool) -> None:
    """The curves and their controls rerun on their own: moving the range is cheap."""
    places = st.columns([2, 1]) if presenter else [st, st]  # a row on a projector
    curves = [*NAMES, *SLICES]
    chosen = bound_multiselect("curves", "curves", curves, places[0], default=DEFAULT_CURVES)
    half_range = bound_slider("z from −r to r", "range", 0.5, 10.0, 4.0, 0.5, places[1])
    derivative = bound_toggle("Show the derivatives", "deriv", False)
    z = np.linspace(-half_range, half_range, 801)
    slices = swiglu_slices(z, derivative)
    series = {
        label: slices[label]
        if label in slices
        else getattr(ACTIVATIONS[NAMES[label]], "derivative" if derivative else "fn")(z)
        for label in chosen
    }
    st.subheader("The curves" + (": their slopes" if derivative else ""))
    st.caption(curves_notice(chosen))
    if series:
        show(figures.activation_curves(z, series, "slope" if derivative else "act(z)"), presenter)
    else:
        st.info("Pick at least one curve.")
    if not {"GELU", "GELU-tanh"} & set(chosen):
        return  # the gap below is about curves not drawn
    fine = np.linspace(-half_range, half_range, 20001)
    gap = np.abs(ACTIVATIONS["gelu"].fn(fine) - ACTIVATIONS["gelu_tanh"].fn(fine))
    st.metric(
        "largest gap between exact GELU and its tanh approximation on this range",
        f"{gap.max():.2e}",
        help=f"at z = {fine[gap.argmax()]:.3f}; the approximation is what GPT-2 shipped with.",
    )

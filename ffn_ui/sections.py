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
from ffn_ui import figures
from ffn_ui.charts import show
from ffn_ui.model import ACTIVATION_LABELS as NAMES
from ffn_ui.url import bound_multiselect, bound_slider, bound_toggle


@st.fragment
def curves_section(presenter: bool) -> None:
    """The curves and their controls rerun on their own: moving the range is cheap."""
    chosen = bound_multiselect(
        "curves", "curves", list(NAMES), default=["ReLU", "GELU", "GELU-tanh", "SiLU"]
    )
    half_range = bound_slider("z from −r to r", "range", 0.5, 10.0, 4.0, 0.5)
    derivative = bound_toggle("Show the derivatives", "deriv", False)
    z = np.linspace(-half_range, half_range, 801)
    series = {
        label: getattr(ACTIVATIONS[NAMES[label]], "derivative" if derivative else "fn")(z)
        for label in chosen
    }
    st.subheader("The curves" + (": their slopes" if derivative else ""))
    if series:
        show(figures.curves(z, series, "", "slope" if derivative else "act(z)"), presenter)
    else:
        st.info("Pick at least one curve.")
    fine = np.linspace(-half_range, half_range, 20001)
    gap = np.abs(ACTIVATIONS["gelu"].fn(fine) - ACTIVATIONS["gelu_tanh"].fn(fine))
    st.metric(
        "largest gap between exact GELU and its tanh approximation on this range",
        f"{gap.max():.2e}",
        help=f"at z = {fine[gap.argmax()]:.3f}; the approximation is what GPT-2 shipped with.",
    )

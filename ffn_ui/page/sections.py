"""Page sections that rerun on their own, as fragments.

A session keeps a fragment's function, and its arguments, between reruns. Defined in a
page, the function would keep the page's globals alive with it: every array of the
page's last run, for as long as the session lasts. Defined here, it keeps only this
shared module, and its arguments are small settings.

Activations' curves are one: its first figure, with their controls beside it, and what
the page says of GELU's dip below zero, read off the same curves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from ffn_core import ACTIVATIONS
from ffn_core.swiglu import swiglu_slices
from ffn_ui import figures
from ffn_ui.classroom import recording
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.url import bound_multiselect, bound_slider, bound_toggle
from ffn_ui.page.display import show
from ffn_ui.page.stage import stage
from ffn_ui.toy import ACTIVATION_LABELS as NAMES

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


@dataclass(frozen=True)
class GeluDip:
    """Where GELU goes below zero, read off the core's GELU and its slope."""

    lowest: float  # GELU's least value
    lowest_at: float  # the z where it is least, where its slope is 0
    slope_at_0: float  # GELU'(0)
    steepest: float  # the slope's least value, below 0
    steepest_at: float  # the z where the slope is least


def gelu_dip() -> GeluDip:
    """GELU's dip below zero on a grid of z in [−4, 0], steps of 10⁻⁴: its lowest value,
    where its slope crosses 0, and how negative the slope gets."""
    gelu = ACTIVATIONS["gelu"]
    z = np.linspace(-4.0, 0.0, 40001)  # (n,)
    value, slope = gelu.fn(z), gelu.derivative(z)  # (n,) each
    low, steep = int(np.argmin(value)), int(np.argmin(slope))
    return GeluDip(
        lowest=float(value[low]),
        lowest_at=float(z[low]),
        slope_at_0=float(slope[-1]),
        steepest=float(slope[steep]),
        steepest_at=float(z[steep]),
    )


def presets(container) -> None:
    """One click to each view of the curves."""
    with recording.paused():  # the buttons' label: a follower, who has no buttons, skips it
        container.caption("Presets")
    curves = ["ReLU", "GELU", "GELU-tanh", "SiLU"]
    preset_button(container, "Zoom near 0", range=1.5, curves=curves)
    preset_button(container, "Wide view", range=8.0, curves=[*NAMES, *SLICES])
    preset_button(container, "SwiGLU's slices", range=3.0, curves=["ReLU", "SiLU", *SLICES])


@st.fragment
def curves_section(presenter: bool) -> None:
    """The page's first figure, the curves, with their controls beside it; they rerun on
    their own: moving the range is cheap."""
    plot, controls = stage(presenter)
    with controls:
        presets(st)
        curves = [*NAMES, *SLICES]
        chosen = bound_multiselect("curves", "curves", curves, default=DEFAULT_CURVES, pills=True)
        half_range = bound_slider("z from −r to r", "range", 0.5, 10.0, 4.0, 0.5)
        derivative = bound_toggle("Show the derivatives", "deriv", False)
    z = np.linspace(-half_range, half_range, 801)
    slices = swiglu_slices(z, derivative)
    series = {
        label: slices[label]
        if label in slices
        else getattr(ACTIVATIONS[NAMES[label]], "derivative" if derivative else "fn")(z)
        for label in chosen
    }
    with plot:
        if series:
            title = "their slopes, act′(z)" if derivative else "the activations, act(z)"
            fig = figures.activation_curves(z, series, "slope" if derivative else "act(z)", title)
            show(fig, presenter)
            st.caption(curves_notice(chosen))
        else:
            st.info("Pick at least one curve.")
    if not {"GELU", "GELU-tanh"} & set(chosen):
        return  # the gap below is about curves not drawn
    fine = np.linspace(-half_range, half_range, 20001)
    gap = np.abs(ACTIVATIONS["gelu"].fn(fine) - ACTIVATIONS["gelu_tanh"].fn(fine))
    controls.metric(
        "largest gap between exact GELU and its tanh approximation on this range",
        f"{gap.max():.2e}",
        help=f"at z = {fine[gap.argmax()]:.3f}; the approximation is what GPT-2 shipped with.",
    )

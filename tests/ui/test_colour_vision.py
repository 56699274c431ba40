"""Every palette the figures use, seen through simulated colour-vision deficiencies.

The simulation is colorspacious's model of Machado et al. (2009) at full severity, for the
three common kinds: deuteranomaly, protanomaly and tritanomaly. A colour difference is ΔE in
CAM02-UCS, where about 1 is the smallest difference a viewer notices. Colours that carry a
meaning (fired or silent, positive or negative, an error's band) must stay at least
MEANING apart; the categorical palette's colours at least CATEGORY apart, since those also
come with a legend or a label. A scale must get steadily lighter or darker, so that its
order reads without hue.
"""

from __future__ import annotations

import itertools

import numpy as np
import plotly.colors
import pytest
from colorspacious import cspace_convert, deltaE

from ffn_ui import figures
from ffn_ui.parts import backprop
from ffn_ui.parts.language_model import sections as language_model_sections

DEFICIENCIES = ("deuteranomaly", "protanomaly", "tritanomaly")
VISIONS = ("typical", *DEFICIENCIES)
MEANING = 15.0
CATEGORY = 10.0


def srgb(colour: str) -> np.ndarray:
    """'#D55E00' or 'rgb(5,48,97)' as sRGB in [0, 1]."""
    if colour.startswith("#"):
        return np.array(plotly.colors.hex_to_rgb(colour)) / 255
    return np.array(plotly.colors.unlabel_rgb(colour)) / 255


def seen(rgb: np.ndarray, vision: str) -> np.ndarray:
    """An sRGB colour as a viewer with this vision sees it."""
    if vision == "typical":
        return rgb
    space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    return np.clip(cspace_convert(rgb, space, "sRGB1"), 0, 1)


def difference(a: np.ndarray, b: np.ndarray, vision: str) -> float:
    return float(deltaE(seen(a, vision), seen(b, vision), input_space="sRGB1"))


def lightness(rgb: np.ndarray, vision: str) -> float:
    """J' of CAM02-UCS: how light the colour looks."""
    return float(cspace_convert(seen(rgb, vision), "sRGB1", "CAM02-UCS")[0])


def scale_at(scale: str | list, t: float) -> np.ndarray:
    """The sRGB colour a Plotly scale (a name, or [[t, colour], ...]) gives at t in [0, 1]:
    linear between its stops, as Plotly draws it."""
    stops = plotly.colors.get_colorscale(scale) if isinstance(scale, str) else scale
    positions = [s for s, _ in stops]
    colours = np.array([srgb(c) for _, c in stops])
    return np.array([np.interp(t, positions, colours[:, i]) for i in range(3)])


MEANINGFUL_PAIRS = {
    "a fired neuron's bar, a silent one's": (figures.FIRED, figures.SILENT),
    "the faintest fired cell, a silent cell": (figures.FIRED_SCALE[0][1], figures.SILENT_CELL),
    "pushes a word up, pushes it down": (language_model_sections.UP, language_model_sections.DOWN),
    **{
        f"phases {a} and {b}": (figures.PHASE_COLOURS[a], figures.PHASE_COLOURS[b])
        for a, b in itertools.combinations(range(len(figures.PHASE_COLOURS)), 2)
    },
    **{
        f"error bands '{a[1]}', '{b[1]}'": (a[2], b[2])
        for a, b in itertools.combinations(backprop.ERROR_BANDS, 2)
    },
}


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("pair", MEANINGFUL_PAIRS, ids=str)
def test_colours_that_mean_something_stay_apart(pair, vision):
    a, b = MEANINGFUL_PAIRS[pair]
    assert difference(srgb(a), srgb(b), vision) >= MEANING


@pytest.mark.parametrize("vision", VISIONS)
def test_the_categorical_palette_stays_apart(vision):
    closest = min(
        difference(srgb(a), srgb(b), vision) for a, b in itertools.combinations(figures.COLOURS, 2)
    )
    assert closest >= CATEGORY


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("size", [0.25, 0.5, 1.0])
def test_the_diverging_scale_tells_the_sign_apart_at_the_same_size(size, vision):
    """A quarter of the largest value below zero and the same above look different."""
    below, above = (scale_at(figures.DIVERGING, 0.5 + sign * size / 2) for sign in (-1, 1))
    assert difference(below, above, vision) >= MEANING


@pytest.mark.parametrize("vision", VISIONS)
def test_the_diverging_scale_darkens_steadily_away_from_zero(vision):
    ts = np.linspace(0.5, 1, 11)
    for side in (ts, 1 - ts):  # from zero to the top, and from zero to the bottom
        shades = [lightness(scale_at(figures.DIVERGING, t), vision) for t in side]
        assert all(np.diff(shades) < 0)


@pytest.mark.parametrize("vision", VISIONS)
@pytest.mark.parametrize("name", ["FIRED_SCALE", "SEQUENTIAL"])
def test_the_sequential_scales_darken_steadily_from_low_to_high(name, vision):
    scale = getattr(figures, name)
    shades = [lightness(scale_at(scale, t), vision) for t in np.linspace(0, 1, 11)]
    assert all(np.diff(shades) < 0)
    assert difference(scale_at(scale, 0), scale_at(scale, 1), vision) >= 3 * MEANING


def test_the_simulation_is_not_the_identity():
    """A red and a green that typical vision tells far apart collapse under deuteranomaly:
    the model above is really applied (the old error shades of the Backprop table)."""
    red, green = srgb("#ffcdd2"), srgb("#c8e6c9")
    assert difference(red, green, "typical") > 20
    assert difference(red, green, "deuteranomaly") < 3

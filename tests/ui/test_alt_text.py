"""The figure in numbers, read from figures built here and checked against independent
computations: closed forms, explicit loops and sorts."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import ndtr

from ffn_core import ACTIVATIONS
from ffn_ui import figures
from ffn_ui.alt_text import MOST, describe, number


def test_the_curves_say_where_gelu_dips_and_that_relu_stays_at_zero():
    z = np.linspace(-4, 4, 801)  # the Activations page's default grid
    series = {name: ACTIVATIONS[key].fn(z) for name, key in (("ReLU", "relu"), ("GELU", "gelu"))}
    words = describe(figures.activation_curves(z, series, "act(z)"))
    # GELU(z) = z Φ(z) has its minimum near z = −0.752, value −0.170 (closed form, float64)
    dip = minimize_scalar(lambda v: v * ndtr(v), bounds=(-2, 0), method="bounded")
    assert f"GELU: lowest {number(dip.fun)} at z = {number(round(dip.x, 2))}," in words
    assert "GELU: lowest −0.17 at z = −0.75," in words  # as a learner reads it
    assert "ReLU: lowest 0 at z = −4, highest 4 at z = 4." in words


def test_a_masked_heatmap_counts_the_coloured_cells_of_every_row():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((4, 7))  # non-square: rows are tokens, columns neurons
    tokens, neurons = [f"{t + 1}: w{t}" for t in range(4)], [f"n{j + 1}" for j in range(7)]
    fig = figures.firing_heatmap(values, values > 0, tokens, neurons, "h", mask=True)
    words = describe(fig)
    assert "A grid of h, 4 rows (token) by 7 columns (hidden neuron)" in words
    for t in range(4):
        fired = sum(1 for j in range(7) if values[t, j] > 0)
        assert f"{tokens[t]} {fired} of 7" in words
    best = max(((t, j) for t in range(4) for j in range(7)), key=lambda tj: values[tj])
    assert f"largest {number(values[best])} at token {tokens[best[0]]}, " in words
    assert f"hidden neuron {neurons[best[1]]};" in words
    assert "·" not in words  # the dots that mark blank cells are not read out again


def test_many_bars_name_the_three_largest_and_the_two_smallest():
    values = np.array([0.5, -2.0, 3.25, 1.0, 0.0, 7.5, -0.125, 2.0])
    names = [f"e{k}" for k in range(len(values))]
    words = describe(figures.bars(names, values, "load per expert", "load"))
    assert len(values) > MOST
    assert words.startswith("load per expert. Bars: 8 bars; largest e5 (7.5), e2 (3.25), e7 (2)")
    assert words.endswith("smallest e1 (−2), e6 (−0.125).")


def test_few_bars_name_every_value_in_order():
    words = describe(figures.bars(["1: the", "2: cat"], [3, 12], "fired per token", "fired"))
    assert words == "fired per token. Bars: 1: the (3), 2: cat (12)."


def test_a_visitors_markdown_is_carried_as_plain_characters():
    """The words are written with st.text, so a label is shown as typed, not rendered."""
    label = "**bold** [link](http://example.com) :smile:"
    words = describe(figures.bars([label, "b"], [1, 2], "", "v"))
    assert f"{label} (1)" in words


def test_the_half_planes_say_which_side_the_token_is_on():
    keys = np.array([[1.0, -1.0], [0.0, 2.0]])  # neuron 1 scores x₁ − x₂, neuron 2 scores 2x₂
    words = describe(figures.half_planes(keys, np.array([1.0, -1.0])))
    assert "neuron 1 fires where x₁ − x₂ > 0, and x is inside it" in words  # 1 − (−1) = 2
    assert "neuron 2 fires where 2x₂ > 0, and x is outside it" in words  # 2 · (−1) = −2
    assert words.startswith("Your token x = (1, −1)")

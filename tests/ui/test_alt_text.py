"""The figure in numbers, read from figures built here and checked against independent
computations: closed forms, explicit loops and sorts."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import ndtr

from ffn_core import ACTIVATIONS
from ffn_ui import figures
from ffn_ui.page.alt_text import BARS, describe
from ffn_ui.words import number


def test_the_curves_say_where_gelu_dips_and_that_relu_stays_at_zero():
    z = np.linspace(-4, 4, 801)  # the Activations page's default grid
    series = {name: ACTIVATIONS[key].fn(z) for name, key in (("ReLU", "relu"), ("GELU", "gelu"))}
    words = describe(figures.activation_curves(z, series, "act(z)"))
    # GELU(z) = z Φ(z) has its minimum near z = −0.752, value −0.170 (closed form, float64)
    dip = minimize_scalar(lambda v: v * ndtr(v), bounds=(-2, 0), method="bounded")
    assert f"GELU: lowest {number(dip.fun)} at z = {number(round(dip.x, 2))}," in words
    assert "GELU: lowest −0.17 at z = −0.75," in words  # as a learner reads it
    assert "ReLU: lowest 0 from z = −4 to 0, highest 4 at z = 4." in words  # a flat stretch


def test_a_masked_heatmap_counts_the_coloured_cells_of_every_row():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((4, 7))  # non-square: rows are tokens, columns neurons
    tokens, neurons = [f"{t + 1}: w{t}" for t in range(4)], [f"n{j + 1}" for j in range(7)]
    fig = figures.firing_heatmap(values, values > 0, tokens, neurons, "h", mask=True)
    words = describe(fig)
    assert "A grid of h, 4 rows (token) by 7 columns (hidden neuron)" in words
    for t in range(4):
        fired = sum(1 for j in range(7) if values[t, j] > 0)
        assert f"{tokens[t]}: {fired} of the 7 drawn" in words
    best = max(((t, j) for t in range(4) for j in range(7)), key=lambda tj: values[tj])
    assert f"largest {number(values[best])} at token {tokens[best[0]]}, " in words
    assert f"hidden neuron {neurons[best[1]]};" in words
    assert "·" not in words  # the dots that mark blank cells are not read out again


def test_many_bars_name_the_three_largest_and_the_two_smallest():
    values = np.array([0.5, -2.0, 3.25, 1.0, 0.0, 7.5, -0.125, 2.0, 1.5, 0.25, 0.75, 1.25, 4.0])
    names = [f"e{k}" for k in range(len(values))]
    words = describe(figures.bars(names, values, "load per expert", "load"))
    assert len(values) > BARS
    assert words.startswith("load per expert. Bars: 13 bars; largest e5 (7.5), e12 (4), e2 (3.25)")
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
    edge = describe(figures.half_planes(keys, np.array([1.0, 1.0])))  # 1 − 1 = 0
    assert "neuron 1 fires where x₁ − x₂ > 0, and x is on its edge (score 0" in edge


def test_a_gap_lowest_at_two_separate_places_is_not_called_a_stretch():
    z = np.linspace(-4, 4, 801)
    gap = ACTIVATIONS["gelu"].fn(z) - ACTIVATIONS["gelu_tanh"].fn(z)  # even in z
    words = describe(figures.curves(z, {"gap": gap}, "", "z", "gap"))
    low = int(np.argmin(gap))
    assert f"lowest {number(gap[low])} at z = {number(z[low])} and {number(-z[low])}" in words


def test_a_grid_over_numbers_gives_x_first_and_counts_exact_zeros():
    xs, ys = np.array([-1.0, 0.0, 2.0]), np.array([10.0, 20.0])  # 3 columns, 2 rows
    values = np.array([[0.0, 1.0, -3.0], [5.0, 0.0, 0.0]])  # (len(ys), len(xs))
    words = describe(figures.surface_contour(xs, ys, values, "f", "gate", "up"))
    assert "3 of 6 cells are exactly 0" in words
    assert "largest 5 at (gate, up) = (−1, 20)" in words  # row 1 is up = 20, column 0 gate −1
    assert "smallest −3 at (gate, up) = (2, 10)" in words


def test_the_histogram_counts_exact_zeros_from_the_values_not_the_bins():
    values = np.array([0.0, 0.0, 0.0, 0.5, 2.0, -0.25, 0.0])
    words = describe(figures.histogram(values, 0.0, "all activations"))
    zeros = sum(1 for v in values if v == 0)
    above = sum(1 for v in values if v > 0)
    assert f"7 activations: {zeros} exactly 0, {above} above the dashed line at 0" in words
    assert "the smallest −0.25, the largest 2." in words


def test_training_says_the_recall_it_had_not_the_floor_the_log_axis_draws():
    losses, recall = np.array([4.0, 2.0, 0.5, 0.01]), np.array([0.0, 0.25, 1.0, 1.0])
    words = describe(figures.loss_and_recall(losses, recall))
    assert "recall goes from 0% at step 1 to 100%, first reached at step 3" in words
    assert "0.001" not in words


def test_routing_names_each_tokens_chosen_experts():
    probs = np.array([[0.5, 0.1, 0.4], [0.2, 0.7, 0.1]])
    chosen = np.array([[True, False, True], [False, True, False]])
    words = describe(
        figures.routing_heatmap(probs, chosen, ["1: the", "2: cat"], ["e1", "e2", "e3"])
    )
    assert "1: the → e1, e3, 2: cat → e2" in words


def test_writes_name_the_output_and_the_arrows_the_steps():
    parts = np.array([[1.0, -2.0], [0.5, 3.0]])  # (neurons, coordinates)
    b2 = np.array([0.25, 0.0])
    out = parts.sum(axis=0) + b2
    words = describe(figures.neuron_writes_figure(parts, out, ["n1", "n2"], ["o1", "o2"], b2))
    assert "o1 = 1.75 (n1 writes the most, 1), o2 = 1 (n2 writes the most, 3)" in words
    assert "b2 adds 0.25, 0." in words
    words = describe(figures.arrows_figure(parts, b2, ["n1", "n2"]))
    assert "n1 writes (1, −2), n2 writes (0.5, 3); b2 adds (0.25, 0)" in words
    assert "the output ends at (1.75, 1)." in words


def test_no_neuron_writing_and_values_past_float32_still_read():
    words = describe(figures.neuron_writes_figure(np.zeros((0, 2)), np.zeros(2), [], ["o1", "o2"]))
    assert "o1 = 0 (no neuron writes), o2 = 0 (no neuron writes)" in words
    big = describe(figures.bars(["a", "b"], [1e308, -np.inf], "", "v"))
    assert big == "Bars: a (inf), b (−inf)."  # float32 on the page: 1e308 is inf there too


def test_a_coordinate_no_neuron_writes_to_is_said_so():
    """Home's lesson example once read "out₁ = 0 (neuron 1 writes the most, 0)", where
    neither neuron writes anything."""
    from ffn_ui.figures.writes import writes_in_words

    parts = np.array([[0.0, 0.0], [0.0, 2.0]])  # neuron 2 writes 2 into out₂ alone
    words = writes_in_words(parts, parts.sum(axis=0), ["neuron 1", "neuron 2"], ["out₁", "out₂"])
    assert "out₁ = 0 (no neuron writes to it)" in words
    assert "out₂ = 2 (neuron 2 writes the most, 2)" in words

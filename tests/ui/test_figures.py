"""Figure builders, checked by reading the figure's data without Streamlit."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_ui import figures


def test_neuron_writes_figure_stacks_each_neuron_and_marks_the_output():
    parts = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])  # (d_ff=2, d_model=3)
    out = parts.sum(axis=0) + np.array([0.1, 0.2, 0.3])
    fig = figures.neuron_writes_figure(parts, out, ["n1", "n2"], ["a", "b", "c"])
    bars = [t for t in fig.data if t.type == "bar"]
    assert [b.name for b in bars] == ["n1", "n2"]
    for bar, row in zip(bars, parts, strict=True):
        assert bar.y.dtype == np.float32  # arrays, not lists, keep the payload small
        np.testing.assert_allclose(bar.y, row)
    (marker,) = [t for t in fig.data if t.type == "scatter"]
    np.testing.assert_allclose(marker.y, out, rtol=1e-6)
    assert fig.layout.barmode == "relative"  # negative writes stack below zero
    assert "%{y" in bars[0].hovertemplate  # exact values on hover


def test_heatmap_is_float32_centred_on_zero_with_values_on_hover():
    values = np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.25]])
    fired = values > 0
    fig = figures.firing_heatmap(values, fired, ["t1", "t2"], ["n1", "n2", "n3"], "h", mask=False)
    (trace,) = fig.data
    assert trace.z.dtype == np.float32 and trace.z.shape == (2, 3)
    assert trace.zmid == 0 and trace.zmin == -3 and trace.zmax == 3
    assert "%{z" in trace.hovertemplate
    masked = figures.firing_heatmap(values, fired, ["t1", "t2"], ["n1", "n2", "n3"], "h", True)
    np.testing.assert_array_equal(np.isnan(masked.data[0].z), ~fired)


def test_most_active_columns_keeps_the_order_and_averages_the_rest():
    rng = np.random.default_rng(0)
    values = rng.standard_normal((4, 10))
    fired = values > 0
    order = np.arange(10)[::-1]
    kept, kept_fired, labels, note = figures.most_active_columns(
        values, fired, order, [f"n{j}" for j in range(10)], keep=4
    )
    assert kept.shape == (4, 4) and labels == ["n9", "n8", "n7", "other 7"]
    np.testing.assert_array_equal(kept[:, :3], values[:, [9, 8, 7]])
    np.testing.assert_allclose(kept[:, 3], values[:, :7].mean(axis=1))
    assert not kept_fired[:, 3].any()
    assert note == "the 3 most active of 10 neurons; the last column is the mean of the other 7"
    small = figures.most_active_columns(values, fired, order, [f"n{j}" for j in range(10)], 10)
    assert small[0].shape == (4, 10) and small[3] == ""


def test_the_widest_heatmap_stays_under_a_megabyte():
    rng = np.random.default_rng(1)
    values = rng.standard_normal((64, 4096))
    labels = [f"n{j + 1}" for j in range(4096)]
    kept, fired, kept_labels, _ = figures.most_active_columns(
        values, values > 0, np.arange(4096), labels, figures.MAX_COLUMNS
    )
    fig = figures.firing_heatmap(kept, fired, [f"t{t}" for t in range(64)], kept_labels, "h", True)
    assert len(fig.to_json()) < 1_000_000


def test_bars_highlight_one_bar():
    fig = figures.bars(["a", "b", "c"], [1.0, -2.0, 3.0], "t", "v", highlight=1)
    np.testing.assert_array_equal(fig.data[0].marker.line.width, [0, 3, 0])
    assert fig.data[0].y.dtype == np.float32


def test_histogram_counts_every_value():
    values = np.random.default_rng(2).standard_normal(1000)
    fig = figures.histogram(values, 0.0, "t")
    assert fig.data[0].y.sum() == 1000


def test_arrows_end_at_the_output():
    parts = np.array([[1.0, 0.5], [-0.5, 2.0]])
    b2 = np.array([0.25, -0.25])
    fig = figures.arrows_figure(parts, b2, ["n1", "n2"])
    last_tip = fig.layout.annotations[-1]
    assert (last_tip.x, last_tip.y) == pytest.approx(tuple(parts.sum(axis=0) + b2))
    first = fig.layout.annotations[0]
    assert (first.ax, first.ay) == (0, 0)  # the first arrow starts at the origin


def test_grouped_bars_keep_every_series():
    fig = figures.grouped_bars({"x": [1, 2], "y": [3, 4]}, ["a", "b"], "t")
    assert [t.name for t in fig.data] == ["x", "y"]
    assert fig.layout.barmode == "group"


def test_matrix_heatmap_and_contour_are_centred_on_zero():
    fig = figures.matrix_heatmap(np.array([[1.0, -4.0]]), ["r"], ["a", "b"], "t")
    assert fig.data[0].zmid == 0 and fig.data[0].zmax == 4 and fig.data[0].z.dtype == np.float32
    grid = np.linspace(-1, 1, 5)
    contour = figures.surface_contour(grid, grid, np.outer(grid, grid), "t", "g", "u")
    assert contour.data[0].z.shape == (5, 5) and contour.data[0].zmid == 0


def test_curves_and_log_lines_keep_their_series():
    z = np.linspace(-1, 1, 11)
    fig = figures.curves(z, {"relu": np.maximum(z, 0), "id": z}, "t", "z", "y")
    assert [t.name for t in fig.data] == ["relu", "id"]
    np.testing.assert_allclose(fig.data[0].y, np.maximum(z, 0))
    logs = figures.log_lines(
        np.array([1, 10, 100]), {"a": np.array([1.0, 2, 3])}, "t", "T", "F", log_x=True
    )
    assert logs.layout.xaxis.type == "log" and logs.layout.yaxis.type == "log"


def test_decision_surface_and_curve_fit_show_the_data():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    y = np.array([0, 1, 1])
    fig = figures.decision_surface(np.linspace(-1, 1, 4), np.full((4, 4), 0.5), X, y, "t")
    points = [t for t in fig.data if t.type == "scatter"]
    assert [len(t.x) for t in points] == [1, 2]
    fit = figures.curve_fit(np.arange(3.0), np.arange(3.0), np.arange(3.0) * 0.9, "t")
    assert [t.name for t in fit.data] == ["target", "FFN"]


def test_flops_against_length_marks_the_crossover_and_the_chosen_length():
    T = np.array([1, 10, 100, 1000])
    series = {"FFN": T * 8.0, "attention T² terms": T**2 * 1.0}
    fig = figures.flops_vs_length(T, series, crossover=8.0, title="t", chosen=100)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    dashed, grey = fig.layout.shapes
    assert (dashed.x0, dashed.line.dash) == (8.0, "dash")
    assert (grey.x0, grey.line.color) == (100, "grey")
    (label,) = fig.layout.annotations
    assert label.text == "T = 8" and label.x == pytest.approx(np.log10(8.0))  # log10 units
    assert [t.name for t in fig.data] == list(series)


def test_the_histogram_leaves_out_values_that_are_not_finite_and_says_so():
    values = np.array([0.0, 0.5, 1.0, np.inf, -np.inf, np.nan])
    fig = figures.histogram(values, 0.0, "acts")
    assert fig.layout.title.text == "acts (3 not finite, left out)"
    assert fig.data[0].y.sum() == 3


def test_a_heatmap_of_zeros_or_infinities_still_has_a_colour_scale():
    fig = figures.matrix_heatmap(np.zeros((2, 2)), ["a", "b"], ["c", "d"], "zeros")
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)
    fig = figures.matrix_heatmap(np.array([[np.inf, 2.0]]), ["a"], ["c", "d"], "inf")
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-2.0, 2.0)


def test_a_level_line_marks_uniform_load():
    fig = figures.bars(["e1", "e2"], [3, 1], "load", "tokens", level=2.0)
    (line,) = fig.layout.shapes
    assert (line.y0, line.line.dash) == (2.0, "dash")
    assert fig.layout.annotations[0].text == "uniform load"


@pytest.mark.parametrize(
    ("key", "text"),
    [([1, 1], "x₁ + x₂"), ([1, -1], "x₁ − x₂"), ([-2, 0.5], "−2x₁ + 0.5x₂"), ([0, -1], "−x₂")],
)
def test_a_key_reads_as_its_score(key, text):
    assert figures.score_text(np.array(key, float)) == text


def test_the_figures_show_the_largest_shares_and_the_best_keys_and_values():
    shares = np.random.default_rng(3).standard_normal(40)  # (d_ff,)
    names = [f"n{j + 1}" for j in range(40)]
    (bar,) = figures.largest_shares(shares, names, "paris").data
    top = sorted(range(40), key=lambda j: -shares[j])[:30]
    assert list(bar.x) == [names[j] for j in top]
    np.testing.assert_allclose(bar.y, shares[top], rtol=1e-6)
    assert list(bar.marker.color) == [
        figures.FIRED if shares[j] > 0 else figures.SILENT for j in top
    ]
    key, value = figures.key_and_value_bars("n3", list("abcde"), shares[:5], names, shares)
    assert list(key.data[0].y) == sorted("abcde", key=lambda c: -shares["abcde".index(c)])
    assert list(value.data[0].y) == [names[j] for j in top[:8]]


def test_the_logit_lens_gives_each_block_a_row_its_top_token_fits_in():
    """Thirty blocks as thirty thin columns overlapped their top tokens' labels; each
    block is now a row, as high as a line of text, read top to bottom."""
    blocks = [str(b + 1) for b in range(30)]
    tops = ["␣a", ".", "␣the", "␣capital"] * 7 + ["␣the", "␣Paris"]
    p = np.linspace(0, 0.77, 30)
    fig = figures.lens_strip(blocks, tops, p, "␣Paris")
    (cells,) = fig.data
    assert list(cells.y) == blocks and list(cells.x) == ["top token"]
    assert [row[0] for row in cells.text] == tops
    assert np.allclose(np.asarray(cells.z)[:, 0], p, atol=1e-6)
    plot_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot_height / len(blocks) >= 16  # px a row: a label's line fits
    assert fig.layout.yaxis.autorange == "reversed"  # block 1 at the top
    assert "␣Paris first comes out on top after block 30" in fig.layout.meta["alt"]

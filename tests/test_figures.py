"""Figure builders, checked by reading the figure's data without Streamlit."""

from __future__ import annotations

import numpy as np

from ffn_ui.figures import neuron_writes_figure


def test_neuron_writes_figure_stacks_each_neuron_and_marks_the_output():
    parts = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])  # (d_ff=2, d_model=3)
    out = parts.sum(axis=0) + np.array([0.1, 0.2, 0.3])
    fig = neuron_writes_figure(parts, out, ["n1", "n2"], ["a", "b", "c"])
    bars = [t for t in fig.data if t.type == "bar"]
    assert [b.name for b in bars] == ["n1", "n2"]
    for bar, row in zip(bars, parts, strict=True):
        assert bar.y.dtype == np.float32  # arrays, not lists, keep the payload small
        np.testing.assert_allclose(bar.y, row)
    (marker,) = [t for t in fig.data if t.type == "scatter"]
    np.testing.assert_allclose(marker.y, out, rtol=1e-6)
    assert fig.layout.barmode == "relative"  # negative writes stack below zero
    assert "%{y" in bars[0].hovertemplate  # exact values on hover

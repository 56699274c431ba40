"""What a control inside a fragment sends back on a real server: only its own sections.

AppTest reruns the whole page for a widget inside a fragment, so this speaks Streamlit's
protocol to a real server, as the browser does when the slider moves.
"""

from __future__ import annotations

from harness.protocol import Visitor


def test_the_real_models_layer_slider_reruns_only_the_sections_about_one_layer(server, minilm):
    with Visitor(server.port) as visitor:
        first = visitor.open("Real_model")
        layer = first.widgets["rm_layer"]  # (widget id, its fragment's id)
        moved = visitor.rerun("Real_model", first.page_hash, layer, 4)
    assert first.exceptions == [] and moved.exceptions == []
    assert first.widgets["d_model"][1] == "" and layer[1] != ""  # sidebar outside, layer in
    numbered = [h for h in first.headings if h[:1].isdigit()]
    assert numbered[0] == "1. Who fires in layer 3"  # the figure at the top has no number
    # the rerun sends sections 1 to 5 again, at the new layer, and nothing above them
    assert moved.headings[0] == "1. Who fires in layer 4"
    assert [h[:2] for h in moved.headings] == ["1.", "2.", "3.", "4.", "5."]
    assert len(moved.charts) == len(first.charts) - 1  # all but the figure at the top
    for key in ("d_model", "presenter", "rm_text", "rm_thr"):
        assert key not in moved.widgets
    assert {"rm_layer", "rm_neuron", "rm_other", "rm_k"} <= set(moved.widgets)

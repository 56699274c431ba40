"""Plotly figure builders: arrays in, a go.Figure out, no Streamlit calls. One module per
lesson topic; every builder is named here, so that a page reads `figures.bars(...)`.

Arrays go to Plotly as float32 NumPy arrays (compact base64 in the page), and every
trace shows its exact values on hover.
"""

from ffn_ui.figures.activations import activation_curves, gate_up_scatter, swiglu_surface
from ffn_ui.figures.backward import Panel, line_diagram, stacked_maps
from ffn_ui.figures.base import (
    COLOURS,
    DIVERGING,
    FIRED,
    FIRED_SCALE,
    FONT_SIZE,
    MAX_COLUMNS,
    OTHER,
    SEQUENTIAL,
    SILENT,
    SILENT_CELL,
    ZERO_LINE,
    arrow,
    diverging,
    f32,
    figure,
    largest,
    line_at,
    marker_scale,
    pair,
    titled,
)
from ffn_ui.figures.charts import (
    bars,
    class_answers,
    curves,
    grouped_bars,
    held_back_heatmap,
    histogram,
    log_lines,
    matrix_heatmap,
    spread_heatmap,
)
from ffn_ui.figures.collapse import product_heatmaps
from ffn_ui.figures.cost import block_shares, flops_vs_length, routing_heatmap
from ffn_ui.figures.memory import (
    LENS_ROW_PX,
    key_and_value_bars,
    largest_shares,
    lens_strip,
    loss_and_recall,
    rank_one_change,
)
from ffn_ui.figures.neurons import firing_heatmap, most_active_columns
from ffn_ui.figures.planes import half_plane_polygon, half_planes, score_text
from ffn_ui.figures.strides import stride_reads
from ffn_ui.figures.superposition import PHASE_COLOURS, feature_arrows, phase_heatmap
from ffn_ui.figures.training import (
    check_bars,
    curve_fit,
    decision_surface,
    eps_sweep,
    loss_along_score,
    square_law,
    surface_contour,
    task_points,
)
from ffn_ui.figures.writes import (
    arrows_figure,
    neuron_writes_figure,
    residual_bars,
    writes_in_words,
)

__all__ = [
    "COLOURS",
    "DIVERGING",
    "FIRED",
    "FIRED_SCALE",
    "FONT_SIZE",
    "LENS_ROW_PX",
    "MAX_COLUMNS",
    "OTHER",
    "PHASE_COLOURS",
    "SEQUENTIAL",
    "SILENT",
    "SILENT_CELL",
    "ZERO_LINE",
    "Panel",
    "activation_curves",
    "arrow",
    "arrows_figure",
    "bars",
    "block_shares",
    "check_bars",
    "class_answers",
    "curve_fit",
    "curves",
    "decision_surface",
    "diverging",
    "eps_sweep",
    "f32",
    "feature_arrows",
    "figure",
    "firing_heatmap",
    "flops_vs_length",
    "gate_up_scatter",
    "grouped_bars",
    "half_plane_polygon",
    "half_planes",
    "held_back_heatmap",
    "histogram",
    "key_and_value_bars",
    "largest",
    "largest_shares",
    "lens_strip",
    "line_at",
    "line_diagram",
    "log_lines",
    "loss_along_score",
    "loss_and_recall",
    "marker_scale",
    "matrix_heatmap",
    "most_active_columns",
    "neuron_writes_figure",
    "pair",
    "phase_heatmap",
    "product_heatmaps",
    "rank_one_change",
    "residual_bars",
    "routing_heatmap",
    "score_text",
    "spread_heatmap",
    "square_law",
    "stacked_maps",
    "stride_reads",
    "surface_contour",
    "swiglu_surface",
    "task_points",
    "titled",
    "writes_in_words",
]

"""Activations: ReLU, GELU, SiLU and SwiGLU side by side, and on the same weights."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import ACTIVATIONS, hidden
from ffn_core.activations import silu
from ffn_core.costs import ffn_params, swiglu_d_ff
from ffn_ui import figures
from ffn_ui.buttons import preset_button
from ffn_ui.charts import show
from ffn_ui.model import ACTIVATION_LABELS
from ffn_ui.path import next_step
from ffn_ui.sections import curves_section
from ffn_ui.setup import setup

NEAR_ZERO = 0.01  # |h| below this counts as "near zero"
INTRO = (
    "The activation is the only bend in the FFN. ReLU, from the original Transformer "
    "(2017), cuts every negative score to exactly 0. GELU, used by BERT and GPT-2, weighs "
    "each score by how likely a standard normal value is to lie below it, so it bends "
    "smoothly and lets small negative values through. SiLU (Swish) is similar, and Llama's "
    "SwiGLU uses it as a gate. A smooth bend has a slope everywhere: a neuron just below "
    "zero still gets a small gradient and can recover, where a ReLU neuron gets none."
)
NAMES = ACTIVATION_LABELS  # what the page shows -> the core's names


model = setup("Activations", "Activations: why the bend matters", INTRO)

with st.columns([3, 1])[1]:
    st.caption("Presets")
    preset_button(st, "Zoom near 0", range=1.5, curves=["ReLU", "GELU", "GELU-tanh", "SiLU"])
    preset_button(st, "Wide view", range=8.0, curves=list(NAMES))


curves_section(model.presenter)

st.subheader("SwiGLU: a gate with two inputs")
st.markdown(
    "SwiGLU computes two scores per neuron, a gate g = x·W_gate and an up value "
    "u = x·W_up, and passes silu(g)·u. That needs three matrices instead of two, so "
    "models shrink d_ff to about 8/3·d_model to keep the parameter count of a 4× FFN."
)
grid = np.linspace(-3, 3, 81)
gate, up = np.meshgrid(grid, grid)
show(
    figures.surface_contour(grid, grid, silu(gate) * up, "silu(gate) × up", "gate", "up"),
    model.presenter,
)
d = model.d_model
matched = swiglu_d_ff(d)
table = pd.DataFrame(
    {
        "d_ff": [4 * d, matched],
        "matrices": [2, 3],
        "weights": [ffn_params(d, 4 * d, bias=False), ffn_params(d, matched, "swiglu", False)],
    },
    index=["ReLU/GELU FFN, 4 × d_model", "SwiGLU, 8/3 × d_model"],
)
st.caption(f"At your d_model = {d}:")
st.dataframe(table)

st.subheader("Every activation on the same weights")
st.markdown(
    "The current model's scores x·W1 + b1, passed through each activation in turn. ReLU's "
    "silence is exact: a share of the outputs is exactly 0. GELU and SiLU are never exactly "
    "0; their silent neurons leave small negative values instead, and nearly none is dead."
)
h_pre, _ = hidden(*model.args[:3], "identity")  # (T, d_ff)
rows = {}
for label, name in NAMES.items():
    h = ACTIVATIONS[name].fn(h_pre)
    rows[label] = {
        "active per token": float(np.mean(h > 0)),
        "exactly zero": float(np.mean(h == 0)),
        f"near zero (|h| < {NEAR_ZERO})": float(np.mean(np.abs(h) < NEAR_ZERO)),
        "negative": float(np.mean(h < 0)),
        "dead neurons": int(np.sum(~np.any(h > 0, axis=0))),
    }
stats = pd.DataFrame(rows).T
shares = stats.drop(columns="dead neurons")
show(
    figures.grouped_bars(
        {col: shares[col].to_numpy() for col in shares.columns},
        list(shares.index),
        f"shares of the {model.T} × {model.d_ff} hidden values",
    ),
    model.presenter,
)
st.dataframe(
    stats,
    column_config={c: st.column_config.NumberColumn(format="percent") for c in shares.columns},
)

next_step("pages/3_Activations.py")

"""Scale & cost: where the parameters and the FLOPs of real models live."""

import numpy as np
import streamlit as st

from ffn_core import attention_flops, ffn_flops, quadratic_crossover
from ffn_core.costs import default_heads
from ffn_ui import figures
from ffn_ui.controls.predict import predicted
from ffn_ui.controls.url import bound_number, bound_select, bound_select_slider
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.cost_table import (
    SHAPES,
    block_split,
    cost_table,
    gated_section,
    learner_shape,
    notice,
    ratio_section,
    share_question,
    table_section,
)

LEDE = (
    "A block's weights sit mostly in attention's four projections and the FFN's matrices; "
    "the bars split real models' blocks between them once you guess."
)
INTRO = (
    "A transformer block has two big parts: attention's four projections (Q, K, V and O, "
    "each d_model × d_model unless grouped) and the FFN's matrices. Beside them sit two "
    "small norms, each of which rescales a token's vector before attention or the FFN "
    "reads it: LayerNorm "
    "(GPT-2, BERT) shifts the vector's numbers to mean 0 and scales them to variance 1, "
    "then applies a learned scale and shift per coordinate (2·d_model weights); RMSNorm "
    "(Llama) only divides by the numbers' root mean square and applies a learned scale "
    "(d_model weights). Compute tells its own story: the FFN's work grows linearly with the "
    "sequence length T, attention's score and mixing work with T², so long contexts are "
    "attention's problem."
)

toy = setup("Scale & cost", "Scale & cost: where the parameters and FLOPs live", LEDE)
answered = predicted(share_question())
picture, controls = stage(toy.presenter)
heads = default_heads(toy.d_model)
with controls:
    layers = bound_number("layers in your model", "layers", 1, 96, 12)
    st.caption(
        f"“your model” is the sidebar's: d_model {toy.d_model}, d_ff {toy.d_ff}, "
        f"{toy.activation_label}. Its layers count in the table below."
    )
    if answered:
        st.caption(notice())
yours = learner_shape(toy.d_model, toy.d_ff, layers, heads, toy.gated)
table = cost_table(yours)
with picture:
    show(block_split(yours, hidden=not answered), toy.presenter)
explained(INTRO, toy.presenter)

st.subheader("1. Parameters per block and in total")
if answered:
    table_section(table, toy, heads)
else:
    st.caption("The table opens once you have answered the question at the top: it answers it.")

st.subheader("2. The ratio: FFN against attention")
if answered:
    ratio_section(toy)
else:
    st.caption("Drawn once you have answered the question at the top: its lines answer it.")

st.subheader("3. FLOPs against sequence length")
st.markdown(
    "FLOPs are floating-point operations; a multiply-add counts as 2, so a (T × d) · (d × n) "
    "product costs 2·T·d·n."
)
names = [*SHAPES, "your model"]
left, right = st.columns(2)
chosen = bound_select("model", "cost_model", names, "GPT-2 small", left)
lengths = [2**i for i in range(18)]  # 1 to 131,072 tokens
seq_len = bound_select_slider("sequence length T", "seq_T", lengths, 1024, "{:,}".format, right)
shape = SHAPES.get(chosen) or yours
T = np.unique(np.geomspace(1, 131072, 120).astype(np.int64))
attn = attention_flops(T, shape.d_model, shape.n_heads, shape.n_kv_heads)
ffn = shape.top_k * ffn_flops(T, shape.d_model, shape.d_ff, shape.ffn_kind)
cross = quadratic_crossover(shape.d_ff, shape.ffn_kind, shape.top_k)
series = {
    "FFN (active experts)" if shape.n_experts > 1 else "FFN": ffn.astype(float),
    "attention Q, K, V, O": attn["projections"].astype(float),
    "attention T² terms": (attn["scores"] + attn["mix"]).astype(float),
}
title = f"{chosen}: FLOPs of one block, one forward pass over T tokens"
show(figures.flops_vs_length(T, series, cross, title, chosen=seq_len), toy.presenter)
per_token = ffn_flops(1, shape.d_model, shape.d_ff, shape.ffn_kind) * shape.top_k
at_T = attention_flops(seq_len, shape.d_model, shape.n_heads, shape.n_kv_heads)
left, mid, right = st.columns(3)
left.metric("FFN FLOPs per token", f"{per_token:,}")
mid.metric(f"FFN FLOPs over T = {seq_len:,}", f"{per_token * seq_len:.3g}")
right.metric(f"attention FLOPs over T = {seq_len:,}", f"{sum(at_T.values()):.3g}")
st.caption(
    f"The FFN's cost per token does not depend on T; attention's T² terms pass the FFN at "
    f"T = {cross:,.0f} (the dashed line). The grey line is the T you chose."
)

st.subheader("4. SwiGLU at the same weights")
gated_section(toy.d_model)

next_step("app_pages/Scale_and_cost.py")

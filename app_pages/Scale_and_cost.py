"""Scale & cost: where the parameters and the FLOPs of real models live."""

import streamlit as st

from ffn_core.lessons.costs import default_heads
from ffn_ui.controls.url import bound_number
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.cost_table import (
    block_split,
    cost_table,
    flops_section,
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

st.subheader("2. SwiGLU's three matrices, per token")
swiglu_said = gated_section(toy.d_model)

st.subheader("3. The ratio: FFN against attention")
if answered and swiglu_said:
    ratio_section(toy)
else:
    st.caption("Drawn once you have answered the questions above: its lines answer them.")

st.subheader("4. FLOPs against sequence length")
if answered:
    flops_section(yours, toy.presenter)
else:
    st.caption("Drawn once you have answered the question at the top: its lines answer it.")

next_step("app_pages/Scale_and_cost.py")

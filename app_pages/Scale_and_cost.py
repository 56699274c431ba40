"""Scale & cost: where the parameters and the FLOPs of real models live."""

import numpy as np
import streamlit as st

from ffn_core import MODEL_SHAPES, attention_flops, ffn_flops, quadratic_crossover
from ffn_core.costs import default_heads
from ffn_ui import figures
from ffn_ui.controls.predict import Question, predicted
from ffn_ui.controls.url import bound_number, bound_select, bound_select_slider
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.parts.cost_table import cost_table, gated_section, learner_shape, styled

INTRO = (
    "A transformer block has two big parts: attention's four projections and the FFN's "
    "matrices. Which holds more of the block's weights? Compute tells its own story: the "
    "FFN's work grows linearly with the sequence length T, attention's score and mixing "
    "work with T², so long contexts are attention's problem."
)

toy = setup("Scale & cost", "Scale & cost: where the parameters and FLOPs live", INTRO)
heads = default_heads(toy.d_model)
layers = bound_number("layers in your model", "layers", 1, 96, 12)
yours = learner_shape(toy.d_model, toy.d_ff, layers, heads, toy.gated)
table = cost_table(yours)

st.subheader("1. Parameters per block and in total")
share = float(table.loc["GPT-2 small", "FFN share of block"])
question = Question(
    "Predict: what share of a GPT-2 small block's weights sits in its FFN?",
    "guess_share",
    ("about a third", "about half", "about two thirds", "about 90 %"),
    answer="about two thirds",
    why=f"W1 and W2 hold 2 × 768 × 3072 = 4.7 M weights, attention's Q, K, V and O "
    f"4 × 768² = 2.4 M: the FFN holds {share:.1%} of the block, 8·d² of about 12·d².",
)
if predicted(question):
    st.caption(
        "Notice: GPT-2, BERT and Llama 2 keep two thirds of each block in the FFN; Llama 3, "
        "with a wider SwiGLU and grouped-query attention, keeps 81 %, and Mixtral's eight "
        "experts 97 %. Per block: the FFN's weights and biases, attention's Q, K, V and O "
        "(grouped-query attention, where several query heads share one key and value "
        "head, as Llama 2's 70B model and Mixtral do), and the block's two norms. 'All "
        "blocks' leaves out the embeddings and the one norm outside the blocks (the final "
        "norm; BERT's embedding norm); the recount adds them back (and BERT's pooler) and "
        f"matches each released checkpoint exactly. Your model (d_model {toy.d_model}, d_ff "
        f"{toy.d_ff}) is counted as "
        + (
            "Llama-style SwiGLU blocks, with no biases and RMSNorm"
            if toy.gated
            else "GPT-2-style blocks with biases and LayerNorm"
        )
        + f", with "
        f"{heads} head{'s' if heads > 1 else ''} of {toy.d_model // heads} numbers (heads "
        "of 64, as GPT-2 and BERT use, where d_model allows); attention's size does not "
        "depend on the number of heads."
    )
    st.dataframe(styled(table))
    st.download_button(
        "Download the table (CSV)",
        table.to_csv().encode(),
        "ffn_costs.csv",
        "text/csv",
        on_click="ignore",
    )
    show(
        figures.bars(
            list(table.index),
            table["FFN share of block"],
            "share of each block's weights that sit in the FFN",
            "share",
            horizontal=True,
        ),
        toy.presenter,
    )

st.subheader("2. The ratio: FFN against attention")
ratio = np.linspace(0.5, 8, 151)
show(
    figures.curves(
        ratio,
        {"standard FFN (2 matrices)": 2 * ratio / 4, "SwiGLU (3 matrices)": 3 * ratio / 4},
        "FFN weights ÷ attention weights (4·d²), by d_ff ÷ d_model",
        "d_ff ÷ d_model",
        "FFN ÷ attention",
    ),
    toy.presenter,
)
ratio_yours = toy.d_ff / toy.d_model
matrices = 3 if toy.gated else 2
st.caption(
    "At d_ff = 4·d_model a standard FFN has 8·d², twice attention's 4·d². SwiGLU's third "
    "matrix would make that 12·d², so it uses d_ff ≈ 8/3·d_model to stay at 8·d² (the "
    f"SwiGLU line crosses 2 at 8/3, the standard one at 4). Your d_ff ÷ d_model is "
    f"{ratio_yours:.2f} with {matrices} matrices, so your FFN holds "
    f"{matrices * ratio_yours / 4:.2f}× attention's weights."
)

st.subheader("3. FLOPs against sequence length")
st.markdown(
    "FLOPs are floating-point operations; a multiply-add counts as 2, so a (T × d) · (d × n) "
    "product costs 2·T·d·n."
)
names = [*MODEL_SHAPES, "your model"]
left, right = st.columns(2)
chosen = bound_select("model", "cost_model", names, "GPT-2 small", left)
lengths = [2**i for i in range(18)]  # 1 to 131,072 tokens
seq_len = bound_select_slider("sequence length T", "seq_T", lengths, 1024, "{:,}".format, right)
shape = MODEL_SHAPES.get(chosen) or yours
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

"""The Scale & cost page's pieces: the models it counts (the core's, and Llama 2's larger
sizes), its question and figure of each block's split, the table of every count, the ratio
of FFN to attention, and SwiGLU at its matched width against the plain FFN."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.lessons.costs import (
    MODEL_SHAPES,
    ModelShape,
    attention_flops,
    ffn_flops,
    ffn_params,
    gpt2_shape,
    model_params,
    quadratic_crossover,
    swiglu_d_ff,
)
from ffn_ui import figures
from ffn_ui.controls.url import bound_select, bound_select_slider
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted

NONE = float("nan")  # a missing number: the table shows it as a dash, not "None"


def with_larger_llama2() -> dict[str, ModelShape]:
    """The core's models, with Llama 2's 13B and 70B after its 7B, from their released
    configurations: 13B keeps full attention, 70B groups its 64 query heads over 8 key and
    value heads (grouped-query attention) and widens its SwiGLU to d_ff 28,672. Recounted
    by the core, each matches its checkpoint's published count."""
    seven = MODEL_SHAPES["Llama-2-7B"]
    larger = [
        replace(seven, name="Llama-2-13B", d_model=5120, d_ff=13824, n_layers=40, n_heads=40,
                n_kv_heads=40, published_params=13_015_864_320, published_label="13B"),
        replace(seven, name="Llama-2-70B", d_model=8192, d_ff=28672, n_layers=80, n_heads=64,
                n_kv_heads=8, published_params=68_976_648_192, published_label="70B"),
    ]  # fmt: skip
    shapes = {}
    for name, shape in MODEL_SHAPES.items():
        shapes[name] = shape
        if name == seven.name:
            shapes.update((s.name, s) for s in larger)
    return shapes


SHAPES = with_larger_llama2()
# The figure's bars: one GPT-2 (its four sizes share one split) and each other kind of block.
FIGURE_MODELS = ("GPT-2 small", "BERT-base", "Llama-2-7B", "Llama-2-13B", "Llama-2-70B",
                 "Llama-3-8B", "Mixtral-8x7B")  # fmt: skip


def share(shape: ModelShape) -> float:
    """The FFN's share of one block's weights (every expert's, for a mixture)."""
    counts = model_params(shape)
    return counts["ffn"] / counts["block"]


def share_question() -> Question:
    """The page's question: GPT-2 small's FFN share, which the figure holds back."""
    return Question(
        "Predict: what share of a GPT-2 small block's weights sits in its FFN?",
        "guess_share",
        ("about a third", "about half", "about two thirds", "about 90 %"),
        answer="about two thirds",
        why="W1 and W2 hold 2 × 768 × 3072 = 4.7 M weights, attention's Q, K, V and O "
        f"4 × 768² = 2.4 M: the FFN holds {share(SHAPES['GPT-2 small']):.1%} of the block, "
        "8·d² of about 12·d².",
    )


def block_split(yours: ModelShape, hidden: bool):
    """The figure: each model's block split into FFN, attention and norms (hidden: whole)."""
    shapes = [*(SHAPES[name] for name in FIGURE_MODELS), yours]
    counts = [model_params(shape) for shape in shapes]
    parts = {
        "FFN": np.array([c["ffn"] for c in counts]),
        "attention (Q, K, V, O)": np.array([c["attention"] for c in counts]),
        "norms": np.array([c["norms"] for c in counts]),
    }
    return figures.block_shares([s.name for s in shapes], parts, hidden)


def percent(value: float) -> str:
    return f"{value:.0%}".replace("%", " %")


def notice() -> str:
    """What the revealed split shows, model by model, each share the core's."""
    seventy = SHAPES["Llama-2-70B"]
    return (
        f"Notice: GPT-2, BERT and Llama 2 7B and 13B keep two thirds of each block in the "
        f"FFN ({percent(share(SHAPES['Llama-2-13B']))} for 13B). Llama 2 70B keeps "
        f"{percent(share(seventy))}: its attention is grouped-query (its {seventy.n_heads} "
        f"query heads share {seventy.n_kv_heads} key and value heads, so K and V shrink) and "
        f"its FFN wider, d_ff {seventy.d_ff:,}. Llama 3 8B, with grouped-query attention "
        f"too, keeps {percent(share(SHAPES['Llama-3-8B']))}. Mixtral 8x7B keeps "
        f"{percent(share(SHAPES['Mixtral-8x7B']))}: its FFN is eight experts, eight FFNs side "
        "by side of which a small router runs two for each token (the Mixture of experts page "
        "shows how). The real models' norms are too small to see."
    )


def counted(toy, heads: int) -> str:
    """What the table counts, and how the learner's model is counted."""
    return (
        "Per block: the FFN's weights and biases, attention's Q, K, V and O, and the block's "
        "two norms. 'All blocks' leaves out the embeddings and the one norm outside the "
        "blocks (the final norm; BERT's embedding norm); the recount adds them back (and "
        "BERT's pooler) and matches each released checkpoint exactly. Your model (d_model "
        f"{toy.d_model}, d_ff {toy.d_ff}) is counted as "
        + (
            "Llama-style SwiGLU blocks, with no biases and RMSNorm"
            if toy.gated
            else "GPT-2-style blocks with biases and LayerNorm"
        )
        + f", with {heads} head{'s' if heads > 1 else ''} of {toy.d_model // heads} numbers "
        "(heads of 64, as GPT-2 and BERT use, where d_model allows); attention's size does "
        "not depend on the number of heads. Mixtral's 'active per token' is what one token "
        "runs through: the two experts its router picks (top-2) and every shared weight."
    )


def table_section(table: pd.DataFrame, toy, heads: int) -> None:
    """Section 1, once the question is answered: every count, and the table to download."""
    st.caption(counted(toy, heads))
    st.dataframe(styled(table))
    st.download_button(
        "Download the table (CSV)",
        table.to_csv().encode(),
        "ffn_costs.csv",
        "text/csv",
        on_click="ignore",
    )


def ratio_section(toy) -> None:
    """Section 2, once the question is answered (its lines answer it): FFN ÷ attention by
    d_ff ÷ d_model, for two matrices and for SwiGLU's three."""
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
        "At d_ff = 4·d_model a standard FFN has 8·d², twice attention's 4·d². SwiGLU's "
        "third matrix would make that 12·d², so it uses d_ff ≈ 8/3·d_model to stay at 8·d² "
        f"(the SwiGLU line crosses 2 at 8/3, the standard one at 4). Your d_ff ÷ d_model is "
        f"{ratio_yours:.2f} with {matrices} matrices, so your FFN holds "
        f"{matrices * ratio_yours / 4:.2f}× attention's weights."
    )


def learner_shape(
    d_model: int, d_ff: int, n_layers: int, n_heads: int, gated: bool = False
) -> ModelShape:
    """The sidebar's sizes as a GPT-2-style block (biases, LayerNorm), or for SwiGLU a
    Llama-style one (three FFN matrices, no biases, RMSNorm); no embeddings counted."""
    blocks = gpt2_shape("your model", d_model, n_layers, n_heads, 0, "—")
    blocks = replace(blocks, d_ff=d_ff, activation="yours", vocab_size=0, n_positions=0)
    if gated:
        return replace(blocks, ffn_kind="swiglu", bias=False, norm="rmsnorm")
    return blocks


COUNTS = ("FFN params / block", "attention params / block", "all blocks",
          "recount with embeddings", "published", "active per token")  # fmt: skip


def styled(table: pd.DataFrame):
    """The table as the page shows it: thousands separators, shares in percent, a dash
    where a model has no number."""
    formats = {
        "FFN share of block": "{:.0%}",
        "T where attention's T² overtakes the FFN": "{:,.0f}",
    }
    return table.style.format({**formats, **dict.fromkeys(COUNTS, "{:,.0f}")}, na_rep="—")


def cost_table(yours: ModelShape) -> pd.DataFrame:
    """One row per model: shape, per-block parameters, totals, published check, crossover."""
    rows = []
    for shape in [*SHAPES.values(), yours]:
        counts = model_params(shape)
        published = shape.published_params or NONE
        rows.append(
            {
                "model": shape.name,
                "d_model": shape.d_model,
                "d_ff": shape.d_ff,
                "layers": shape.n_layers,
                "FFN": shape.ffn_kind
                + (
                    f", {shape.n_experts} experts, top-{shape.top_k}" if shape.n_experts > 1 else ""
                ),
                "FFN params / block": counts["ffn"],
                "attention params / block": counts["attention"],
                "FFN share of block": counts["ffn"] / counts["block"],
                "all blocks": counts["blocks"],
                "recount with embeddings": counts["total"] if shape.published_params else NONE,
                "published": published,
                "published as": shape.published_label,
                "active per token": counts["active"] if shape.n_experts > 1 else NONE,
                "T where attention's T² overtakes the FFN": quadratic_crossover(
                    shape.d_ff, shape.ffn_kind, shape.top_k
                ),
            }
        )
    return pd.DataFrame(rows).set_index("model")


COSTS = ("more", "about the same", "fewer")


def matched_width(d_model: int) -> pd.DataFrame:
    """The plain FFN at 4 × d_model against SwiGLU at 8/3 × d_model (rounded up): matrices,
    weights (no biases) and FLOPs per token."""
    widths = {"plain FFN, 4 × d_model": ("standard", 4 * d_model)}
    widths["SwiGLU, 8/3 × d_model"] = ("swiglu", swiglu_d_ff(d_model))
    return pd.DataFrame(
        {
            name: {
                "d_ff": d_ff,
                "matrices": 2 if kind == "standard" else 3,
                "weights": ffn_params(d_model, d_ff, kind, bias=False),
                "FLOPs per token": ffn_flops(1, d_model, d_ff, kind),
            }
            for name, (kind, d_ff) in widths.items()
        }
    ).T


def gated_section(d_model: int) -> bool:
    """Section 2: does SwiGLU at its matched width cost more than the plain FFN? Then the
    counts, and Llama's real widths against the rule. True once it is answered."""
    table = matched_width(d_model)
    plain, gated = table["FLOPs per token"]
    question = Question(
        f"Predict: at d_model = {d_model}, SwiGLU at d_ff = 8/3 × d_model has three matrices "
        "where the plain FFN at 4 × d_model has two. Per token, does it do more, about the "
        "same or fewer FLOPs in its matrix products?",
        "guess_swiglu_cost",
        COSTS,
        answer=COSTS[1] if abs(gated - plain) <= 0.05 * plain else COSTS[0 if gated > plain else 2],
        why=(
            f"each matrix costs 2 × d_model × d_ff per token: 2 × 2 × {d_model} × "
            f"{4 * d_model} = {plain:,} against 3 × 2 × {d_model} × {table['d_ff'].iloc[1]} "
            f"= {gated:,}. Three matrices a third narrower do about the same work as two: "
            "16 × d_model² either way, up to the rounding of 8/3 × d_model, plus SwiGLU's "
            "SiLU and elementwise product, a few operations per hidden neuron."
        ),
    )
    if not predicted(question, setting=d_model):
        return False
    st.dataframe(table.style.format("{:,.0f}"))
    llama2, llama3 = MODEL_SHAPES["Llama-2-7B"], MODEL_SHAPES["Llama-3-8B"]
    st.caption(
        f"Notice how Llama widens it in practice: Llama 2 7B's d_ff, {llama2.d_ff:,}, is 8/3 "
        f"× {llama2.d_model:,} = {8 * llama2.d_model / 3:,.0f} rounded up to a multiple of "
        f"256 ({swiglu_d_ff(llama2.d_model, 256):,}); Llama 3 8B multiplies 8/3 × d_model by "
        f"1.3 first and rounds up to a multiple of 1,024: {llama3.d_ff:,}, a wider FFN than "
        "the matched one."
    )
    return True


def flops_section(yours: ModelShape, presenter: bool) -> None:
    """Section 4, once the first question is answered (the FFN's line against attention's
    projections gives the share): a model's FLOPs of one block against the sequence length
    T, and its counts at the chosen T."""
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
    show(figures.flops_vs_length(T, series, cross, title, chosen=seq_len), presenter)
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

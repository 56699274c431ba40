"""The Scale & cost page's table: real models and the learner's own, from the core's counts;
and SwiGLU at its matched width against the plain FFN."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from ffn_core import MODEL_SHAPES, ModelShape, ffn_flops, model_params, quadratic_crossover
from ffn_core.costs import ffn_params, gpt2_shape, swiglu_d_ff
from ffn_ui.controls.predict import Question, predicted

NONE = float("nan")  # a missing number: the table shows it as a dash, not "None"


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
    for shape in [*MODEL_SHAPES.values(), yours]:
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


def gated_section(d_model: int) -> None:
    """Section 4: does SwiGLU at its matched width cost more than the plain FFN? Then the
    counts, and Llama's real widths against the rule."""
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
        return
    st.dataframe(table.style.format("{:,.0f}"))
    llama2, llama3 = MODEL_SHAPES["Llama-2-7B"], MODEL_SHAPES["Llama-3-8B"]
    st.caption(
        f"Notice how Llama widens it in practice: Llama 2 7B's d_ff, {llama2.d_ff:,}, is 8/3 "
        f"× {llama2.d_model:,} = {8 * llama2.d_model / 3:,.0f} rounded up to a multiple of "
        f"256 ({swiglu_d_ff(llama2.d_model, 256):,}); Llama 3 8B multiplies 8/3 × d_model by "
        f"1.3 first and rounds up to a multiple of 1,024: {llama3.d_ff:,}, a wider FFN than "
        "the matched one."
    )

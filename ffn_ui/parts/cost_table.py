"""The Scale & cost page's table: real models and the learner's own, from the core's counts."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ffn_core import MODEL_SHAPES, ModelShape, model_params, quadratic_crossover
from ffn_core.costs import gpt2_shape

NONE = float("nan")  # a missing number: the table shows it as a dash, not "None"


def learner_shape(d_model: int, d_ff: int, n_layers: int, n_heads: int) -> ModelShape:
    """The sidebar's sizes as a GPT-2-style block (biases, LayerNorm); no embeddings counted."""
    blocks = gpt2_shape("your model", d_model, n_layers, n_heads, 0, "—")
    return replace(blocks, d_ff=d_ff, activation="yours", vocab_size=0, n_positions=0)


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

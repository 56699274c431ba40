"""Parameter and FLOP counts against published totals and counts of real array shapes."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core import (
    MODEL_SHAPES,
    attention_flops,
    ffn_flops,
    ffn_forward,
    model_params,
    quadratic_crossover,
    swiglu_forward,
)
from ffn_core.lessons.costs import attention_params, ffn_params, moe_flops_per_token, moe_params


def test_the_table_holds_the_models_the_pages_compare():
    assert list(MODEL_SHAPES) == [
        "GPT-2 small",
        "GPT-2 medium",
        "GPT-2 large",
        "GPT-2 XL",
        "BERT-base",
        "Llama-2-7B",
        "Llama-3-8B",
        "Mixtral-8x7B",
    ]


@pytest.mark.parametrize("name", list(MODEL_SHAPES))
def test_recount_equals_the_released_checkpoint(name):
    shape = MODEL_SHAPES[name]
    assert model_params(shape)["total"] == shape.published_params


def test_mixtral_active_parameters_are_the_published_12_9_billion():
    counts = model_params(MODEL_SHAPES["Mixtral-8x7B"])
    assert round(counts["active"] / 1e9, 1) == 12.9
    assert counts["ffn"] > 3.9 * counts["ffn_active"]  # 8 experts stored, 2 used


def test_gpt2_small_block_matches_the_lesson():
    # W1 + b1 and W2 + b2 are about 2.36M each; Q, K, V, O about 2.36M together.
    counts = model_params(MODEL_SHAPES["GPT-2 small"])
    assert counts["ffn"] == 768 * 3072 + 3072 + 3072 * 768 + 768
    assert counts["attention"] == 4 * (768 * 768 + 768)
    assert counts["ffn"] / counts["attention"] == pytest.approx(2.0, rel=1e-3)
    # About two-thirds of the block's weights are the FFN's.
    assert counts["ffn"] / counts["block"] == pytest.approx(2 / 3, abs=0.01)


@pytest.mark.parametrize(("d_model", "d_ff"), [(3, 7), (8, 32), (5, 2)])
def test_ffn_params_count_the_arrays_the_forward_pass_takes(d_model, d_ff):
    arrays = [
        np.zeros((d_model, d_ff)),
        np.zeros(d_ff),
        np.zeros((d_ff, d_model)),
        np.zeros(d_model),
    ]
    ffn_forward(np.zeros(d_model), *arrays)  # the shapes really are an FFN's
    assert ffn_params(d_model, d_ff) == sum(a.size for a in arrays)
    assert ffn_params(d_model, d_ff, bias=False) == sum(a.size for a in arrays[::2])
    swiglu = [np.zeros((d_model, d_ff)), np.zeros((d_model, d_ff)), np.zeros((d_ff, d_model))]
    swiglu_forward(np.zeros(d_model), *swiglu)
    assert ffn_params(d_model, d_ff, "swiglu", bias=False) == sum(a.size for a in swiglu)


def test_swiglu_at_8_3_keeps_parameters_level_with_a_4x_ffn():
    d = 4096
    standard = ffn_params(d, 4 * d, bias=False)
    swiglu = ffn_params(d, 8 * d // 3, "swiglu", bias=False)
    assert swiglu == pytest.approx(standard, rel=1e-3)


def test_grouped_query_attention_shrinks_k_and_v():
    d, kv_dim = 4096, 8 * 128  # Llama-3-8B: 8 key/value heads of width 128
    q_o = 2 * d * d
    k_v = 2 * d * kv_dim
    assert attention_params(d, 32, 8, bias=False) == q_o + k_v
    assert attention_params(d, 32, bias=False) == 4 * d * d
    with pytest.raises(ValueError, match="must divide"):
        attention_params(768, 12, 5)


def test_moe_total_and_active():
    total, active = moe_params(16, 32, n_experts=8, top_k=2, kind="standard", bias=True)
    expert = ffn_params(16, 32)
    assert total == 8 * expert + 16 * 8
    assert active == 2 * expert + 16 * 8
    with pytest.raises(ValueError, match="top_k"):
        moe_params(16, 32, n_experts=4, top_k=5)


def test_flops_count_two_per_multiply_add():
    # x (T, d) @ W1 (d, d_ff) is T * d * d_ff multiply-adds; the FFN has two such products.
    T, d, d_ff = 10, 6, 24
    assert ffn_flops(T, d, d_ff) == 2 * (2 * T * d * d_ff)
    assert ffn_flops(T, d, d_ff, "swiglu") == 3 * (2 * T * d * d_ff)
    parts = attention_flops(T, d, 2)
    assert parts["projections"] == 4 * (2 * T * d * d)
    assert parts["scores"] == parts["mix"] == 2 * T * T * d
    with pytest.raises(ValueError, match="unknown FFN kind"):
        ffn_flops(T, d, d_ff, "glu")


@pytest.mark.parametrize(("kind", "experts"), [("standard", 1), ("swiglu", 1), ("swiglu", 2)])
def test_at_the_crossover_attention_quadratic_terms_equal_the_ffn(kind, experts):
    d, d_ff = 4096, 14336
    T = quadratic_crossover(d_ff, kind, experts)
    parts = attention_flops(T, d, 32)
    assert parts["scores"] + parts["mix"] == pytest.approx(experts * ffn_flops(T, d, d_ff, kind))
    assert quadratic_crossover(3072) == 3072  # GPT-2 small: T = d_ff


def test_hand_counts_for_gpt2_small_llama_and_mixtral():
    gpt2 = model_params(MODEL_SHAPES["GPT-2 small"])
    assert gpt2["ffn"] == 4_722_432 and gpt2["attention"] == 2_362_368
    llama = model_params(MODEL_SHAPES["Llama-2-7B"])
    assert llama["ffn"] == 3 * 4096 * 11008 and llama["attention"] == 4 * 4096 * 4096
    mixtral = model_params(MODEL_SHAPES["Mixtral-8x7B"])
    assert mixtral["ffn"] == 8 * 3 * 4096 * 14336 + 4096 * 8
    assert mixtral["attention"] == 2 * 4096 * 4096 + 2 * 4096 * 1024  # 8 KV heads of 128


def test_the_table_holds_the_published_shapes():
    published = {  # name: (d_model, d_ff, layers, heads, kv heads, experts, top-k)
        "GPT-2 small": (768, 3072, 12, 12, 12, 1, 1),
        "GPT-2 medium": (1024, 4096, 24, 16, 16, 1, 1),
        "GPT-2 large": (1280, 5120, 36, 20, 20, 1, 1),
        "GPT-2 XL": (1600, 6400, 48, 25, 25, 1, 1),
        "BERT-base": (768, 3072, 12, 12, 12, 1, 1),
        "Llama-2-7B": (4096, 11008, 32, 32, 32, 1, 1),
        "Llama-3-8B": (4096, 14336, 32, 32, 8, 1, 1),
        "Mixtral-8x7B": (4096, 14336, 32, 32, 8, 8, 2),
    }
    for name, shape in published.items():
        m = MODEL_SHAPES[name]
        assert (
            m.d_model,
            m.d_ff,
            m.n_layers,
            m.n_heads,
            m.n_kv_heads,
            m.n_experts,
            m.top_k,
        ) == shape


@pytest.mark.parametrize("name", ["GPT-2 small", "Llama-2-7B", "Mixtral-8x7B"])
def test_crossover_matches_a_brute_force_search(name):
    m = MODEL_SHAPES[name]
    T = 1
    while True:
        parts = attention_flops(T, m.d_model, m.n_heads, m.n_kv_heads)
        if parts["scores"] + parts["mix"] >= m.top_k * ffn_flops(T, m.d_model, m.d_ff, m.ffn_kind):
            break
        T += 1
    expected = quadratic_crossover(m.d_ff, m.ffn_kind, m.top_k)
    assert abs(T - expected) <= 1  # the first whole T at or past the crossover


def test_moe_flops_per_token():
    dense, active = moe_flops_per_token(4096, 14336, 8, 2)
    expert = 3 * 2 * 4096 * 14336
    assert dense == 8 * expert + 2 * 4096 * 8 and active == 2 * expert + 2 * 4096 * 8

"""The toy mixture of experts against explicit loops, and the cost functions against
hand counts and brute force."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import loop_ffn

from ffn_core import MODEL_SHAPES, attention_flops, ffn_flops, model_params, quadratic_crossover
from ffn_core.costs import moe_flops_per_token
from ffn_core.init import init_weights
from ffn_core.moe import expert_load, load_balance_loss, moe_forward, softmax


def setup_moe(rng, d_model=3, d_ff=5, E=4):
    experts = [init_weights(d_model, d_ff, "normal", seed=s) for s in range(E)]
    W_router = rng.standard_normal((d_model, E))
    return experts, W_router


@pytest.mark.parametrize("k", [1, 2, 4])
def test_moe_equals_a_loop_over_tokens_and_experts(rng, k):
    experts, W_router = setup_moe(rng)
    x = rng.standard_normal((2, 5, 3))
    b_router = rng.standard_normal(4)
    out, cache = moe_forward(x, W_router, experts, k, "gelu", b_router)
    assert out.shape == x.shape
    for n, token in enumerate(x.reshape(-1, 3)):
        scores = token @ W_router + b_router
        probs = np.exp(scores) / np.exp(scores).sum()
        top = sorted(range(4), key=lambda e: -probs[e])[:k]
        weights = probs[top] / probs[top].sum()
        expected = sum(
            w * loop_ffn(token, **experts[e], activation="gelu")
            for w, e in zip(weights, top, strict=True)
        )
        np.testing.assert_allclose(out.reshape(-1, 3)[n], expected, rtol=1e-10, atol=1e-12)
        assert cache.chosen[n].tolist() == top


def test_gates_sum_to_one_over_the_chosen_experts(rng):
    experts, W_router = setup_moe(rng, E=6)
    _, cache = moe_forward(rng.standard_normal((9, 3)), W_router, experts, 3)
    np.testing.assert_allclose(cache.gates.sum(axis=1), 1.0)
    assert expert_load(cache.chosen, 6).sum() == 9 * 3


def test_all_experts_with_a_uniform_router_average_them(rng):
    experts, _ = setup_moe(rng)
    x = rng.standard_normal((5, 3))
    out, cache = moe_forward(x, np.zeros((3, 4)), experts, 4)
    np.testing.assert_allclose(cache.gates, 0.25)
    mean = np.mean([loop_ffn(x, **w) for w in experts], axis=0)
    np.testing.assert_allclose(out, mean, rtol=1e-12, atol=1e-12)


def test_load_balance_loss_is_one_when_balanced_and_e_when_collapsed():
    uniform = np.full((8, 4), 0.25)
    balanced = np.array([[0], [1], [2], [3]] * 2)
    assert load_balance_loss(uniform, balanced) == pytest.approx(1.0)
    one_hot = np.tile([1.0, 0, 0, 0], (8, 1))
    assert load_balance_loss(one_hot, np.zeros((8, 1), int)) == pytest.approx(4.0)


def test_a_router_bias_can_starve_an_expert(rng):
    experts, W_router = setup_moe(rng)
    x = rng.standard_normal((20, 3))
    _, cache = moe_forward(x, W_router, experts, 2, b_router=np.array([-20.0, 0, 0, 0]))
    assert expert_load(cache.chosen, 4)[0] == 0


def test_moe_rejects_bad_inputs(rng):
    experts, W_router = setup_moe(rng)
    with pytest.raises(ValueError, match="k must be between 1"):
        moe_forward(np.ones(3), W_router, experts, 5)
    with pytest.raises(ValueError, match="W_router has shape"):
        moe_forward(np.ones(3), W_router[:, :3], experts, 1)
    np.testing.assert_allclose(softmax(np.array([1000.0, 1000.0])), [0.5, 0.5])


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

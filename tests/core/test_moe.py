"""The mixture-of-experts layer against a loop over tokens and experts, its gates, router
bias and balance loss."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import loop_ffn

from ffn_core.init import init_weights
from ffn_core.lessons.moe import expert_load, load_balance_loss, moe_forward, softmax


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

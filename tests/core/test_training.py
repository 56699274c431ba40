"""Training on toy tasks: the loss gradient, determinism, and what a bend buys."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_grad, random_ffn

from ffn_core import ffn_backward, ffn_forward, gradient_check
from ffn_core.analysis import collapse_stack, run_stack
from ffn_core.lessons.costs import ffn_params, swiglu_d_ff
from ffn_core.lessons.training import (
    TASKS,
    loss_and_grad,
    make_task,
    probability_grid,
    score,
    train_ffn,
)


@pytest.mark.parametrize("kind", ["classify", "regress"])
def test_loss_gradient_matches_finite_differences(rng, kind):
    out = rng.standard_normal((7, 2))
    y = rng.integers(0, 2, 7) if kind == "classify" else rng.standard_normal(7)
    _, dout = loss_and_grad(out, y, kind)
    np.testing.assert_allclose(
        dout, numerical_grad(lambda: loss_and_grad(out, y, kind)[0], out), rtol=1e-6, atol=1e-9
    )


def test_training_gradients_match_finite_differences_through_the_ffn(rng):
    X, y = make_task("XOR", n=12, seed=3)
    W1, b1, W2, b2 = random_ffn(rng, 2, 5)

    def loss():
        return loss_and_grad(ffn_forward(X, W1, b1, W2, b2, "gelu")[0], y, "classify")[0]

    out, cache = ffn_forward(X, W1, b1, W2, b2, "gelu")
    _, dW1, db1, dW2, db2 = ffn_backward(loss_and_grad(out, y, "classify")[1], cache)
    for grad, param in ((dW1, W1), (db1, b1), (dW2, W2), (db2, b2)):
        np.testing.assert_allclose(grad, numerical_grad(loss, param), rtol=1e-5, atol=1e-8)
    # and the core's own checker agrees on the same shapes
    assert max(gradient_check(X, W1, b1, W2, b2, "gelu").values()) < 1e-6


@pytest.mark.parametrize("task", list(TASKS))
def test_tasks_have_the_promised_shapes(task):
    X, y = make_task(task, n=50, seed=1)
    assert X.shape == ((50, 2) if TASKS[task] == "classify" else (50, 1))
    assert y.shape == (50,)
    np.testing.assert_array_equal(make_task(task, 50, 1)[0], X)  # seeded


def test_loss_decreases_and_training_is_deterministic():
    X, y = make_task("spiral", seed=0)
    first = train_ffn(X, y, "classify", 16, "relu", 200, seed=5)
    again = train_ffn(X, y, "classify", 16, "relu", 200, seed=5)
    assert first.losses[-1] < 0.5 * first.losses[0]
    np.testing.assert_array_equal(first.losses, again.losses)
    np.testing.assert_array_equal(first.weights["W1"], again.weights["W1"])


def test_a_linear_ffn_cannot_fit_xor_but_a_relu_one_can():
    X, y = make_task("XOR", seed=0)
    linear = train_ffn(X, y, "classify", 16, "identity", 400)
    bent = train_ffn(X, y, "classify", 16, "relu", 400)
    assert linear.scores.max() <= 0.75
    assert bent.scores[-1] >= 0.95
    out, _ = ffn_forward(X, **bent.weights, activation="relu")
    assert score(out, y, "classify") >= 0.95  # the returned weights are the trained ones


def test_progress_is_reported():
    X, y = make_task("line", n=20)
    seen = []
    train_ffn(X, y, "regress", 4, "relu", 120, progress=seen.append)
    assert seen == [0, 50, 100]


def test_a_stack_of_linear_blocks_is_one_matrix(rng):
    blocks = [random_ffn(rng, 3, 7) for _ in range(4)]
    W, b = collapse_stack(blocks)
    x = rng.standard_normal((5, 3))
    y = x
    for block in blocks:
        y = ffn_forward(y, *block, activation="identity")[0]
    np.testing.assert_allclose(y, x @ W + b, rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="at least one block"):
        collapse_stack([])


def test_swiglu_matched_width():
    assert swiglu_d_ff(4096, 256) == 11008  # Llama-2-7B's published d_ff
    for d in (6, 64, 768):
        h = swiglu_d_ff(d)
        swiglu, standard = ffn_params(d, h, "swiglu", False), ffn_params(d, 4 * d, bias=False)
        assert abs(swiglu - standard) <= 3 * d  # within one neuron's three weights


def test_probability_grid_is_the_softmax_of_class_scores_point_by_point(rng):
    W1, b1, W2, b2 = random_ffn(rng, 2, 7)  # 2 inputs, 2 class scores
    weights = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}
    grid, prob = probability_grid(weights, "relu", extent=1.5, n=5)
    assert grid.tolist() == pytest.approx([-1.5, -0.75, 0.0, 0.75, 1.5])
    for i in range(5):  # row i holds y = grid[i]; column j holds x = grid[j]
        for j in range(5):
            h = np.maximum(np.array([grid[j], grid[i]]) @ W1 + b1, 0)
            s0, s1 = h @ W2 + b2
            assert prob[i, j] == pytest.approx(1 / (1 + np.exp(s0 - s1)), rel=1e-12)


def test_run_stack_applies_blocks_in_order_and_matches_the_collapsed_stack(rng):
    blocks = [random_ffn(rng, 3, d_ff) for d_ff in (5, 2, 7)]
    x = rng.standard_normal((4, 3))
    y = x
    for W1, b1, W2, b2 in blocks:  # one block at a time, written out
        y = np.maximum(y @ W1 + b1, 0) @ W2 + b2
    np.testing.assert_allclose(run_stack(x, blocks, "relu"), y, rtol=1e-12)
    W, b = collapse_stack(blocks)
    np.testing.assert_allclose(run_stack(x, blocks, "identity"), x @ W + b, rtol=1e-10)
    assert not np.allclose(run_stack(x, blocks[::-1], "identity"), x @ W + b)  # order matters

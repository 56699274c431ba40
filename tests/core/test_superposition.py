"""Toy models of superposition: the gradient, the geometry helpers on hand-built weights,
and the two results Elhage et al. (2022) state, from the default training."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import numerical_grad

from ffn_core.lessons.superposition import (
    dimensions_per_feature,
    feature_dimensionality,
    feature_norms,
    firing_by_feature,
    interference,
    loss_and_grads,
    polysemantic,
    sample_features,
    train_neuron_model,
    train_toy_model,
)


def polygon(k: int) -> np.ndarray:
    """k unit vectors evenly around the circle: (2, k)."""
    angles = 2 * np.pi * np.arange(k) / k
    return np.stack([np.cos(angles), np.sin(angles)])


def test_the_gradients_match_centred_differences():
    rng = np.random.default_rng(0)
    x = sample_features(rng, 16, 7, 0.4)
    W, b = rng.normal(size=(3, 7)), rng.normal(size=7) * 0.3  # m 3, n 7: no square to hide in
    importance = 0.8 ** np.arange(7)
    _, dW, db = loss_and_grads(x, W, b, importance)
    assert np.allclose(dW, numerical_grad(lambda: loss_and_grads(x, W, b, importance)[0], W))
    assert np.allclose(db, numerical_grad(lambda: loss_and_grads(x, W, b, importance)[0], b))


def test_features_are_zero_with_probability_one_minus_p_else_uniform():
    x = sample_features(np.random.default_rng(1), 20_000, 5, 0.05)
    assert np.mean(x > 0) == pytest.approx(0.05, abs=0.005)
    assert x.max() <= 1.0 and np.mean(x[x > 0]) == pytest.approx(0.5, abs=0.02)


def test_the_geometry_of_a_pentagon_and_an_antipodal_pair():
    pentagon = polygon(5)
    assert dimensions_per_feature(pentagon) == pytest.approx(2 / 5)  # m / ‖W‖_F² = 2 / 5
    assert np.allclose(feature_dimensionality(pentagon), 2 / 5)
    assert np.allclose(feature_norms(pentagon), 1.0)
    # the others' squared overlaps: 2 cos²(72°) + 2 cos²(144°) = 3/2
    assert np.allclose(interference(pentagon), 1.5)
    pair = np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 0.0]])  # two features share one axis, one dropped
    assert np.allclose(feature_dimensionality(pair), [0.5, 0.5, 0.0])
    assert dimensions_per_feature(pair) == pytest.approx(1.0)


def test_dimensions_per_feature_is_m_over_the_squared_frobenius_norm():
    W = np.random.default_rng(2).normal(size=(4, 9))
    assert dimensions_per_feature(W) == pytest.approx(4 / np.trace(W.T @ W))


def kept_and_dropped(seed: int) -> bool:
    model = train_toy_model(5, 2, 1.0, 0.7 ** np.arange(5), seed=seed)
    norms = feature_norms(model.W)
    return bool(np.all(norms[:2] > 0.9) and np.all(norms[2:] < 0.1))


def pentagon_kept(seed: int) -> bool:
    model = train_toy_model(5, 2, 0.05, np.ones(5), seed=seed)
    norms = feature_norms(model.W)
    angles = np.sort(np.degrees(np.arctan2(model.W[1], model.W[0])) % 360)
    gaps = np.diff(np.append(angles, angles[0] + 360))
    return bool(np.all((norms > 0.9) & (norms < 1.3)) and np.all(np.abs(gaps - 72) < 8))


def test_dense_features_keep_the_two_most_important():
    assert sum(kept_and_dropped(seed) for seed in range(3)) >= 2


def test_sparse_features_all_fit_as_a_regular_pentagon():
    assert sum(pentagon_kept(seed) for seed in range(3)) >= 2


def test_a_neuron_that_fires_for_two_features_is_polysemantic():
    W1 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.05], [1.0, 0.0, 0.8]])
    b1 = np.zeros(3)  # neuron 1 reads feature 1; 0 reads features 0 and 3; 2 mostly feature 3
    firing = firing_by_feature(W1, b1)
    assert firing.shape == (4, 3)
    assert polysemantic(firing).tolist() == [True, False, False]
    assert polysemantic(firing, threshold=0.01).tolist() == [True, False, True]
    resting = firing_by_feature(np.zeros((4, 2)), np.array([0.5, -0.5]))
    assert np.all(resting == 0) and not polysemantic(resting).any()  # on always, or never


def test_a_sparse_neuron_model_learns_and_has_polysemantic_neurons():
    model = train_neuron_model(8, 3, 0.05, np.ones(8), steps=1500)
    silent = 8 * 0.05 / 3  # the loss of always answering 0: n · p · E[u²], u uniform in [0, 1]
    assert model.losses[-200:].mean() < 0.5 * silent
    assert polysemantic(firing_by_feature(model.W1, model.b1)).any()


def test_phase_of_hand_built_weights():
    from ffn_core.lessons.superposition import DEDICATED, NOT_KEPT, SUPERPOSED, phase_of

    assert phase_of(np.array([[1.0, 0.0]])) == NOT_KEPT
    assert phase_of(np.array([[0.1, 1.0]])) == DEDICATED
    assert phase_of(np.array([[1.0, -1.0]])) == SUPERPOSED


def test_the_phase_diagram_s_corners_are_the_paper_s():
    """Dense: the less important feature is dropped, the more important one takes the
    dimension alone. Sparse: both share it."""
    from ffn_core.lessons.superposition import DEDICATED, NOT_KEPT, SUPERPOSED, phase_diagram

    phases = phase_diagram(np.array([0.0, 0.99]), np.array([0.5, 2.0]))
    assert phases.tolist() == [[NOT_KEPT, SUPERPOSED], [DEDICATED, SUPERPOSED]]


def test_stacked_models_get_each_model_s_own_loss_and_gradients(rng):
    """Three 6 -> 2 models stacked: the loss is the sum of theirs, the gradients theirs."""
    x = rng.random((3, 16, 6))
    W, b = rng.normal(size=(3, 2, 6)), rng.normal(size=(3, 1, 6))
    importance = rng.random((3, 1, 6))
    loss, dW, db = loss_and_grads(x, W, b, importance)
    one_by_one = [loss_and_grads(x[c], W[c], b[c, 0], importance[c, 0]) for c in range(3)]
    assert loss == pytest.approx(sum(each[0] for each in one_by_one), rel=1e-12)
    for c, (_, dW_c, db_c) in enumerate(one_by_one):
        np.testing.assert_allclose(dW[c], dW_c, rtol=1e-12)
        np.testing.assert_allclose(db[c, 0], db_c, rtol=1e-12)


def test_the_phase_diagram_trains_each_cell_as_if_alone():
    """Stacking changes no cell: each cell's phase is the one it gets trained alone."""
    from ffn_core.lessons.superposition import phase_diagram

    sparsities, importances = np.array([0.0, 0.6, 0.95]), np.array([0.3, 1.5])
    phases = phase_diagram(sparsities, importances, steps=400)
    for row, r in enumerate(importances):
        for col, sparsity in enumerate(sparsities):
            alone = phase_diagram(np.array([sparsity]), np.array([r]), steps=400)
            assert phases[row, col] == alone[0, 0], (r, sparsity)


def test_a_phase_diagram_cell_is_the_toy_model_of_its_settings(monkeypatch):
    """A cell's trained W is train_toy_model's, up to rounding (the stacked products add
    in another order). Away from the 0.5 threshold the phase is the same."""
    import ffn_core.lessons.superposition as superposition

    trained = []
    phase_of = superposition.phase_of
    monkeypatch.setattr(superposition, "phase_of", lambda W: trained.append(W) or phase_of(W))
    superposition.phase_diagram(np.array([0.0, 0.95]), np.array([0.3]), steps=400)
    for W, sparsity in zip(trained, [0.0, 0.95], strict=True):
        alone = train_toy_model(2, 1, 1.0 - sparsity, np.array([1.0, 0.3]), steps=400)
        np.testing.assert_allclose(W, alone.W, atol=0.02)
        assert phase_of(W) == phase_of(alone.W)

"""Two sessions side by side never see each other's settings, edits or uploads, and what a
process-wide cache shares cannot be written."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    KEY_VALUE,
    NEURONS,
    click,
    decode,
    expected_default_model,
    heatmap,
    open_page,
    relu,
)

from ffn_core.init import init_weights
from ffn_core.weights_io import weights_to_npz
from ffn_ui.page.files import apply_upload
from ffn_ui.shared_arrays import random_weights

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_uploads_and_edits_stay_in_their_own_session():
    alice = open_page(NEURONS, {"mask": "false", "guess_fire": "about half"})
    bob = open_page(NEURONS, {"mask": "false", "guess_fire": "about half"})  # the grid's values
    apply_upload(alice.session_state, "a.npz", weights_to_npz(init_weights(4, 16, "normal", 99)))
    alice.run()
    carol = click(open_page(KEY_VALUE), "Lesson")  # hand-edited weights in a third session
    bob.run()
    x, w = expected_default_model()
    np.testing.assert_allclose(decode(heatmap(bob)["z"]), relu(x @ w["W1"] + w["b1"]), atol=1e-6)
    assert "uploaded_weights" not in bob.session_state
    assert "hand_weights" not in bob.session_state
    assert alice.sidebar.selectbox(key="init").value == "uploaded"
    assert carol.session_state["d_model"] == 2 and bob.session_state["d_model"] == 4


def test_shared_cached_weights_are_read_only():
    weights = random_weights(4, 16, "normal", 0)
    with pytest.raises(ValueError, match="read-only"):
        weights["W1"][0, 0] = 1.0


def test_trained_results_shared_between_sessions_are_read_only():
    from ffn_ui.page.training_cache import trained

    result = trained("XOR", "relu", 4, 20, seed=0)
    assert trained("XOR", "relu", 4, 20, seed=0) is result  # reused, not retrained
    for arr in (*result.weights.values(), result.losses, result.scores):
        assert not arr.flags.writeable

"""Where the pages' inputs come from: words to fixed vectors, the initial weights, and the
lesson's example."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core import ffn_forward
from ffn_core.init import init_weights, lesson_example
from ffn_core.tokens import embed_words, split_words, word_vector


def test_words_are_lower_case_and_capped():
    assert split_words("The cat, the MAT!") == ["the", "cat", "the", "mat"]
    assert len(split_words("a " * 100)) == 64


def test_the_same_word_always_gets_the_same_vector():
    x = embed_words(["the", "cat", "the"], 8)
    assert x.shape == (3, 8)
    np.testing.assert_array_equal(x[0], x[2])
    assert not np.allclose(x[0], x[1])
    # Fixed by the word alone: a hash, not Python's per-process hash().
    np.testing.assert_array_equal(word_vector("cat", 8), x[1])
    # A wider d_model extends the vector.
    np.testing.assert_array_equal(word_vector("cat", 12)[:8], x[1])
    assert embed_words([], 5).shape == (0, 5)


@pytest.mark.parametrize("scheme", ["normal", "xavier"])
def test_init_shapes_and_scales(scheme):
    w = init_weights(200, 600, scheme, seed=4)
    assert w["W1"].shape == (200, 600) and w["W2"].shape == (600, 200)
    assert not w["b1"].any() and not w["b2"].any()
    if scheme == "normal":
        assert w["W1"].std() == pytest.approx(1 / np.sqrt(200), rel=0.02)
        assert w["W2"].std() == pytest.approx(1 / np.sqrt(600), rel=0.02)
    else:
        bound = np.sqrt(6 / 800)
        assert np.abs(w["W1"]).max() <= bound
        assert w["W1"].std() == pytest.approx(bound / np.sqrt(3), rel=0.02)
    np.testing.assert_array_equal(init_weights(200, 600, scheme, 4)["W1"], w["W1"])
    with pytest.raises(ValueError, match="unknown scheme"):
        init_weights(2, 2, "orthogonal")


def test_lesson_example_gives_0_2():
    x, w = lesson_example()
    np.testing.assert_array_equal(ffn_forward(x, **w)[0], [[0.0, 2.0]])

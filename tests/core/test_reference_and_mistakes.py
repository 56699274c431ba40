"""The by-hand version, and the two mistakes the Traps page demonstrates."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core import (
    ffn_forward,
    ffn_forward_flat,
    ffn_forward_flat_one_stride,
)
from ffn_core.lessons.mistakes import ffn_forward_flat_relu_after_w2


def flat_case(rng, D, H):
    """Random x and flat weights in the W @ x convention: W1 is H x D, W2 is D x H."""
    return (
        rng.standard_normal(D).tolist(),
        rng.standard_normal(H * D).tolist(),
        rng.standard_normal(H).tolist(),
        rng.standard_normal(D * H).tolist(),
        rng.standard_normal(D).tolist(),
    )


def test_by_hand_matches_numpy_in_the_other_convention(rng):
    D, H = 3, 5
    x, W1, b1, W2, b2 = flat_case(rng, D, H)
    # Reshape the flat lists as the W @ x matrices, then transpose for x @ W.
    W1m, W2m = np.array(W1).reshape(H, D), np.array(W2).reshape(D, H)
    out, _ = ffn_forward(np.array(x), W1m.T, np.array(b1), W2m.T, np.array(b2))
    np.testing.assert_allclose(ffn_forward_flat(x, W1, b1, W2, b2), out, rtol=1e-12)


@pytest.mark.parametrize(
    ("lengths", "match"),
    [
        ((3, 14, 5, 15, 3), "W1 has 14 numbers, expected 15"),
        ((3, 15, 5, 16, 3), "W2 has 16 numbers, expected 15"),
        ((3, 15, 5, 15, 5), "b2 has 5 numbers, expected 3"),
        ((3, 9, 3, 15, 3), "W2 has 15 numbers, expected 9"),  # b1 says H = 3
    ],
)
def test_inconsistent_lengths_raise_value_error(lengths, match):
    x, W1, b1, W2, b2 = ([0.5] * n for n in lengths)
    with pytest.raises(ValueError, match=match):
        ffn_forward_flat(x, W1, b1, W2, b2)


def test_one_stride_mistake_hides_on_square_shapes(rng):
    # This is why the trap exists: a square toy test cannot tell the two apart.
    for _ in range(5):
        case = flat_case(rng, 4, 4)
        np.testing.assert_allclose(
            ffn_forward_flat_one_stride(*case), ffn_forward_flat(*case), rtol=1e-12
        )


def test_one_stride_mistake_gives_a_wrong_answer_when_d_ff_is_wider(rng):
    case = flat_case(rng, 3, 5)  # H > D: every index stays inside W2, so it runs
    assert not np.allclose(ffn_forward_flat_one_stride(*case), ffn_forward_flat(*case))


def test_one_stride_mistake_crashes_when_d_ff_is_narrower(rng):
    case = flat_case(rng, 5, 3)  # H < D: the last rows run off the end of W2
    with pytest.raises(IndexError):
        ffn_forward_flat_one_stride(*case)


def test_relu_after_w2_can_never_push_a_coordinate_down():
    # Lesson example with W2 = -I: the correct output is negative, so x + FFN(x) moves down.
    x, W1, b1, W2, b2 = [1, -1], [1, 1, 1, -1], [0, 0], [-1, 0, 0, -1], [0, 0]
    assert ffn_forward_flat(x, W1, b1, W2, b2) == [0.0, -2.0]
    assert ffn_forward_flat_relu_after_w2(x, W1, b1, W2, b2) == [0.0, 0.0]


def test_relu_after_w2_agrees_where_the_output_is_positive(rng):
    case = flat_case(rng, 4, 6)
    right, clamped = ffn_forward_flat(*case), ffn_forward_flat_relu_after_w2(*case)
    for r, c in zip(right, clamped, strict=True):
        assert c == max(r, 0.0)

"""Numbers as text: the link form is exact and checks its size."""

from __future__ import annotations

import numpy as np
import pytest

from ffn_core.typed_numbers import decode_arrays, encode_arrays


def test_url_form_is_exact_and_checks_its_size():
    arrays = [np.array([[0.1, -2.5], [1e-7, 1 / 3]]), np.array([0.0, -0.0, 7.0])]
    text = encode_arrays(arrays)
    assert "%" not in text and " " not in text
    back = decode_arrays(text, [(2, 2), (3,)])
    for a, b in zip(arrays, back, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="expected 2 arrays"):
        decode_arrays("1_2", [(2,), (1,)])
    with pytest.raises(ValueError, match="expected 3 numbers"):
        decode_arrays("1_2", [(3,)])
    with pytest.raises(ValueError, match="could not be read"):
        decode_arrays("1_x", [(2,)])
    with pytest.raises(ValueError, match="NaN"):
        decode_arrays("1_nan", [(2,)])

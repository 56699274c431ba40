"""Toy tokens, starting weights, weight files and the URL's number form."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest
from helpers import npz_bytes

from ffn_core import ffn_forward, neuron_order
from ffn_core.init import init_weights, lesson_example
from ffn_core.tokens import embed_words, split_words, word_vector
from ffn_core.typed_numbers import decode_arrays, encode_arrays
from ffn_core.weights_io import MAX_FILE_BYTES, weights_from_file, weights_to_json, weights_to_npz


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


def test_neuron_order_sorts_by_firing_rate_then_mean():
    h = np.array([[0.0, 2.0, 1.0, 0.5], [0.0, 0.0, 3.0, 0.2]])
    # rates: 0, .5, 1, 1; means: 0, 1, 2, .35
    assert neuron_order(h).tolist() == [2, 3, 1, 0]


def weights_of(d_model=3, d_ff=5):
    return init_weights(d_model, d_ff, "normal", seed=1)


def test_npz_and_json_round_trip():
    w = weights_of()
    for data, name in ((weights_to_npz(w), "w.npz"), (weights_to_json(w), "w.json")):
        back = weights_from_file(data, name)
        for key in w:
            np.testing.assert_array_equal(back[key], w[key])


def test_a_pickled_npz_is_refused_and_never_unpickled():
    class Boom:
        def __reduce__(self):  # would run on unpickling
            return (print, ("unpickled!",))

    buffer = io.BytesIO()
    np.savez(
        buffer,
        W1=np.array([Boom()], dtype=object),
        b1=np.zeros(2),
        W2=np.zeros((2, 1)),
        b2=np.zeros(1),
    )
    with pytest.raises(ValueError, match="pickled objects are refused"):
        weights_from_file(buffer.getvalue(), "evil.npz")
    with pytest.raises(ValueError, match="not an NPZ"):
        weights_from_file(pickle.dumps({"W1": 1}), "plain_pickle.npz")


def test_a_zip_bomb_is_refused_before_it_is_unpacked():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("W1.npy", b"\0" * (80 * 2**20))  # 80 MiB of zeros, tiny compressed
    data = buffer.getvalue()
    assert len(data) < 2**20
    with pytest.raises(ValueError, match=r"would unpack to 80\.0 MiB"):
        weights_from_file(data, "bomb.npz")


BAD_FILES = [
    ("wrong shape", lambda w: npz_bytes(**{**w, "W2": w["W2"].T}), "w.npz", r"W2 has shape"),
    ("missing b2", lambda w: npz_bytes(W1=w["W1"], b1=w["b1"], W2=w["W2"]), "w.npz", "missing b2"),
    ("NaN", lambda w: npz_bytes(**{**w, "b1": np.full(5, np.nan)}), "w.npz", "NaN or infinite"),
    (
        "text values",
        lambda w: json.dumps(
            {**{k: v.tolist() for k, v in w.items()}, "b2": ["a", "b", "c"]}
        ).encode(),
        "w.json",
        "b2 must hold numbers",
    ),
    (
        "ragged",
        lambda w: json.dumps(
            {**{k: v.tolist() for k, v in w.items()}, "W1": [[1, 2], [3]]}
        ).encode(),
        "w.json",
        "rectangular",
    ),
    ("not json", lambda w: b"{not json", "w.json", "not valid JSON"),
    ("a list", lambda w: b"[1, 2]", "w.json", "an object with keys"),
    ("oversized", lambda w: b"0" * (MAX_FILE_BYTES + 1), "w.npz", "the limit is 8 MB"),
    (
        "too wide",
        lambda w: npz_bytes(
            W1=np.zeros((2, 5000)), b1=np.zeros(5000), W2=np.zeros((5000, 2)), b2=np.zeros(2)
        ),
        "w.npz",
        "d_ff up to 4096",
    ),
    ("other type", lambda w: b"W1,b1", "w.csv", "upload a .npz or .json"),
    ("extra array", lambda w: npz_bytes(**w, W3=np.zeros(2)), "w.npz", "unexpected arrays W3"),
    ("complex", lambda w: npz_bytes(**{**w, "b2": w["b2"] + 1j}), "w.npz", "b2 must hold numbers"),
    ("inf", lambda w: npz_bytes(**{**w, "W1": w["W1"] * np.inf}), "w.npz", "NaN or infinite"),
    ("bool", lambda w: npz_bytes(**{**w, "b1": w["b1"] > 0}), "w.npz", "b1 must hold numbers"),
]


@pytest.mark.parametrize(("case", "make", "name", "match"), BAD_FILES)
def test_bad_files_raise_a_clear_value_error(case, make, name, match):
    with pytest.raises(ValueError, match=match):
        weights_from_file(make(weights_of()), name)


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

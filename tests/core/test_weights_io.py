"""Weight files in and out: NPZ and JSON round trips, and every bad file refused with a clear
reason, never unpickled."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest
from helpers import npz_bytes

from ffn_core import weights_io
from ffn_core.init import init_weights
from ffn_core.weights_io import (
    MAX_FILE_BYTES,
    member_count,
    weights_from_file,
    weights_to_json,
    weights_to_npz,
)


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


def many_members(count: int, comment: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for k in range(count):
            archive.writestr(f"a{k}.npy", b"")
        archive.comment = comment
    return buffer.getvalue()


@pytest.mark.parametrize("count", [0, 1, 4, 9, 300])
@pytest.mark.parametrize("comment", [b"", b"a note", b"PK" * 500])
def test_the_member_count_read_from_the_last_record_is_zipfiles(count, comment):
    data = many_members(count, comment)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert member_count(data) == len(archive.infolist()) == count


def test_thousands_of_tiny_members_are_refused_before_the_directory_is_read(monkeypatch):
    """30,000 empty members in a 3 MB file: counted from the directory's last record, and
    refused in one short sentence, without zipfile reading 30,000 entries."""
    data = many_members(30_000)
    assert len(data) < MAX_FILE_BYTES

    def no_directory(*args, **kwargs):
        raise AssertionError("the zip directory was read")

    monkeypatch.setattr(weights_io.zipfile, "ZipFile", no_directory)
    with pytest.raises(ValueError, match=r"it holds 30,000 arrays; a file holds W1, b1, W2") as e:
        weights_from_file(data, "many.npz")
    assert len(str(e.value)) < 120


def test_a_json_of_thousands_of_keys_is_refused_in_one_short_sentence():
    w = {name: a.tolist() for name, a in weights_of().items()}
    data = json.dumps({**w, **{f"x{k}": 0 for k in range(50_000)}}).encode()
    with pytest.raises(
        ValueError,
        match=r"unexpected arrays x0, x1, x10, x100, x1000 and "
        r"49,995 more; a file holds only W1",
    ) as e:
        weights_from_file(data, "keys.json")
    assert len(str(e.value)) < 120


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

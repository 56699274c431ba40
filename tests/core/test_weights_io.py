"""Weight files in and out: NPZ and JSON round trips, and every bad file refused with a clear
reason, never unpickled."""

from __future__ import annotations

import io
import json
import pickle
import re
import zipfile

import numpy as np
import pytest
from forged_zips import FORGED, READ, WEIGHTS, lying_count
from helpers import npz_bytes

from ffn_core import weights_io
from ffn_core.init import init_weights
from ffn_core.weights_io import (
    MAX_DIRECTORY_BYTES,
    MAX_FILE_BYTES,
    MAX_MEMBERS,
    check_zip_directory,
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


@pytest.mark.parametrize("count", [0, 1, 4, 8])
@pytest.mark.parametrize("comment", [b"", b"a note", b"PK" * 500])
def test_the_member_count_walked_in_the_directory_is_zipfiles(count, comment):
    data = many_members(count, comment)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert check_zip_directory(data) == len(archive.infolist()) == count


@pytest.mark.parametrize(
    ("count", "match"),
    [(9, r"^it holds 9 arrays; a file holds W1"), (300, r"^its zip directory is 16,\d+ bytes")],
)
def test_more_members_than_a_file_holds_are_refused_by_the_directory(count, match):
    with pytest.raises(ValueError, match=match):
        check_zip_directory(many_members(count))


def test_the_directory_bound_holds_8_entries_of_long_names_and_extras():
    """512 bytes an entry: a name of 300 characters and 100 bytes of extra fields fit."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for k in range(MAX_MEMBERS):
            info = zipfile.ZipInfo(f"{k}{'x' * 299}.npy")
            info.extra = b"\0" * 100
            archive.writestr(info, b"")
    assert check_zip_directory(buffer.getvalue()) == MAX_MEMBERS == MAX_DIRECTORY_BYTES // 512


def test_thousands_of_tiny_members_are_refused_before_the_directory_is_read(monkeypatch):
    """30,000 empty members in a 3 MB file: refused by the directory's size, in one short
    sentence, without zipfile reading 30,000 entries."""
    data = many_members(30_000)
    assert len(data) < MAX_FILE_BYTES

    def no_directory(*args, **kwargs):
        raise AssertionError("the zip directory was read")

    monkeypatch.setattr(weights_io.zipfile, "ZipFile", no_directory)
    with pytest.raises(ValueError, match=r"its zip directory is 1,668,890 bytes, larger") as e:
        weights_from_file(data, "many.npz")
    assert len(str(e.value)) < 120


def test_the_issues_forged_npz_is_refused_before_zipfile_is_built(monkeypatch):
    """Issue 45: 30,067 members, the end record saying 4. The count it claims passed; zipfile
    then read every entry (5-6 s of CPU). The directory's own size refuses it now."""
    data = lying_count()
    assert len(data) < MAX_FILE_BYTES

    def no_directory(*args, **kwargs):
        raise AssertionError("the zip directory was read")

    monkeypatch.setattr(weights_io.zipfile, "ZipFile", no_directory)
    with pytest.raises(ValueError, match=r"^its zip directory is 1,672,642 bytes, larger") as e:
        weights_from_file(data, "forged.npz")
    assert len(str(e.value)) < 120


@pytest.fixture
def entries_parsed(monkeypatch) -> list[str]:
    """The names of the directory entries zipfile parses: it builds a ZipInfo for each."""
    parsed = []

    class Counted(zipfile.ZipInfo):
        def __init__(self, filename="NoName", *args, **kwargs):
            parsed.append(filename)
            super().__init__(filename, *args, **kwargs)

    monkeypatch.setattr(zipfile, "ZipInfo", Counted)
    return parsed


# Each reading of the file (the sizes, the headers, the arrays) parses the directory once.
MAX_ENTRIES_PARSED = 3 * MAX_MEMBERS


@pytest.mark.parametrize(("case", "make", "match"), FORGED, ids=[c for c, _, _ in FORGED])
def test_a_forged_npz_is_refused_with_its_reason_having_parsed_at_most_8_entries(
    case, make, match, entries_parsed
):
    data = make()  # zipfile writes the forged file: its own entries are not counted
    entries_parsed.clear()
    assert len(data) < MAX_FILE_BYTES
    with pytest.raises(ValueError) as e:
        weights_from_file(data, "forged.npz")
    assert len(entries_parsed) <= MAX_ENTRIES_PARSED, f"{len(entries_parsed):,} entries parsed"
    assert re.search(match, str(e.value)), str(e.value)
    assert len(str(e.value)) < 140


@pytest.mark.parametrize(("case", "make"), READ, ids=[c for c, _ in READ])
def test_an_odd_but_honest_npz_is_read_parsing_only_its_entries(case, make, entries_parsed):
    data = make()
    with np.load(io.BytesIO(data)) as npz:
        expected = {name: npz[name] for name in npz.files}
    entries_parsed.clear()
    weights = weights_from_file(data, "odd.npz")
    assert set(weights) == set(expected)
    for name, array in expected.items():
        np.testing.assert_array_equal(weights[name], array)
    assert len(entries_parsed) <= 3 * len(expected)


def test_numpys_own_files_at_the_largest_model_keep_a_plain_end_record():
    """np.savez writes its members' local headers with ZIP64 fields, but the end record
    stays a plain one, so refusing ZIP64 end records never refuses a real weights file."""
    big = init_weights(256, 512, "normal", seed=0)
    for save in (np.savez, np.savez_compressed):
        buffer = io.BytesIO()
        save(buffer, **big)
        data = buffer.getvalue()
        assert check_zip_directory(data) == 4
        assert b"PK\x06\x07" not in data[-42:]
        np.testing.assert_array_equal(weights_from_file(data, "big.npz")["W1"], big["W1"])


def test_a_json_key_repeated_100000_times_is_read_as_its_last_value():
    w = {name: a.tolist() for name, a in WEIGHTS.items()}
    data = ("{" + '"W1": 0, ' * 100_000 + json.dumps(w)[1:]).encode()
    back = weights_from_file(data, "repeated.json")
    np.testing.assert_array_equal(back["W1"], WEIGHTS["W1"])


def test_a_json_nested_to_the_limit_is_read_and_one_deeper_is_refused():
    w = {name: a.tolist() for name, a in WEIGHTS.items()}
    weights_from_file(json.dumps(w).encode(), "w.json")  # {"W1": [[...]]}: 3 levels
    deeper = {**w, "W1": [[[x] for x in row] for row in w["W1"]]}
    with pytest.raises(ValueError, match="nests deeper than the 3 levels"):
        weights_from_file(json.dumps(deeper).encode(), "w.json")


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
    # Numbers JSON can write that no weight is: the old parser refused more than 4,300
    # digits with a message about Python, and read 4,299 as exact integers, slowly.
    ("5,000 digits", lambda w: json_with(w, "9" * 5000), "w.json", "b2 holds NaN or infinite"),
    (
        "8 MB of 4,299-digit integers",
        lambda w: json_with(w, ", ".join(["9" * 4299] * 1800)),
        "w.json",
        "b2 holds NaN or infinite",
    ),
    ("a 30-digit integer", lambda w: json_with(w, "9" * 30), "w.json", r"beyond ±1,000,000"),
    ("1e999", lambda w: json_with(w, "1e999"), "w.json", "b2 holds NaN or infinite"),
    ("-Infinity", lambda w: json_with(w, "-Infinity"), "w.json", "b2 holds NaN or infinite"),
    ("NaN literal", lambda w: json_with(w, "NaN"), "w.json", "b2 holds NaN or infinite"),
    (
        "30,000 keys",
        lambda w: json.dumps({**json_of(w), **{f"x{k}": 0 for k in range(30_000)}}).encode(),
        "w.json",
        r"unexpected arrays x0, x1, x10, x100, x1000 and 29,995 more",
    ),
    *[(case, lambda w, make=make: make(), "w.npz", match) for case, make, match in FORGED],
]


def json_of(w: dict[str, np.ndarray]) -> dict[str, list]:
    return {name: array.tolist() for name, array in w.items()}


def json_with(w: dict[str, np.ndarray], numbers: str) -> bytes:
    """A weights file whose b2 starts with `numbers`, written as they are."""
    text = json.dumps(json_of(w))
    return text.replace('"b2": [', f'"b2": [{numbers}, ', 1).encode()


@pytest.mark.parametrize(("case", "make", "name", "match"), BAD_FILES)
def test_bad_files_raise_a_clear_value_error(case, make, name, match):
    with pytest.raises(ValueError, match=match):
        weights_from_file(make(weights_of()), name)

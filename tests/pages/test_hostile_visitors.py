"""What a hostile visitor once sent, each replayed: a clear message, never a traceback, and
bounded memory and CPU. The recipes that need a real server or browser are in
test_hostile_server.py and test_browser_hostile.py."""

from __future__ import annotations

import io
import json
import threading
import time
import tomllib
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from forged_zips import lying_count
from helpers import ALL_PAGES, ANSWERS, MEMORY, NEURONS, edit_table, open_page, warnings_text

from ffn_core.init import init_weights
from ffn_core.lessons.training import TrainResult
from ffn_core.typed_numbers import encode_arrays
from ffn_core.weights_io import (
    MAX_FILE_BYTES,
    MAX_UPLOAD_WEIGHTS,
    weights_from_file,
    weights_to_npz,
)
from ffn_ui.page.files import apply_upload

pytestmark = pytest.mark.usefixtures("fresh_caches")
ROOT = Path(__file__).resolve().parents[2]  # the repository


def upload(name: str, data: bytes) -> tuple[str, str]:
    """(kind, message) of uploading `data` as `name`; the model must stay as it was."""
    state = {"d_model": 4, "d_ff": 16, "init": "normal"}
    apply_upload(state, name, data)
    assert (state["d_model"], state["d_ff"], state["init"]) == (4, 16, "normal")
    assert "uploaded_weights" not in state
    return state["upload_result"]


def npz_claiming(shape: tuple[int, ...]) -> bytes:
    """A tiny NPZ whose W1.npy header claims `shape`, followed by 8 bytes of data."""
    member = io.BytesIO()
    header = {"descr": "<f8", "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(member, header)
    member.write(b"\0" * 8)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("W1.npy", member.getvalue())
    return buffer.getvalue()


def test_an_npz_header_claiming_a_trillion_numbers_is_refused_before_reading():
    data = npz_claiming((10**12,))
    assert len(data) < 400
    kind, message = upload("huge.npz", data)
    assert kind == "error"
    assert "array W1 claims shape (1000000000000,), more than an upload holds" in message


def test_an_npz_whose_end_record_lies_is_refused_before_its_directory_is_read(monkeypatch):
    """Issue 45: 30,067 members, the end record saying 4, took 6.1 s of CPU through the
    uploader. The page shows why it was refused; zipfile never opens it."""
    data = lying_count()
    assert len(data) < MAX_FILE_BYTES

    def no_directory(*args, **kwargs):
        raise AssertionError("the zip directory was read")

    at = open_page(NEURONS)
    with monkeypatch.context() as patched:
        patched.setattr(zipfile, "ZipFile", no_directory)
        apply_upload(at.session_state, "forged.npz", data)
    at.run()
    assert not at.exception
    assert any(
        "`forged.npz` was not loaded: its zip directory is 1,672,642 bytes, larger than a "
        "weights file's (at most 4,096 for 8 arrays)." in e.value
        for e in at.error
    )
    assert at.sidebar.selectbox(key="init").value == "normal"


def test_a_json_number_of_5000_digits_is_refused_as_infinite_not_by_python():
    """Python refuses to read an integer of more than 4,300 digits, in a message that names
    its own settings; the weights are floats, so the number is one, and too large."""
    data = b'{"W1": [[' + b"9" * 5000 + b']], "b1": [1], "W2": [[1]], "b2": [1]}'
    kind, message = upload("digits.json", data)
    assert kind == "error" and message.endswith("W1 holds NaN or infinite values.")


def test_a_json_nested_100000_deep_is_refused_with_a_message():
    data = b"[" * 100_000 + b"]" * 100_000
    assert len(data) == 200_000
    kind, message = upload("deep.json", data)
    assert kind == "error" and "nests deeper than the 3 levels" in message


def test_a_json_of_many_tiny_lists_is_refused_before_it_is_parsed():
    # 8 MB of one-element lists: the old parser turned 49 MB of these into 1.6 GB.
    data = b'{"W1": [' + b"[1]," * 1_999_990 + b"[1]]}"
    assert len(data) <= MAX_FILE_BYTES
    tracemalloc.start()
    with pytest.raises(ValueError, match="lists about 1,999,990 values"):
        weights_from_file(data, "w.json")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2 * len(data)  # one pass over the bytes, no Python object per value


def test_a_file_over_the_limit_is_refused_by_its_size():
    with pytest.raises(ValueError, match="the limit is 8 MB"):
        weights_from_file(b"1" * (MAX_FILE_BYTES + 1), "w.json")


def test_the_browser_and_the_app_refuse_the_same_files():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 10**6 == MAX_FILE_BYTES


def test_an_upload_larger_than_a_classroom_allows_is_refused_with_its_reason():
    big = init_weights(300, 512, "normal", 0)  # 307,200 weights in W1 and W2
    assert MAX_UPLOAD_WEIGHTS < 2 * 300 * 512
    kind, message = upload("big.npz", weights_to_npz(big))
    assert kind == "error" and "an upload holds at most 262,144" in message


@pytest.mark.parametrize(
    "name",
    [
        "[Log in again](https://evil.example/login).npz",
        "![t](https://evil.example/t.png).json",
    ],
)
def test_an_upload_name_is_shown_as_literal_text(name):
    kind, message = upload(name, b"not a weights file")
    assert kind == "error"
    assert message.startswith(f"`{name}` was not loaded")  # a code span: no link, no image


def test_names_from_inside_a_file_are_never_repeated_unless_plain():
    weights = {k: v.tolist() for k, v in init_weights(3, 5, "normal", 0).items()}
    hostile = {**weights, "[x](https://evil.example)": [1], "W3": [2]}
    with pytest.raises(ValueError) as refused:
        weights_from_file(json.dumps(hostile).encode(), "w.json")
    assert "evil" not in str(refused.value)
    assert "W3" in str(refused.value) and "one with an unusual name" in str(refused.value)


def test_an_error_no_check_foresaw_becomes_a_message(monkeypatch):
    import ffn_ui.page.files

    def broken(data, filename):
        raise MemoryError("simulated")

    monkeypatch.setattr(ffn_ui.page.files, "weights_from_file", broken)
    kind, message = upload("w.npz", b"")
    assert (
        kind == "error" and message == "`w.npz` was not loaded: it could not be read (MemoryError)."
    )


# Very large finite values: 1e308 passed every check once, and crashed the Neurons histogram.
HUGE = 1e308
HUGE_W = encode_arrays([np.full((2, 2), HUGE), np.zeros(2), np.eye(2), np.zeros(2)])
HUGE_LINKS = {
    "weights": {"init": "hand-edited", "d_model": "2", "d_ff": "2", "w": HUGE_W},
    "input": {"tokens": "edited", "d_model": "2", "T": "1", "x": encode_arrays([[[HUGE, 1.0]]])},
}


@pytest.mark.parametrize("page", ALL_PAGES, ids=[p or "home" for p in ALL_PAGES])
@pytest.mark.parametrize("what", list(HUGE_LINKS))
def test_a_link_with_1e308_gets_a_note_on_every_page(page, what):
    at = open_page(page, {**HUGE_LINKS[what], **ANSWERS.get(page, {})})
    assert not at.exception
    assert "values beyond ±1,000,000" in warnings_text(at)


def test_an_upload_with_1e308_is_refused():
    weights = init_weights(2, 3, "normal", 0)
    weights["W2"][0, 0] = HUGE
    kind, message = upload("huge.npz", weights_to_npz(weights))
    assert kind == "error" and "W2 holds values beyond ±1,000,000" in message


def test_a_table_cell_of_1e308_keeps_its_previous_value():
    at = open_page(NEURONS, {"init": "hand-edited", "d_model": "2", "d_ff": "2"})
    version = at.session_state["hand_weights_version"]
    edit_table(at, f"edit_W1_{version}", {0: {"n1": HUGE}})
    at.run()
    assert not at.exception
    assert "W1: 1 cell(s) were not a number within ±1,000,000" in warnings_text(at)
    assert abs(at.session_state["hand_weights"]["W1"][0, 0]) < 1e6


def test_the_training_store_serves_16_threads_without_an_error(monkeypatch):
    """One result per setting, also while other threads evict entries (80 kept, 120 asked)."""
    import ffn_ui.page.training_cache as store

    trainings = []

    def stub(X, y, kind, d_ff, activation, steps, seed=0, progress=None):
        trainings.append((kind, d_ff, activation, steps, seed))
        weights = init_weights(X.shape[1], d_ff, "normal", seed)
        return TrainResult({k: v.copy() for k, v in weights.items()}, np.zeros(2), np.zeros(2))

    monkeypatch.setattr(store, "train_ffn", stub)
    errors = []
    rng = np.random.default_rng(0)
    settings = [("XOR", "relu", 2 + i % 60, 5, i // 60) for i in range(120)]

    def worker(seed: int) -> None:
        local = np.random.default_rng(seed)
        try:
            for _ in range(300):
                setting = settings[int(local.integers(len(settings)))]
                result = store.trained(*setting)
                assert result.weights["W1"].shape == (2, setting[2])
        except Exception as err:  # a test collecting every thread's failure
            errors.append(repr(err))

    threads = [threading.Thread(target=worker, args=(int(s),)) for s in rng.integers(1e6, size=16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(trainings) >= len(settings)  # every setting trained, evicted ones again


def test_a_memory_lab_table_that_cannot_be_learned_stops_within_its_budget():
    """Each subject with eight objects: no store recalls it, so training runs to its budget."""
    from ffn_core.lessons.memory import VOCAB

    rows = [{"subject": s, "object": o} for s in VOCAB[:8] for o in VOCAB[8:16]]
    at = open_page(MEMORY, {"d_model": "1024", "mem_dff": "256", "capacity": "true"})
    edit_table(at, "facts_countries → capitals", {}, added=rows, deleted=list(range(12)))
    started = time.process_time()
    at.run(timeout=120)
    spent = time.process_time() - started
    assert not at.exception
    assert "Training stopped after" in warnings_text(at)
    assert "The store learns at most 60 facts" in warnings_text(at)
    assert spent < 10, f"one edit cost {spent:.1f} s of CPU"


def test_thousands_of_rows_are_cut_to_60():
    from ffn_core.lessons.memory import VOCAB, usable_facts

    pairs = [(s, o) for s in VOCAB for o in VOCAB]
    assert len(pairs) == 2916
    facts, left_out = usable_facts(pairs, 60)
    assert facts == pairs[:60] and left_out == []

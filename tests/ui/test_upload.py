"""Uploading weights: bad files leave the model untouched with a message; good ones switch."""

from __future__ import annotations

import numpy as np
import pytest
from forged_zips import FORGED
from helpers import NEURONS, decode, heatmap, npz_bytes, open_page, relu

from ffn_core.init import init_weights
from ffn_core.tokens import embed_words
from ffn_core.weights_io import weights_to_npz
from ffn_ui.page.files import apply_upload

pytestmark = pytest.mark.usefixtures("fresh_caches")


GOOD = init_weights(3, 7, "normal", seed=9)
BAD = {
    "pickled": npz_bytes(
        W1=np.array([object()], dtype=object), b1=GOOD["b1"], W2=GOOD["W2"], b2=GOOD["b2"]
    ),
    "wrong shape": npz_bytes(**{**GOOD, "W1": GOOD["W1"].T}),
    "NaN": npz_bytes(**{**GOOD, "b2": np.array([0.0, np.nan, 1.0])}),
    "non-numeric JSON": b'{"W1": [["a"]], "b1": [1], "W2": [[1]], "b2": [1]}',
    "oversized": b"\0" * (8_000_000 + 1),
    "JSON of a 5,000-digit number": b'{"W1": [[%b]], "b1": [1], "W2": [[1]], "b2": [1]}'
    % (b"9" * 5000),
}
# Zips whose records lie (tests/forged_zips.py), built as each test runs: several hold
# 30,067 members. Each must be refused by a check, never by the page's catch-all.
FORGED_NPZ = {case: make for case, make, _ in FORGED}


@pytest.mark.parametrize("case", [*BAD, *FORGED_NPZ])
def test_a_bad_upload_leaves_the_weights_untouched_and_says_why(case):
    state = {"uploaded_weights": "previous", "d_model": 4, "d_ff": 16, "init": "normal"}
    name = "w.json" if "JSON" in case else "w.npz"
    apply_upload(state, name, BAD[case] if case in BAD else FORGED_NPZ[case]())
    assert state["uploaded_weights"] == "previous"
    assert (state["d_model"], state["d_ff"], state["init"]) == (4, 16, "normal")
    kind, message = state["upload_result"]
    assert kind == "error" and message.startswith(f"`{name}` was not loaded: ")
    assert "it could not be read" not in message


def test_a_good_upload_switches_the_model_to_it():
    at = open_page(NEURONS, {"mask": "false", "guess_fire": "about half"})  # values shown
    apply_upload(at.session_state, "mine.npz", weights_to_npz(GOOD))
    at.run()
    assert not at.exception
    assert "Loaded `mine.npz`: d_model 3, d_ff 7." in [s.value for s in at.success]
    assert at.sidebar.selectbox(key="init").value == "uploaded"
    at.radio(key="guess_fire").set_value("about half").run()  # a new model asks again
    x = embed_words(["the", "cat", "sat", "on", "the", "mat"], 3)
    np.testing.assert_allclose(
        decode(heatmap(at)["z"]), relu(x @ GOOD["W1"] + GOOD["b1"]), rtol=1e-6, atol=1e-6
    )
    # Small uploaded weights travel in the link like hand-edited ones.
    assert at.query_params["w"].count("~") == 3


def test_a_failed_upload_shows_its_message_on_the_page():
    at = open_page(NEURONS)
    apply_upload(at.session_state, "bad.npz", BAD["NaN"])
    at.run()
    assert not at.exception
    assert any("`bad.npz` was not loaded: b2 holds NaN" in e.value for e in at.error)
    assert at.sidebar.selectbox(key="init").value == "normal"


def test_choosing_uploaded_without_a_file_explains_and_uses_random_weights():
    at = open_page(NEURONS, {"init": "uploaded"})
    assert not at.exception
    assert any("No uploaded weights" in i.value for i in at.info)

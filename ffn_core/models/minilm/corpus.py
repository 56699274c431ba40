"""Which tokens make a real neuron fire hardest, over a small corpus written for the project.

A neuron's key is a direction in d_model space; the tokens whose FFN input points along
it most are the best plain-language description of what the key detects.

Running the model over the corpus takes seconds, so the result ships with the app
(data/minilm_top_tokens.npz), made by `python -m ffn_core.models.minilm.corpus` and checked
against a fresh run by the tests. It is used only if it was made from these same weights and this
same corpus; otherwise the index is computed again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ffn_core.models.minilm.model import MiniLM, load_minilm

CORPUS_PATH = Path(__file__).parent / "data" / "corpus.txt"
INDEX_PATH = Path(__file__).parent / "data" / "minilm_top_tokens.npz"


def load_corpus(path: Path = CORPUS_PATH) -> list[str]:
    """The corpus's sentences: one per line, skipping blank lines and # comments."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


@dataclass(frozen=True)
class TopTokens:
    """For every layer and neuron, the k corpus tokens it fired on hardest, strongest first."""

    sentences: list[str]
    tokens: list[list[str]]  # each sentence's WordPiece tokens
    sentence: np.ndarray  # (L, d_ff, k): index into sentences
    position: np.ndarray  # (L, d_ff, k): index into that sentence's tokens
    value: np.ndarray  # (L, d_ff, k): the activation there

    def examples(self, layer: int, neuron: int) -> list[tuple[str, list[str], int, float]]:
        """(sentence, its tokens, the token's position, activation), strongest first."""
        return [
            (self.sentences[s], self.tokens[s], int(p), float(v))
            for s, p, v in zip(
                self.sentence[layer, neuron],
                self.position[layer, neuron],
                self.value[layer, neuron],
                strict=True,
            )
        ]


def top_activating_tokens(
    model: MiniLM, sentences: list[str], k: int = 10, chunk: int = 8
) -> TopTokens:
    """Run every sentence once and keep each neuron's k largest activations.

    [CLS] and [SEP] are left out: they occur in every sentence and say nothing about
    what a neuron detects. Sentences are merged into the running top k a chunk at a
    time, so memory stays small whatever the corpus size.
    """
    L, H = model.n_layers, model.d_ff
    value = np.full((L, H, 0), -np.inf, dtype=np.float32)
    sentence = np.zeros((L, H, 0), dtype=np.int32)
    position = np.zeros((L, H, 0), dtype=np.int32)
    all_tokens = []
    for first in range(0, len(sentences), chunk):
        acts, where = [], []
        for s, text in enumerate(sentences[first : first + chunk], start=first):
            trace = model.run(text)
            all_tokens.append(trace.tokens)
            acts.append(trace.ffn_act[:, 1:-1])  # (L, T, H): the words between [CLS] and [SEP]
            where += [(s, p) for p in range(1, len(trace.tokens) - 1)]
        if not where:
            continue
        new = np.concatenate(acts, axis=1).transpose(0, 2, 1)  # (L, H, N)
        s_new, p_new = (np.asarray(col, dtype=np.int32) for col in zip(*where, strict=True))
        value = np.concatenate([value, new], axis=2)  # (L, H, k + N)
        sentence = np.concatenate([sentence, np.broadcast_to(s_new, new.shape)], axis=2)
        position = np.concatenate([position, np.broadcast_to(p_new, new.shape)], axis=2)
        if value.shape[2] > k:
            keep = np.argpartition(-value, k - 1, axis=2)[:, :, :k]  # (L, H, k), unordered
            value, sentence, position = (take(arr, keep) for arr in (value, sentence, position))
    order = np.argsort(-value, axis=2, kind="stable")  # strongest first
    value, sentence, position = (take(arr, order) for arr in (value, sentence, position))
    return TopTokens(sentences, all_tokens, sentence, position, value)


def take(arr: np.ndarray, index: np.ndarray) -> np.ndarray:
    return np.take_along_axis(arr, index, axis=2)


def fingerprint(model: MiniLM, sentences: list[str]) -> str:
    """What an index was made from: a hash of the corpus's text and of every weight."""
    digest = hashlib.blake2b("\n".join(sentences).encode(), digest_size=16)
    for arr in model.arrays():
        digest.update(np.ascontiguousarray(arr).tobytes())
    return digest.hexdigest()


def save_index(top: TopTokens, model: MiniLM, path: Path = INDEX_PATH) -> None:
    np.savez_compressed(
        path,
        fingerprint=np.array(fingerprint(model, top.sentences)),
        sentence=top.sentence.astype(np.int16),
        position=top.position.astype(np.int16),
        value=top.value,
    )


def load_index(model: MiniLM, sentences: list[str], path: Path = INDEX_PATH) -> TopTokens | None:
    """The shipped index, if it was made from this model and these sentences; else None."""
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as saved:
        if str(saved["fingerprint"]) != fingerprint(model, sentences):
            return None
        arrays = {name: saved[name] for name in ("sentence", "position", "value")}
    tokens = [model.tokenize(text)[0] for text in sentences]
    return TopTokens(
        sentences,
        tokens,
        arrays["sentence"].astype(np.int32),
        arrays["position"].astype(np.int32),
        arrays["value"],
    )


if __name__ == "__main__":  # python -m ffn_core.models.minilm.corpus: make the shipped index again
    minilm = load_minilm()
    corpus = load_corpus()
    save_index(top_activating_tokens(minilm, corpus), minilm)
    print(f"wrote {INDEX_PATH} for {len(corpus)} sentences")

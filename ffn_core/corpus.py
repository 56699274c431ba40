"""Which tokens make a real neuron fire hardest, over a small corpus written for the project.

A neuron's key is a direction in d_model space; the tokens whose FFN input points along
it most are the best plain-language description of what the key detects.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ffn_core.pretrained import MiniLM

CORPUS_PATH = Path(__file__).parent / "data" / "corpus.txt"


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

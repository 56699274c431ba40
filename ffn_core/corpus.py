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


def top_activating_tokens(model: MiniLM, sentences: list[str], k: int = 10) -> TopTokens:
    """Run every sentence once and keep each neuron's k largest activations.

    [CLS] and [SEP] are left out: they occur in every sentence and say nothing about
    what a neuron detects. Memory stays at k entries per neuron, whatever the corpus size.
    """
    L, H = model.n_layers, model.d_ff
    value = np.full((L, H, k), -np.inf, dtype=np.float32)
    sentence = np.zeros((L, H, k), dtype=np.int32)
    position = np.zeros((L, H, k), dtype=np.int32)
    all_tokens = []
    for s, text in enumerate(sentences):
        trace = model.run(text)
        all_tokens.append(trace.tokens)
        T = len(trace.tokens) - 2  # the words between [CLS] and [SEP]
        if T == 0:
            continue
        acts = trace.ffn_act[:, 1:-1].transpose(0, 2, 1)  # (L, H, T)
        value = np.concatenate([value, acts], axis=2)  # (L, H, k + T)
        sentence = np.concatenate([sentence, np.full((L, H, T), s, dtype=np.int32)], axis=2)
        here = np.broadcast_to(np.arange(1, T + 1, dtype=np.int32), (L, H, T))
        position = np.concatenate([position, here], axis=2)
        keep = np.argsort(-value, axis=2, kind="stable")[:, :, :k]  # (L, H, k)
        value, sentence, position = (
            np.take_along_axis(arr, keep, axis=2) for arr in (value, sentence, position)
        )
    return TopTokens(sentences, all_tokens, sentence, position, value)

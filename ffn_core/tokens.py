"""A toy tokenizer and embedding: words in, one fixed vector per word out.

Each word's vector is drawn from a random generator seeded by a hash of the word, so the
same word always gets the same vector, in every session and on every machine, and a
longer d_model extends the vector without changing its first coordinates.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

MAX_TOKENS = 64


def split_words(text: str, max_tokens: int = MAX_TOKENS) -> list[str]:
    """Lower-cased words (letters, digits, apostrophes), at most max_tokens of them."""
    return re.findall(r"[a-z0-9']+", text.lower())[:max_tokens]


def word_vector(word: str, d_model: int) -> np.ndarray:
    """The word's toy embedding: d_model standard-normal numbers, fixed by the word."""
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little")).standard_normal(d_model)


def embed_words(words: list[str], d_model: int) -> np.ndarray:
    """Stack the words' vectors: shape (T, d_model), T = len(words)."""
    return np.array([word_vector(w, d_model) for w in words]).reshape(len(words), d_model)

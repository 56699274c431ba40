"""SmolLM2's tokenizer, rebuilt from the vocabulary and merges inside its GGUF file.

Byte-level BPE, as in GPT-2: text becomes bytes, each byte a printable stand-in (a space
is "Ġ"), and the merges glue neighbours into longer tokens. Before merging, the text is cut
into pieces: every digit alone (llama.cpp's "smollm" rule, so 2024 is four tokens), then
GPT-2's split into words, numbers, punctuation and spaces. Control tokens such as
<|im_start|> are matched whole.
"""

from __future__ import annotations

from typing import Any

from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

CONTROL = 3  # GGUF token type of special tokens such as <|im_start|>


def build_tokenizer(meta: dict[str, Any]) -> Tokenizer:
    """A `tokenizers.Tokenizer` from the GGUF metadata `tokenizer.ggml.*`."""
    tokens = meta["tokenizer.ggml.tokens"]
    merges = [tuple(pair.split(" ", 1)) for pair in meta["tokenizer.ggml.merges"]]
    vocab = {token: i for i, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    kinds = meta["tokenizer.ggml.token_type"]
    special = [t for t, kind in zip(tokens, kinds, strict=True) if kind == CONTROL]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special])
    return tokenizer

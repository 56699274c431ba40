"""A real next-token predictor: SmolLM2-135M-Instruct, run by this project's own NumPy code.

SmolLM2-135M is a Llama-style decoder (Apache-2.0): 30 blocks, d_model 576, and in every
block a SwiGLU FFN with d_ff 1536, run by the same `swiglu_forward` as the Activations page.

    lm = load_smollm()                       # finds the GGUF file, reads it once
    trace = lm.run("The capital of France is")
    trace.ffn_act[8]                         # (T, 1536): silu(gate) * up in block 9
    lm.top_next(trace)                       # [(7042, 0.77), ...]: " Paris" first

Weights are dequantised to float32 once per machine (`decoded`: a copy on disk that
later processes map read-only) and kept in the x @ W convention as transposed views of the
file's (out, in) arrays, so nothing is copied twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ffn_core.models.edits import Edit, RankOneEdit, apply_edits
from ffn_core.models.limits import MAX_TOKENS
from ffn_core.models.smollm.decoded import decoded_arrays
from ffn_core.models.smollm.files import find_smollm_file
from ffn_core.models.smollm.gguf import read_gguf
from ffn_core.models.smollm.llama import (
    AttentionWeights,
    Block,
    KeysValues,
    Text,
    block_forward,
    rms_norm,
    rotary_angles,
)
from ffn_core.models.smollm.tokenizer import Tokenizer, build_tokenizer
from ffn_core.models.sources import SMOLLM
from ffn_core.softmax import softmax

END_IDS = (0, 2)  # <|endoftext|> and <|im_end|> end a continuation


@dataclass(frozen=True)
class Settings:
    n_layers: int  # blocks
    d_model: int  # width of the residual stream
    d_ff: int  # hidden neurons per FFN
    n_heads: int  # query heads
    n_kv_heads: int  # key/value heads, shared by groups of query heads
    rope_base: float  # rotary base: pair i turns by position * base^(-2i / head_size)
    eps: float  # RMSNorm's epsilon
    vocab_size: int

    @property
    def head_size(self) -> int:
        return self.d_model // self.n_heads


@dataclass(frozen=True)
class Trace:
    """Everything one pass over a text computed; L blocks, T tokens."""

    token_ids: np.ndarray  # (T,)
    tokens: list[str]  # each token's own piece of text
    hidden_states: np.ndarray  # (L + 1, T, C): embeddings, then the stream after each block
    attn_out: np.ndarray  # (L, T, C): what each block's attention added
    ffn_gate: np.ndarray  # (L, T, d_ff): normed input @ W_gate
    ffn_up: np.ndarray  # (L, T, d_ff): normed input @ W_up
    ffn_act: np.ndarray  # (L, T, d_ff): silu(gate) * up after any edits, the input of W_down
    ffn_out: np.ndarray  # (L, T, C): what each block's FFN added
    logits: np.ndarray  # (T, vocab): the next-token scores after each position
    past: list[KeysValues] | None = None  # each block's keys and values, for a continuation


class LanguageModel:
    """SmolLM2's weights, its tokenizer and the forward pass. Shared read-only."""

    def __init__(
        self,
        settings: Settings,
        tokenizer: Tokenizer,
        embed: np.ndarray,
        blocks: list[Block],
        final_norm: np.ndarray,
    ) -> None:
        self.settings, self.tokenizer = settings, tokenizer
        self.embed = embed  # (vocab, C): row t is token t's input vector and its output key
        self.blocks, self.final_norm = blocks, final_norm

    # --- text -----------------------------------------------------------------------
    def encode(self, text: str) -> np.ndarray:
        """Token ids (T,), at most MAX_TOKENS: the last ones, nearest the prediction."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        return np.asarray(ids[-MAX_TOKENS:], dtype=np.int64)

    def piece(self, token_id: int) -> str:
        return self.tokenizer.decode([int(token_id)], skip_special_tokens=False)

    # --- the forward pass -----------------------------------------------------------
    def _blocks(
        self,
        ids: np.ndarray,
        start: int,
        past: list[KeysValues] | None,
        edits: Iterable[Edit],
        fact: RankOneEdit | None,
        record: bool,
        upto: int | None = None,
    ) -> tuple[np.ndarray, list[KeysValues], dict[str, list[np.ndarray]]]:
        """Run the tokens `ids` (at positions start, start+1, ...) through the blocks
        (the first `upto` of them; None: every block)."""
        s = self.settings
        by_layer: dict[int, list[Edit]] = {}
        for edit in edits:
            by_layer.setdefault(edit.layer, []).append(edit)
        positions = np.arange(start, start + len(ids))
        angles = rotary_angles(positions, s.head_size, s.rope_base)  # (T, hs/2)
        x = self.embed[ids]  # (T, C)
        kept: dict[str, list[np.ndarray]] = {
            k: [] for k in ("x", "attn", "gate", "up", "act", "ffn")
        }
        new_past = []
        for layer, block in enumerate(self.blocks[:upto]):
            if record:
                kept["x"].append(x)
            text = Text(slice(None), angles, None if past is None else past[layer])
            attn, ffn, cache = block_forward(x, block, s.eps, [text])
            new_past.append(cache.attention[0].seen)
            edits_here = by_layer.get(layer, [])
            act, ffn = apply_edits(cache.ffn.a, ffn, block.W_down, edits_here, positions)
            if fact is not None and fact.layer == layer:
                ffn = ffn + np.outer(act @ fact.u, fact.v)  # (T, C)
            x = cache.mid + ffn
            if record:
                for name, value in (("attn", attn), ("gate", cache.ffn.gate), ("up", cache.ffn.up)):
                    kept[name].append(value)
                kept["act"].append(act)
                kept["ffn"].append(ffn)
        kept["x"].append(x)
        return x, new_past, kept

    def states(
        self, ids: np.ndarray
    ) -> tuple[list[np.ndarray], list[np.ndarray], list[KeysValues]]:
        """One pass without logits: the stream before each block and after the last
        (L + 1 arrays (T, C)), each block's h (L arrays (T, d_ff)), and each block's keys
        and values, as later tokens read them."""
        _, seen, kept = self._blocks(ids, 0, None, (), None, record=True)
        return kept["x"], kept["act"], seen

    def keys(self, ids: np.ndarray, layer: int) -> np.ndarray:
        """(T, d_ff): block `layer`'s h for the tokens `ids`, running no block after it."""
        return self._blocks(ids, 0, None, (), None, record=True, upto=layer + 1)[2]["act"][layer]

    def unembed(self, x: np.ndarray) -> np.ndarray:
        """Final RMSNorm, then the tied embedding as output keys: (..., C) -> (..., vocab)."""
        return rms_norm(x, self.final_norm, self.settings.eps) @ self.embed.T

    def run(self, text: str, edits: Iterable[Edit] = (), fact: RankOneEdit | None = None) -> Trace:
        """One pass over `text`, keeping every block's attention and FFN numbers.

        Raises ValueError for text with no tokens.
        """
        ids = self.encode(text)
        if ids.size == 0:
            raise ValueError("the text has no tokens")
        return self.run_ids(ids, edits, fact)

    def run_ids(
        self, ids: np.ndarray, edits: Iterable[Edit] = (), fact: RankOneEdit | None = None
    ) -> Trace:
        x, past, kept = self._blocks(ids, 0, None, tuple(edits), fact, record=True)
        return Trace(
            token_ids=ids,
            tokens=[self.piece(i) for i in ids],
            hidden_states=np.stack(kept["x"]),
            attn_out=np.stack(kept["attn"]),
            ffn_gate=np.stack(kept["gate"]),
            ffn_up=np.stack(kept["up"]),
            ffn_act=np.stack(kept["act"]),
            ffn_out=np.stack(kept["ffn"]),
            logits=self.unembed(x),
            past=past,
        )

    def generate_ids(
        self,
        ids: np.ndarray,
        n: int,
        edits: Iterable[Edit] = (),
        fact: RankOneEdit | None = None,
        use_cache: bool = True,
    ) -> list[int]:
        """Greedy continuation: up to n token ids, stopping after an end token.

        With the key/value cache each new token runs alone through the blocks, reading
        the keys and values kept from earlier tokens; without it the whole sequence is
        run again at every step (slower, the same numbers).
        """
        edits = tuple(edits)
        x, past, _ = self._blocks(ids, 0, None, edits, fact, record=False)
        return self._continue(ids, self.unembed(x[-1]), past, n, edits, fact, use_cache)

    def continue_trace(self, trace: Trace, n: int) -> list[int]:
        """`generate_ids` after a trace of `run` without edits, reusing its last logits and
        its keys and values instead of running the text again."""
        return self._continue(trace.token_ids, trace.logits[-1], trace.past, n, (), None, True)

    def _continue(self, ids, logits, past, n, edits, fact, use_cache) -> list[int]:
        """Greedy steps from the last token's `logits` (vocab,) and the keys and values
        `past` of the tokens `ids`."""
        out: list[int] = []
        for _ in range(n):
            next_id = int(np.argmax(logits))
            out.append(next_id)
            if next_id in END_IDS or len(out) == n:
                break
            if use_cache:
                start = len(ids) + len(out) - 1
                x, past, _ = self._blocks(np.array([next_id]), start, past, edits, fact, False)
            else:
                whole = np.concatenate([ids, out])
                x, past, _ = self._blocks(whole, 0, None, edits, fact, record=False)
            logits = self.unembed(x[-1])
        return out

    def generate(
        self, text: str, n: int, edits: Iterable[Edit] = (), fact: RankOneEdit | None = None
    ) -> str:
        """The greedy continuation of `text`, up to n tokens, as text."""
        ids = self.encode(text)
        if ids.size == 0:
            raise ValueError("the text has no tokens")
        return self.tokenizer.decode(
            self.generate_ids(ids, n, edits, fact), skip_special_tokens=False
        )

    # --- reading the numbers --------------------------------------------------------
    def top_next(self, trace: Trace, k: int = 10, position: int = -1) -> list[tuple[int, float]]:
        """The k likeliest next tokens after `position`: (token id, probability) pairs."""
        p = softmax(trace.logits[position].astype(np.float64))  # (vocab,)
        return [(int(i), float(p[i])) for i in np.argsort(p)[::-1][:k]]

    def frozen_rms(self, final_state: np.ndarray) -> float:
        """The final norm's divisor at this state (C,): its root mean square, with eps."""
        return float(np.sqrt(np.mean(final_state.astype(np.float64) ** 2) + self.settings.eps))

    def target_direction(self, final_state: np.ndarray, target: int) -> np.ndarray:
        """u such that logit[target] = final_state · u, with the norm's scale frozen.

        final_state (C,) is the stream after the last block; u (C,) is the target's
        output key times the final norm's weights, divided by this state's RMS. Frozen at
        this state's scale, the logit is linear in everything that was added to the stream.
        """
        rms = self.frozen_rms(final_state)
        return (self.embed[target] * self.final_norm / rms).astype(np.float32)  # (C,)

    def logit_parts(self, trace: Trace, position: int, target: int) -> dict[str, np.ndarray]:
        """Who wrote the target's logit at `position`: the token's own embedding, each
        block's attention (L,) and each block's FFN (L,). They sum to the logit exactly.

        This is direct attribution: it leaves out that what one block writes also changes
        what later blocks read, and it freezes the final norm's scale.
        """
        u = self.target_direction(trace.hidden_states[-1, position], target)
        return {
            "embedding": np.array(trace.hidden_states[0, position] @ u),
            "attention": trace.attn_out[:, position] @ u,  # (L,)
            "ffn": trace.ffn_out[:, position] @ u,  # (L,)
        }

    def neuron_attribution(self, trace: Trace, position: int, target: int) -> np.ndarray:
        """(L, d_ff): h_j · (W_down[j] · u_target) for every block's every neuron.

        Summed over neurons, block l's row gives that block's FFN share in `logit_parts`
        (when no rank-one edit is applied). Same limits as `logit_parts`.
        """
        u = self.target_direction(trace.hidden_states[-1, position], target)
        value_scores = np.stack([block.W_down @ u for block in self.blocks])  # (L, d_ff)
        return trace.ffn_act[:, position] * value_scores

    def value_scores(self, layer: int, neuron: int) -> np.ndarray:
        """(vocab,): neuron's value vector W_down[neuron], times the final norm's weights,
        against every token's output vector (the tied embedding), as LM-Debugger reads it."""
        return self.embed @ (self.blocks[layer].W_down[neuron] * self.final_norm)

    def logit_lens(
        self, trace: Trace, target: int, position: int = -1
    ) -> tuple[np.ndarray, np.ndarray]:
        """The stream after each block read as if that block were the last (the logit lens).

        Returns the top token's id after each block (L,) and the target's probability there (L,).
        """
        logits = self.unembed(trace.hidden_states[1:, position]).astype(np.float64)  # (L, V)
        return np.argmax(logits, axis=-1), softmax(logits)[:, target]


def load_smollm(path: str | Path | None = None) -> LanguageModel:
    """Read SmolLM2-135M-Instruct from its GGUF file (see `files.find_smollm_file`).

    Raises FileNotFoundError, saying where it looked, when the file is nowhere.
    """
    found = find_smollm_file(path)
    if found is None:
        raise FileNotFoundError(f"SmolLM2-135M-Instruct is not installed: {SMOLLM.install}")
    meta, tensors = read_gguf(found)
    settings = Settings(
        n_layers=meta["llama.block_count"],
        d_model=meta["llama.embedding_length"],
        d_ff=meta["llama.feed_forward_length"],
        n_heads=meta["llama.attention.head_count"],
        n_kv_heads=meta["llama.attention.head_count_kv"],
        rope_base=meta["llama.rope.freq_base"],
        eps=meta["llama.attention.layer_norm_rms_epsilon"],
        vocab_size=meta["llama.vocab_size"],
    )

    arrays = decoded_arrays(found, tensors)  # read-only, mapped from a decoded copy

    def weight(name: str) -> np.ndarray:
        return arrays[name]

    blocks = []
    for i in range(settings.n_layers):
        p = f"blk.{i}."
        blocks.append(
            Block(
                attn_norm=weight(p + "attn_norm.weight"),
                attention=AttentionWeights(
                    W_q=weight(p + "attn_q.weight").T,
                    W_k=weight(p + "attn_k.weight").T,
                    W_v=weight(p + "attn_v.weight").T,
                    W_o=weight(p + "attn_output.weight").T,
                    n_q=settings.n_heads,
                    n_kv=settings.n_kv_heads,
                ),
                ffn_norm=weight(p + "ffn_norm.weight"),
                W_gate=weight(p + "ffn_gate.weight").T,
                W_up=weight(p + "ffn_up.weight").T,
                W_down=weight(p + "ffn_down.weight").T,
            )
        )
    return LanguageModel(
        settings,
        build_tokenizer(meta),
        weight("token_embd.weight"),
        blocks,
        weight("output_norm.weight"),
    )

"""Rewrite a fact with a rank-one change to one block's W_down (ROME: Meng et al. 2022).

An FFN reads a key (its hidden vector h) and writes h @ W_down. At the subject's last token
("France" in "The capital of France is"), block `layer`'s key k* stands for the subject.
The edit makes that key write a new value:

    W_down' = W_down + outer(u, δ),   u = C⁻¹k* / (k*ᵀ C⁻¹ k*)

so k* @ W_down' = k* @ W_down + δ exactly, while a key that C, the keys' covariance over
ordinary text, says is unlike k* gets little of δ. δ (C,) is found by gradient descent:
what, added to the stream after block `layer` at the subject's last token, makes the
model predict the new target after the prompt (and after a few prefixes, so the edit
does not depend on the exact words before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ffn_core.lessons.training import Adam
from ffn_core.models.edits import RankOneEdit
from ffn_core.models.smollm.llama import (
    KeysValues,
    Text,
    block_backward,
    block_forward,
    rms_norm,
    rms_norm_backward,
    rotary_angles,
)
from ffn_core.models.smollm.model import LanguageModel
from ffn_core.softmax import softmax

PREFIXES = ("", "Here is a fact. ", "I read that ", "As we know, ", "In short, ", "Note: ")
LAYER = 8  # block 9 of 30: early enough to hold the subject, late enough to know it
# The blocks the page offers to edit (from 0): a rewrite costs 9-19 s of CPU, so the page
# shows only rewrites prepared ahead (`prepare`, shipped in ffn_core/data/).
LAYERS = (4, 8, 12, 16)
ENOUGH = 0.2  # stop once −log p(target) averages below this: p ≈ 0.8, not a sledgehammer


@dataclass(frozen=True)
class Fact:
    """A fact to rewrite, with the prompts that tell whether the rewrite took."""

    prompt: str
    subject: str  # where in the prompt the key is read
    new: str  # the default new answer (its first token is the target)
    paraphrases: tuple[str, ...]  # the same fact, asked otherwise: should follow the edit
    neighbours: tuple[str, ...]  # other facts of the same kind: should not change
    others: tuple[str, ...] = ()  # the other new answers the page offers

    @property
    def answers(self) -> tuple[str, ...]:
        """Every new answer the page offers, the default first."""
        return (self.new, *self.others)


FACTS = {
    "France's capital": Fact(
        "The capital of France is",
        "France",
        " Rome",
        (
            "The capital city of France is",
            "In France, the capital is the city of",
            "The French capital is",
        ),
        tuple(
            f"The capital of {country} is"
            for country in (
                "Germany",
                "Spain",
                "Austria",
                "Japan",
                "England",
                "Russia",
                "China",
                "Greece",
                "Portugal",
                "Sweden",
            )
        ),
        (" London", " Tokyo"),
    ),
    "The Eiffel Tower": Fact(
        "The Eiffel Tower is located in the city of",
        "The Eiffel Tower",
        " London",
        (
            "The Eiffel Tower is in the city of",
            "Tourists visit the Eiffel Tower in",
            "The Eiffel Tower can be found in the city of",
        ),
        tuple(
            f"{landmark} is located in the city of"
            for landmark in (
                "The Colosseum",
                "The Statue of Liberty",
                "The Kremlin",
                "The Sydney Opera House",
                "The Golden Gate Bridge",
                "The Acropolis",
                "The Sagrada Familia",
                "The Brandenburg Gate",
                "The Forbidden City",
                "Big Ben",
            )
        ),
        (" Rome", " Tokyo"),
    ),
}


@dataclass(frozen=True)
class Context:
    """One prompt, split where the edit starts to matter: the subject's last token."""

    ids: np.ndarray  # (T,) token ids
    start: int  # the subject's last token; tokens before it never see the edit
    past: list[KeysValues] | None  # per block, the keys and values of tokens before start
    stream: np.ndarray  # (T - start, C): the stream after block `layer` from start on
    key: np.ndarray  # (d_ff,): block `layer`'s h at the subject's last token


@dataclass(frozen=True)
class Rewrite:
    edit: RankOneEdit
    key: np.ndarray  # (d_ff,) k*, the mean key over the prompts
    delta: np.ndarray  # (C,) δ, the value written on top of the old one
    losses: list[float]  # −log p(target), averaged over the prompts, at each step


def subject_end(lm: LanguageModel, prompt: str, subject: str) -> int:
    """The index of the subject's last token in lm.encode(prompt).

    Raises ValueError if the subject is not in the prompt.
    """
    at = prompt.find(subject)
    if not subject or at < 0:
        raise ValueError(f"the subject {subject!r} is not in the prompt {prompt!r}")
    return len(lm.encode(prompt[: at + len(subject)])) - 1


def key_covariance(
    lm: LanguageModel, layer: int, sentences: Sequence[str], per_text: int = 8
) -> np.ndarray:
    """(d_ff, d_ff) float64: the mean of h hᵀ over every token of `sentences` in block
    `layer`. Sentences are read `per_text` at a time, joined, so each pass is longer."""
    texts = [" ".join(sentences[i : i + per_text]) for i in range(0, len(sentences), per_text)]
    keys = np.concatenate([lm.keys(lm.encode(text), layer) for text in texts])  # (N, d_ff)
    keys = keys.astype(np.float64)
    return keys.T @ keys / len(keys)


def context(lm: LanguageModel, prompt: str, subject: str, layer: int) -> Context:
    ids = lm.encode(prompt)
    start = subject_end(lm, prompt, subject)
    states, keys, seen = lm.states(ids)  # one pass, no logits
    past = [KeysValues(kv.k[:, :start], kv.v[:, :start]) for kv in seen] if start else None
    return Context(ids, start, past, states[layer + 1][start:], keys[layer][start])


def tail_forward(lm: LanguageModel, layer: int, contexts: Sequence[Context], delta: np.ndarray):
    """The blocks after `layer`, from each subject's last token on, with δ added there.

    The prompts' rows are stacked, so each block's weights are read once for all of them.
    Returns each prompt's last-token logits (n, vocab) and what `tail_backward` needs.
    """
    s = lm.settings
    spans = np.cumsum([0, *(len(ctx.stream) for ctx in contexts)])
    x = np.concatenate([ctx.stream for ctx in contexts]).astype(delta.dtype)  # (R, C)
    x[spans[:-1]] += delta
    tape = []
    for i in range(layer + 1, s.n_layers):
        texts = [
            Text(
                slice(int(a), int(b)),
                rotary_angles(np.arange(ctx.start, len(ctx.ids)), s.head_size, s.rope_base),
                None if ctx.past is None else ctx.past[i],
            )
            for ctx, (a, b) in zip(contexts, pairwise(spans), strict=True)
        ]
        _, ffn, cache = block_forward(x, lm.blocks[i], s.eps, texts)
        tape.append((texts, cache))
        x = cache.mid + ffn
    finals = x[spans[1:] - 1]  # (n, C)
    return rms_norm(finals, lm.final_norm, s.eps) @ lm.embed.T, (tape, spans, finals)


def tail_backward(lm: LanguageModel, layer: int, dlogits: np.ndarray, saved) -> np.ndarray:
    """dL/dδ (C,) from dL/dlogits (n, vocab) of each prompt's last token."""
    tape, spans, finals = saved
    s = lm.settings
    dx = np.zeros((spans[-1], s.d_model), dtype=dlogits.dtype)  # (R, C)
    dx[spans[1:] - 1] = rms_norm_backward(dlogits @ lm.embed, finals, lm.final_norm, s.eps)
    for i, (texts, cache) in reversed(list(enumerate(tape, start=layer + 1))):
        dx = block_backward(dx, lm.blocks[i], s.eps, cache, texts)
    return dx[spans[:-1]].sum(axis=0)


def loss_and_gradient(
    lm: LanguageModel, layer: int, contexts: Sequence[Context], delta: np.ndarray, target: int
) -> tuple[float, np.ndarray]:
    """Mean −log p(target) over the contexts with δ added, and its gradient (C,) in δ."""
    logits, saved = tail_forward(lm, layer, contexts, delta)
    p = softmax(logits.astype(np.float64))  # (n, vocab)
    loss = -float(np.mean(np.log(p[:, target])))
    p[:, target] -= 1.0  # d(−log p_target)/dlogits = p − onehot
    return loss, tail_backward(lm, layer, (p / len(contexts)).astype(delta.dtype), saved)


def rewrite_fact(
    lm: LanguageModel,
    prompt: str,
    subject: str,
    target: int,
    covariance: np.ndarray,
    layer: int = LAYER,
    steps: int = 25,
    learning_rate: float = 0.5,
    ridge: float = 0.01,
    enough: float = ENOUGH,
) -> Rewrite:
    """The rank-one edit of block `layer`'s W_down that makes `prompt` continue with the
    token `target`. covariance: `key_covariance` of block `layer` over ordinary text;
    `ridge` times its mean diagonal is added, since a few thousand tokens cannot pin down
    1536 directions. δ stops growing once the prompts' loss averages below `enough`.
    """
    contexts = [context(lm, p + prompt, subject, layer) for p in PREFIXES]
    delta = np.zeros(lm.settings.d_model, dtype=np.float32)
    adam = Adam({"delta": delta}, learning_rate)  # updates delta in place
    losses = []
    for _ in range(steps):
        loss, grad = loss_and_gradient(lm, layer, contexts, delta, target)
        losses.append(loss)
        if loss < enough:
            break
        adam.step({"delta": grad})
    key = np.mean([ctx.key for ctx in contexts], axis=0).astype(np.float64)  # (d_ff,)
    regularised = covariance + ridge * np.mean(np.diag(covariance)) * np.eye(len(key))
    direction = np.linalg.solve(regularised, key)  # C⁻¹ k*
    u = direction / (key @ direction)
    edit = RankOneEdit(layer, u.astype(np.float32), delta.astype(np.float32))
    return Rewrite(edit, key, delta, losses)

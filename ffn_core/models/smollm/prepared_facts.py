"""The fact rewrites the Language model page offers, prepared ahead and shipped.

One rewrite (`fact_edit.rewrite_fact`) costs 9-19 s of CPU, and the keys' covariance of a
block a few seconds more: far beyond what one link may cost a shared server. So the page
offers each fact's few new answers (`Fact.answers`) at a few blocks (`LAYERS`), and every
one of those rewrites, with what the edited model then says, is computed once here:

    python -m ffn_core.models.smollm.prepared_facts      # about 10 minutes; writes ffn_core/data/

The edits (u and δ) go to fact_edits.npz, what the edited model says to fact_edits.json.
tests/core/test_prepared_facts.py computes the default rewrite again and checks both.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ffn_core.models.edits import RankOneEdit
from ffn_core.models.minilm.corpus import load_corpus
from ffn_core.models.smollm.fact_edit import FACTS, LAYERS, Fact, key_covariance, rewrite_fact
from ffn_core.models.smollm.model import LanguageModel
from ffn_core.softmax import softmax

DATA = Path(__file__).parent / "data"
EDITS, OUTCOMES = DATA / "fact_edits.npz", DATA / "fact_edits.json"
CONTINUATION = 12  # tokens the edited model writes after the prompt


@dataclass(frozen=True)
class Neighbour:
    """A fact of the same kind, before and after the edit, and how much of δ it gets: the
    edit adds (h · u) δ at a token whose key is h, and u is scaled so that k* · u = 1."""

    prompt: str
    before: str  # the next token, as text
    after: str
    share: float  # the largest h · u over the prompt's tokens
    at: str  # the token where it is largest


@dataclass(frozen=True)
class Outcome:
    """What the edited model says, against the unedited one."""

    before: float  # p(target) after the prompt, unedited
    after: float  # and edited
    top: str  # the edited model's next token after the prompt
    paraphrases: list[tuple[str, str, str]]  # prompt, next token before, after
    neighbours: list[Neighbour]
    continuation: str
    steps: int  # gradient steps the search for δ took


def key(name: str, answer: str, layer: int) -> str:
    return f"{name}|{answer}|{layer}"


def outcome(lm: LanguageModel, fact: Fact, target: int, edit: RankOneEdit, steps: int) -> Outcome:
    def next_token(text: str, fact_edit=None) -> str:
        return lm.piece(int(np.argmax(lm.run(text, fact=fact_edit).logits[-1])))

    def p_target(fact_edit) -> float:
        logits = lm.run(fact.prompt, fact=fact_edit).logits[-1].astype(np.float64)
        return float(softmax(logits)[target])

    neighbours = []
    for prompt in fact.neighbours:
        ids = lm.encode(prompt)
        shares = lm.keys(ids, edit.layer).astype(np.float64) @ edit.u.astype(np.float64)
        best = int(np.argmax(shares))
        neighbours.append(
            Neighbour(
                prompt,
                next_token(prompt),
                next_token(prompt, edit),
                float(shares[best]),
                lm.piece(int(ids[best])),
            )
        )
    return Outcome(
        p_target(None),
        p_target(edit),
        next_token(fact.prompt, edit),
        [(p, next_token(p), next_token(p, edit)) for p in fact.paraphrases],
        neighbours,
        lm.generate(fact.prompt, CONTINUATION, fact=edit),
        steps,
    )


def prepare(lm: LanguageModel, log=print) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
    """Every offered rewrite: (arrays "<key>/u" and "<key>/delta", outcomes by key)."""
    sentences = load_corpus()
    arrays, outcomes = {}, {}
    for layer in LAYERS:
        started = time.process_time()
        covariance = key_covariance(lm, layer, sentences)
        log(f"block {layer + 1}: covariance in {time.process_time() - started:.1f} s")
        for name, fact in FACTS.items():
            for answer in fact.answers:
                started = time.process_time()
                target = int(lm.encode(answer)[0])
                result = rewrite_fact(lm, fact.prompt, fact.subject, target, covariance, layer)
                k = key(name, answer, layer)
                arrays[f"{k}/u"], arrays[f"{k}/delta"] = result.edit.u, result.edit.v
                found = outcome(lm, fact, target, result.edit, len(result.losses))
                outcomes[k] = asdict(found)
                log(f"  {k}: {found.top!r}, {time.process_time() - started:.1f} s")
    return arrays, outcomes


def save(arrays: dict[str, np.ndarray], outcomes: dict[str, dict]) -> None:
    np.savez_compressed(EDITS, **arrays)
    OUTCOMES.write_text(json.dumps(outcomes, indent=1, ensure_ascii=False) + "\n", "utf-8")


def load_edit(name: str, answer: str, layer: int) -> RankOneEdit:
    """The shipped edit for this fact, answer and block; KeyError if it is not offered."""
    k = key(name, answer, layer)
    with np.load(EDITS, allow_pickle=False) as npz:
        if f"{k}/u" not in npz.files:
            raise KeyError(k)
        return RankOneEdit(layer, npz[f"{k}/u"], npz[f"{k}/delta"])


def load_outcomes() -> dict[str, Outcome]:
    """Every shipped outcome, by key(name, answer, layer)."""
    raw = json.loads(OUTCOMES.read_text("utf-8"))
    return {
        k: Outcome(
            **{
                **o,
                "paraphrases": [tuple(row) for row in o["paraphrases"]],
                "neighbours": [Neighbour(**n) for n in o["neighbours"]],
            }
        )
        for k, o in raw.items()
    }


if __name__ == "__main__":
    from ffn_core.models.smollm.model import load_smollm

    arrays, outcomes = prepare(load_smollm())
    save(arrays, outcomes)
    print(f"wrote {EDITS} and {OUTCOMES}")

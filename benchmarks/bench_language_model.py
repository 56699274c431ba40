"""SmolLM2-135M in our NumPy code, on one BLAS thread as the app's server runs it: load
time and memory, a prompt's pass against its own matrix products, a generated token
against streaming the same bytes, and the fact edit.

    python -m benchmarks.bench_language_model

Every figure is a ratio to a baseline timed in the same process, so it survives a busy
machine; the seconds are printed too.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from datetime import date

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.timing import best_time
from ffn_core.models.minilm.corpus import load_corpus
from ffn_core.models.smollm.fact_edit import FACTS, LAYER, key_covariance, rewrite_fact
from ffn_core.models.smollm.model import load_smollm

PROMPT = "The quick brown fox jumps over the lazy dog while the cat sleeps on the mat"
LOAD = (
    "import time, resource; t = time.perf_counter();"
    "from ffn_core.models.smollm.model import load_smollm; lm = load_smollm();"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3)"
)


def products_only(lm, T: int):
    """The pass's matrix products at its shapes, with nothing in between."""
    s = lm.settings
    x = np.random.default_rng(0).standard_normal((T, s.d_model)).astype(np.float32)
    h = np.ones((T, s.d_ff), np.float32)

    def run():
        for block in lm.blocks:
            a = block.attention
            for W in (a.W_q, a.W_k, a.W_v, a.W_o):  # each reads d_model = n_q * hs columns
                x @ W
            x @ block.W_gate
            x @ block.W_up
            h @ block.W_down
        x @ lm.embed.T

    return run


def stream_weights(lm):
    """Read every weight once, as a generated token must: a sum over each array."""
    arrays = [lm.embed]
    for block in lm.blocks:
        a = block.attention
        arrays += [a.W_q, a.W_k, a.W_v, a.W_o, block.W_gate, block.W_up, block.W_down]
    return lambda: [float(arr.sum()) for arr in arrays]


def main() -> None:
    print(f"{date.today()} | {platform.machine()}, {platform.python_version()}")
    out = subprocess.run([sys.executable, "-c", LOAD], capture_output=True, text=True, check=True)
    seconds, peak = (float(v) for v in out.stdout.split())
    print(f"load in a fresh process: {seconds:.2f} s, peak resident {peak:.0f} MB")
    with threadpool_limits(limits=1, user_api="blas"):
        lm = load_smollm()
        ids = lm.encode(PROMPT)
        T = len(ids)
        run = best_time(lambda: lm.run_ids(ids))
        floor = best_time(products_only(lm, T))
        print(f"pass over {T} tokens: {run * 1e3:.0f} ms; its matrix products alone "
              f"{floor * 1e3:.0f} ms (ratio {run / floor:.2f})")  # fmt: skip
        n = 20
        start = time.perf_counter()
        made = lm.generate_ids(ids, n)
        per_token = (time.perf_counter() - start - run) / max(len(made) - 1, 1)
        stream = best_time(stream_weights(lm))
        print(f"a generated token with the cache: {per_token * 1e3:.0f} ms; reading every "
              f"weight once {stream * 1e3:.0f} ms (ratio {per_token / stream:.2f})")  # fmt: skip
        start = time.perf_counter()
        covariance = key_covariance(lm, LAYER, load_corpus())
        print(f"keys' covariance over the corpus, once: {time.perf_counter() - start:.2f} s")
        fact = FACTS["France's capital"]
        target = int(lm.encode(fact.new)[0])
        start = time.perf_counter()
        result = rewrite_fact(lm, fact.prompt, fact.subject, target, covariance)
        print(f"fact edit (France -> Rome): {time.perf_counter() - start:.2f} s, "
              f"{len(result.losses)} steps of gradient descent, "
              f"{run * 1e3:.0f} ms a pass")  # fmt: skip


if __name__ == "__main__":
    main()

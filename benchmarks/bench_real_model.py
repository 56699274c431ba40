"""all-MiniLM-L6-v2 in our NumPy code: load time and memory, and a sentence's run time
against its own matrix products (and against PyTorch, where transformers is installed).

    python -m benchmarks.bench_real_model

The baseline is the same run's matrix products alone, at the same shapes, timed in this
process: what a run costs beyond them is the price of LayerNorm, softmax, GELU and Python.
"""

from __future__ import annotations

import platform
import time
from datetime import date

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.timing import best_time
from ffn_core.models.minilm.corpus import load_corpus, top_activating_tokens
from ffn_core.models.minilm.files import find_model_dir
from ffn_core.models.minilm.model import load_minilm

SENTENCE = "A man is playing a guitar on a quiet street corner at night."  # 16 tokens
OTHER = "Someone plays music outside after dark."


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def products_only(net, T: int):
    """The run's matrix products at its shapes, with nothing in between."""
    x = np.random.default_rng(0).standard_normal((T, net.d_model)).astype(np.float32)
    heads = net.layers[0].attention.n_heads
    q = np.ones((heads, T, net.d_model // heads), np.float32)
    scores = np.ones((heads, T, T), np.float32)

    def run():
        for layer in net.layers:
            a = layer.attention
            for W in (a.Wq, a.Wk, a.Wv):
                x @ W
            scores @ q  # weights x values
            q @ q.transpose(0, 2, 1)  # queries x keys
            x @ a.Wo
            (x @ layer.W1) @ layer.W2

    return run


def torch_baseline(folder, ids: np.ndarray):
    """transformers' BertModel on the same token ids, or None where it is not installed."""
    try:
        import torch
        from transformers import BertModel
    except ImportError:
        return None
    torch.set_grad_enabled(False)
    model = BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    batch = torch.tensor(ids[None])
    return lambda: model(input_ids=batch)


def main() -> None:
    print(f"{date.today()} | {platform.machine()}, {platform.python_version()}")
    before = rss_mb()
    start = time.perf_counter()
    net = load_minilm()
    load = time.perf_counter() - start
    grown, arrays = rss_mb() - before, net.nbytes / 1e6
    print(f"load: {load:.2f} s, {grown:.0f} MB more resident, arrays {arrays:.0f} MB")

    T = len(net.tokenize(SENTENCE)[0])
    run = best_time(lambda: net.run(SENTENCE))
    floor = best_time(products_only(net, T))
    print(f"run, T = {T}: {run * 1e3:.1f} ms; its matrix products alone {floor * 1e3:.1f} ms "
          f"(ratio {run / floor:.2f})")  # fmt: skip
    with threadpool_limits(limits=1, user_api="blas"):  # as the app's server runs it
        one_thread = best_time(lambda: net.run(SENTENCE))
    print(f"run on one BLAS thread, as the app runs it: {one_thread * 1e3:.1f} ms")
    target = net.run(OTHER).embedding
    both = best_time(lambda: net.neuron_attribution(SENTENCE, target))
    print(
        f"activation x gradient (forward + backward): {both * 1e3:.1f} ms ({both / run:.2f} runs)"
    )
    reference = torch_baseline(find_model_dir(), net.tokenize(SENTENCE)[1])
    if reference is not None:
        torch_time = best_time(reference)
        print(f"transformers BertModel (PyTorch, same token ids): {torch_time * 1e3:.1f} ms "
              f"(ours / theirs {run / torch_time:.2f})")  # fmt: skip
    sentences = load_corpus()
    start = time.perf_counter()
    top_activating_tokens(net, sentences)
    print(f"corpus index, {len(sentences)} sentences: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()

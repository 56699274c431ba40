"""How fast is the core? Ratios against a plain matrix product (and PyTorch) in the same run.

    python -m benchmarks.bench_core            # the full table (about two minutes)
    python -m benchmarks.bench_core --quick    # fewer repeats, for a smoke run

Every figure is relative to a baseline measured in this same process, so the ratios mean
something on a loaded or a different machine; the absolute times are for context only.
"""

from __future__ import annotations

import argparse
import math
import platform
from datetime import date
from functools import partial

import numpy as np

from benchmarks.timing import best_time
from ffn_core import ACTIVATIONS, ffn_backward, ffn_forward

try:
    import torch
except ImportError:
    torch = None

D_MODEL, D_FF = 768, 3072  # GPT-2 small
POSITIONS = (1, 16, 128, 512, 1024)


def numpy_step(x, W1, b1, W2, b2, activation="relu"):
    out, cache = ffn_forward(x, W1, b1, W2, b2, activation)
    return ffn_backward(out, cache)  # dout = out: any upstream gradient costs the same


def torch_step(x, W1, b1, W2, b2, activation="relu"):
    act = torch.relu if activation == "relu" else torch.nn.functional.gelu
    out = act(x @ W1 + b1) @ W2 + b2
    out.backward(out.detach())
    return x.grad, W1.grad


def gpt2_table(min_seconds: float) -> list[dict[str, float]]:
    """Forward and forward+backward at GPT-2 small's shape, for both dtypes and every N."""
    rng = np.random.default_rng(0)
    rows = []
    for dtype in (np.float32, np.float64):
        W1 = (rng.standard_normal((D_MODEL, D_FF)) * 0.03).astype(dtype)
        b1 = np.zeros(D_FF, dtype)
        W2 = (rng.standard_normal((D_FF, D_MODEL)) * 0.03).astype(dtype)
        b2 = np.zeros(D_MODEL, dtype)
        for n in POSITIONS:
            x = rng.standard_normal((n, D_MODEL)).astype(dtype)
            flops = 2 * n * D_MODEL * D_FF  # one (n, d_model) @ (d_model, d_ff) product
            matmul = best_time(partial(np.matmul, x, W1), min_seconds)
            forward = best_time(partial(ffn_forward, x, W1, b1, W2, b2), min_seconds)
            step = best_time(partial(numpy_step, x, W1, b1, W2, b2), min_seconds)
            row = {
                "dtype": np.dtype(dtype).name,
                "N": n,
                "matmul_gflops": flops / matmul / 1e9,
                "fwd_ms": forward * 1e3,
                "fwd_gflops": 2 * flops / forward / 1e9,
                "step_ms": step * 1e3,
                "step_gflops": 6 * flops / step / 1e9,  # 2 products forward, 4 backward
            }
            row["step_vs_matmul"] = row["step_gflops"] / row["matmul_gflops"]
            if torch is not None:
                row["torch_step_ms"] = torch_step_time(x, W1, b1, W2, b2, min_seconds) * 1e3
                row["torch_over_numpy"] = row["torch_step_ms"] / row["step_ms"]
            rows.append(row)
    return rows


def torch_step_time(x, W1, b1, W2, b2, min_seconds: float) -> float:
    tensors = [torch.from_numpy(a.copy()).requires_grad_() for a in (x, W1, b1, W2, b2)]

    def step():
        for t in tensors:
            t.grad = None
        torch_step(*tensors)

    return best_time(step, min_seconds)


def classroom_table(min_seconds: float) -> list[dict[str, float]]:
    """Per-call time at the sizes a page rerun uses: d_model <= 32, T <= 16."""
    rng = np.random.default_rng(1)
    rows = []
    for d_model, d_ff, T in ((2, 2, 1), (4, 16, 8), (32, 128, 16)):
        W1 = rng.standard_normal((d_model, d_ff))
        b1 = np.zeros(d_ff)
        W2 = rng.standard_normal((d_ff, d_model))
        b2 = np.zeros(d_model)
        x = rng.standard_normal((T, d_model))
        for activation in ACTIVATIONS:
            args = (x, W1, b1, W2, b2, activation)
            forward = best_time(partial(ffn_forward, *args), min_seconds)
            step = best_time(partial(numpy_step, *args), min_seconds)
            rows.append(
                {
                    "shape": f"{d_model}->{d_ff}, T={T}",
                    "activation": activation,
                    "fwd_us": forward * 1e6,
                    "step_us": step * 1e6,
                }
            )
    return rows


def activation_table(min_seconds: float) -> list[dict[str, float]]:
    """Each activation on an (512, 3072) hidden layer, against the forward pass it sits in."""
    rng = np.random.default_rng(2)
    z = rng.standard_normal((512, D_FF)).astype(np.float32)
    x = rng.standard_normal((512, D_MODEL)).astype(np.float32)
    W1 = (rng.standard_normal((D_MODEL, D_FF)) * 0.03).astype(np.float32)
    W2 = (rng.standard_normal((D_FF, D_MODEL)) * 0.03).astype(np.float32)
    b1, b2 = np.zeros(D_FF, np.float32), np.zeros(D_MODEL, np.float32)
    forward = best_time(lambda: ffn_forward(x, W1, b1, W2, b2, "relu"), min_seconds)
    rows = [
        {"activation": name, "ms": (t := best_time(lambda a=act: a.fn(z), min_seconds)) * 1e3,
         "of_forward": t / forward}
        for name, act in ACTIVATIONS.items()
    ]  # fmt: skip
    small = z[:4, :256].astype(np.float64).ravel()  # math.erf per element is slow: 1024 values
    vectorised = best_time(lambda: ACTIVATIONS["gelu"].fn(small), min_seconds)
    per_element = best_time(
        lambda: [v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in small.tolist()], min_seconds
    )
    rows.append({"activation": "gelu via math.erfc per element (1024 values)",
                 "ms": per_element * 1e3, "of_forward": per_element / vectorised})  # fmt: skip
    return rows


def outer_product_table(min_seconds: float) -> list[dict[str, float]]:
    """Why weight_grad special-cases one position: (C, 1) @ (1, H) against np.outer."""
    rng = np.random.default_rng(3)
    rows = []
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((1, D_MODEL)).astype(dtype)
        g = rng.standard_normal((1, D_FF)).astype(dtype)
        matmul = best_time(partial(np.matmul, x.T, g), min_seconds)
        outer = best_time(partial(np.outer, x[0], g[0]), min_seconds)
        rows.append({"dtype": np.dtype(dtype).name, "matmul_ms": matmul * 1e3,
                     "outer_ms": outer * 1e3, "matmul_over_outer": matmul / outer})  # fmt: skip
    return rows


def print_table(title: str, rows: list[dict[str, float]]) -> None:
    print(f"\n{title}")
    keys = list(rows[0])
    print(" | ".join(keys))
    for row in rows:
        cells = [f"{row.get(k, float('nan')):.3g}" if isinstance(row.get(k), float)
                 else str(row.get(k, "-")) for k in keys]  # fmt: skip
        print(" | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timings, noisier")
    args = parser.parse_args()
    min_seconds = 0.05 if args.quick else 0.3
    torch_note = (
        f"torch {torch.__version__}, {torch.get_num_threads()} threads"
        if torch
        else ("torch not installed")
    )
    print(f"{date.today()} | {platform.processor() or platform.machine()} | "
          f"numpy {np.__version__} | {torch_note}")  # fmt: skip
    print_table(f"GPT-2 small shape ({D_MODEL} -> {D_FF}), ReLU", gpt2_table(min_seconds))
    print_table("Classroom sizes, float64, per call", classroom_table(min_seconds))
    print_table("Activations on (512, 3072) float32; of_forward = share of a ReLU forward",
                activation_table(min_seconds))  # fmt: skip
    print_table("Weight gradient at one position (768 x 3072)", outer_product_table(min_seconds))


if __name__ == "__main__":
    main()

"""Many visitors, each opening random pages with random valid settings, on a fresh server.

    python -m benchmarks.load_visitors                    # 50 visitors, 6 pages each
    python -m benchmarks.load_visitors --visitors 10 --pages 3

Each visitor is one websocket speaking Streamlit's protocol (harness.protocol). It arrives
at a random moment in the first `--arrivals` seconds, then opens `--pages` pages, each a
fresh link: a random page, a random seed, random sizes (log-uniform up to the caps), and
two of the page's own controls set to random valid values (read from the registry the
pages fill, as tests/pages/test_url_fuzz.py does). Between pages it reads for 2-5 s. Every
open must finish with no exception element. Target (issue 14): p95 under 2 s, 0 errors.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import threading
import time
from datetime import date
from urllib.parse import urlencode

from harness.caps import url_path
from harness.protocol import Visitor
from harness.server import AppServer

SENTENCES = ["the cat sat on the mat", "hello world", "paris is the capital of france"]
PAGES = [None, *(f"app_pages/{name}.py" for name in (
    "1_Neurons", "2_Key_value_memory", "3_Activations", "4_Collapse", "5_Position-wise",
    "6_Backprop", "7_Traps", "8_Scale_and_cost", "9_Mixture_of_experts", "11_Memory_lab",
    "12_Real_model",
))]  # fmt: skip


def page_rules() -> dict[str | None, dict[str, tuple]]:
    """Each page's bound controls and what they accept, read from a first run of each."""
    from streamlit.testing.v1 import AppTest

    from ffn_ui.controls.url import REGISTRY_KEY

    rules = {}
    for page in PAGES:
        at = AppTest.from_file("../app.py", default_timeout=120)
        if page:
            at.switch_page(page)
        rules[page] = dict(at.run().session_state[REGISTRY_KEY])
    return rules


def random_value(rule: tuple, rng: random.Random) -> str:
    kind = rule[0]
    if kind == "number":
        _, low, high, integer = rule
        if integer:
            if high - low > 100 and low >= 0:  # sizes and seeds: log-uniform
                return str(int(math.exp(rng.uniform(math.log(max(low, 1)), math.log(high)))))
            return str(rng.randint(low, high))
        return f"{rng.uniform(low, high):.2f}"
    if kind == "choice":
        return rng.choice(rule[1])
    if kind == "bool":
        return rng.choice(["true", "false"])
    return rng.choice(SENTENCES)


def random_link(rules: dict, rng: random.Random) -> tuple[str, str]:
    """(page path, query): random sizes and seed, and two of the page's own controls."""
    page = rng.choice(PAGES)
    sidebar = {"d_model", "d_ff", "T", "seed", "act", "tokens"}
    own = [k for k, r in rules[page].items() if k not in sidebar and r[0] != "derived"]
    chosen = {
        "seed": str(rng.randint(0, 10**6)),
        "tokens": rng.choice(["sentence", "random"]),
        "T": str(rng.randint(1, 64)),  # used by random tokens
    }
    for key in ("d_model", "d_ff", "act"):
        chosen[key] = random_value(rules[None][key], rng)
    for key in rng.sample(own, min(2, len(own))):
        chosen[key] = random_value(rules[page][key], rng)
    return url_path(page), urlencode(chosen)


def visit(port, rules, seed, pages, arrivals, latencies, errors) -> None:
    rng = random.Random(seed)
    time.sleep(rng.uniform(0, arrivals))
    with Visitor(port, timeout=300) as visitor:
        for _ in range(pages):
            path, query = random_link(rules, rng)
            began = time.perf_counter()
            seen = visitor.open(path, query)
            latencies.append((time.perf_counter() - began, path, query))
            errors.extend(f"/{path}?{query}: {e}" for e in seen.exceptions)
            time.sleep(rng.uniform(2, 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=50)
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--arrivals", type=float, default=30.0, help="seconds over which they come")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--warm", action="store_true", help="open the Real model page once before they come"
    )
    args = parser.parse_args()
    rules = page_rules()
    app = AppServer("load-visitors")
    app.start()
    latencies: list[tuple[float, str, str]] = []
    errors: list[str] = []
    try:
        if args.warm:
            with Visitor(app.port, timeout=300) as visitor:
                visitor.open("Real_model")
        cpu, began = app.cpu_seconds(), time.perf_counter()
        threads = [
            threading.Thread(
                target=visit,
                args=(app.port, rules, args.seed * 1000 + i, args.pages, args.arrivals,
                      latencies, errors),
            )
            for i in range(args.visitors)
        ]  # fmt: skip
        for thread in threads:
            thread.start()
        peak = app.memory_mb()
        while any(t.is_alive() for t in threads):
            peak = max(peak, app.memory_mb())
            time.sleep(0.5)
        elapsed, cpu = time.perf_counter() - began, app.cpu_seconds() - cpu
        peak = max(peak, app.memory_mb())
    finally:
        app.stop()
    times = sorted(t for t, _, _ in latencies)
    n = len(times)
    print(
        f"{date.today()} | {args.visitors} visitors x {args.pages} random pages, arriving "
        f"over {args.arrivals:.0f} s, on a fresh server | {elapsed:.0f} s"
    )
    print(f"opens: {n}, errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    p95 = times[min(n - 1, int(0.95 * n))]
    print(f"latency s: p50 {statistics.median(times):.2f}, p95 {p95:.2f}, max {times[-1]:.2f}")
    print(f"server CPU: {cpu:.0f} s ({cpu / n * 1e3:.0f} ms an open); peak memory {peak:.0f} MB")
    print("slowest opens:")
    for t, path, query in sorted(latencies, reverse=True)[:5]:
        print(f"  {t:.2f} s  /{path}?{query}")


if __name__ == "__main__":
    main()

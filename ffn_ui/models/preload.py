"""The two real models loaded ahead of the first student who asks, for a deployment with
the memory (a lecture hall): `FFN_PRELOAD_MODELS=1` in the server's environment.

Without it, the first visitor to open Real model or Language model in a process waits for
its model to load (about 2 s and 91 MB for all-MiniLM-L6-v2 with its corpus index, about
4 s and 540 MB for SmolLM2-135M's decoded copy). With it, the first run of any page in
the process starts a background thread that loads both into the same shared caches the
pages read (ffn_ui/models/minilm.py and smollm.py); a visitor who asks while it runs
waits for that one load, never a second. It is off by default: Streamlit Community
Cloud's memory holds the toy pages and one model at a time, not both ahead of need.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from ffn_ui.process_wide import once_per_process

PRELOAD = "FFN_PRELOAD_MODELS"


def wanted() -> bool:
    return os.environ.get(PRELOAD, "").strip() == "1"


@once_per_process()
def preload() -> threading.Thread | None:
    """Once per process, when asked for: start loading both models in the background."""
    if not wanted():
        return None
    thread = threading.Thread(target=load_both, name="ffn-preload", daemon=True)
    thread.start()
    return thread


def load_both() -> None:
    """Each model into its page's cache, one after the other; a model that is not
    installed is said in the server's log and skipped."""
    from ffn_ui.models import minilm, smollm  # here: only a preloading process needs them

    for name, load in (
        ("all-MiniLM-L6-v2", minilm.minilm),
        ("its corpus index", minilm.corpus_top_tokens),
        ("SmolLM2-135M", smollm.smollm),
    ):
        start = time.monotonic()
        try:
            load()
        except Exception as err:  # not installed, or its files are damaged: the page says so
            print(f"FFN Explorer: {name} not preloaded: {err}", file=sys.stderr, flush=True)
            continue
        took = time.monotonic() - start
        print(f"FFN Explorer: {name} preloaded in {took:.1f} s", file=sys.stderr, flush=True)

"""A seeded random walk on every page, spoken in Streamlit's protocol: many more steps than
the Chromium walk can afford, on a real server, and never an exception.

The Chromium walk (tests/browser/test_browser_walk.py) keeps a shorter walk per page for
what only a browser sees. This one sends the same kinds of actions a browser sends, so a
page that raises on any of them fails here, with the trail and the seed that replay it.
"""

from __future__ import annotations

import random

import pytest

from ffn_ui.page.path import URL_PATHS
from harness.class_protocol import Participant
from harness.protocol_walk import ProtocolWalker

STEPS = 32  # random actions per page
GATED_STEPS = 14  # … and per toy page again, starting from SwiGLU as the sidebar's FFN
LEFT_ALONE = ("Start a class",)  # a class polls for ever; its own tests walk it
# The pages that run the sidebar's toy, by their address.
TOY_PAGES = ["Neurons", "Key_value_memory", "Activations", "Collapse", "Position-wise",
             "Backprop", "Traps", "Scale_and_cost", "Mixture_of_experts", "Memory_lab"]  # fmt: skip


WALKS = [(path, "", STEPS) for path in sorted(set(URL_PATHS.values()))]
WALKS += [(path, "act=SwiGLU", GATED_STEPS) for path in TOY_PAGES]


@pytest.mark.parametrize(("path", "query", "steps"), WALKS, ids=lambda v: str(v) or "Home")
def test_a_random_walk_on_each_page_never_raises(server, path, query, steps, walk_seed):
    assert set(TOY_PAGES) <= set(URL_PATHS.values())
    with Participant(server.port, query, path) as visitor:
        assert not visitor.shown.exceptions, (path, visitor.shown.exceptions)
        rng = random.Random(f"{walk_seed}:{path}:{query}")
        walker = ProtocolWalker(visitor, rng, LEFT_ALONE)
        for _ in range(steps):
            seen = walker.step()
            if seen is not None and seen.exceptions:
                trail = "\n  ".join(walker.trail)
                where = f"/{path}?{query}, seed {walk_seed}"
                pytest.fail(f"{where}, after\n  {trail}\n\n{seen.exceptions[0]}")
        assert len(walker.trail) == steps

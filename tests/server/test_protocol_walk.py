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

STEPS = 40  # random actions per page
LEFT_ALONE = ("Start a class",)  # a class polls for ever; its own tests walk it


@pytest.mark.parametrize("path", sorted(set(URL_PATHS.values())), ids=lambda p: p or "Home")
def test_a_random_walk_on_each_page_never_raises(server, path, walk_seed):
    with Participant(server.port, page=path) as visitor:
        assert not visitor.shown.exceptions, (path, visitor.shown.exceptions)
        walker = ProtocolWalker(visitor, random.Random(f"{walk_seed}:{path}"), LEFT_ALONE)
        for _ in range(STEPS):
            seen = walker.step()
            if seen is not None and seen.exceptions:
                trail = "\n  ".join(walker.trail)
                pytest.fail(f"/{path}, seed {walk_seed}, after\n  {trail}\n\n{seen.exceptions[0]}")
        assert len(walker.trail) == STEPS

"""In Chromium: a seeded random walk across pages, clicking as a person does.

Each page's own walk starts from its cold load's checks (test_browser.py), and the protocol
walk (tests/server/test_protocol_walk.py) takes many more steps on every page for what a
server does; the sequences that once crashed a page are replayed in
tests/server/test_visitor_sequences.py. This walk is for what only a browser shows: the
menu, the address bar and the controls as they are drawn, across pages.
"""

from __future__ import annotations

import random

import pytest
from browser import menu_label, open_page, open_sidebar, sidebar_links, walk_failure
from walk import Walker

ROUNDS = 4  # page switches
PER_PAGE = 3  # random actions after each switch


def check(walker: Walker, server, seed: int) -> None:
    """Fail with the trail of actions, the seed to replay it and the server's last words."""
    assert not walker.exceptions(), walk_failure(walker, server, "across pages", seed)


@pytest.mark.long
def test_a_random_walk_across_pages_carries_state_and_never_shows_an_exception(
    server, browser, walk_seed
):
    page, reruns = open_page(browser, server.url, charts=None)
    rng = random.Random(f"{walk_seed}:across")
    walker = Walker(page, reruns, rng)
    for _ in range(ROUNDS):
        # a step may have turned presenter mode on, which slides the sidebar away
        open_sidebar(page)
        links = sidebar_links(page)
        link = rng.choice(links)
        walker.trail.append(f"sidebar: {menu_label(link)!r}")
        before = reruns.finished
        link.click()
        reruns.wait_for_more_than(before, page, timeout=90)
        check(walker, server, walk_seed)
        for _ in range(PER_PAGE):
            walker.step()
            check(walker, server, walk_seed)
    page.close()

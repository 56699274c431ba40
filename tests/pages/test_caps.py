"""Every page at its maximum settings: it runs, and no chart ships more than 1 MB."""

from __future__ import annotations

import pytest

from harness.caps import PAGES, at_max, largest_chart


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_at_its_maximum_settings(fresh_caches, name):
    page, extra = PAGES[name]
    at = at_max(page, extra)
    at.run()
    assert not at.exception
    assert not at.warning  # the maxima are all valid values
    assert largest_chart(at) < 1_000_000

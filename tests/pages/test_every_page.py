"""Every page in AppTest: it runs with no exception on defaults and after each preset, and
no chart ships more than 300 kB (at the caps the limit is 1 MB: test_caps.py)."""

from __future__ import annotations

import pytest
from helpers import ALL_PAGES, ANSWERS, GLOSSARY, click, open_page

from harness.caps import largest_chart

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.mark.parametrize("page", ALL_PAGES, ids=[p or "home" for p in ALL_PAGES])
@pytest.mark.parametrize("preset", [None, "Lesson", "Small", "GPT-2"])
def test_runs_on_defaults_and_every_preset(page, preset):
    at = open_page(page, ANSWERS.get(page))
    if preset:
        click(at, preset)
    assert not at.exception
    assert at.get("plotly_chart") or page == GLOSSARY  # the page's figures are drawn
    assert largest_chart(at) < 300_000

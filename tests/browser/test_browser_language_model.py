"""In Chromium: text typed for the Language model page that tries to be Markdown or HTML
stays text, as the browser draws it. What the page does with a text, a pick or a preset
is the server's work, checked in tests/server/test_visitor_sequences.py."""

from __future__ import annotations

from urllib.parse import urlencode

from browser import CHART_COUNTS, PAYLOADS, change_address, foreign, no_exception, open_page
from playwright.sync_api import expect

CHARTS = CHART_COUNTS["language_model"]


def test_text_that_looks_like_markdown_or_html_stays_text(server, browser, smollm_installed):
    """The first text arrives by a link opened cold, the others by the address changing in
    the open session (as Back or an edited link sends them): both are links."""
    requests: list[str] = []
    first = PAYLOADS[0]
    url = f"{server.url}/Language_model?{urlencode({'lm_text': first})}"
    page, reruns = open_page(browser, url, CHARTS, on_request=lambda r: requests.append(r.url))
    for payload in PAYLOADS:
        if payload != first:
            change_address(page, reruns, "?" + urlencode({"lm_text": payload}))
            expect(page.locator(".js-plotly-plot")).to_have_count(CHARTS)
        page.wait_for_timeout(300)  # time for any image to be fetched
        assert foreign(page) == {"links": [], "images": [], "red": 0}, payload
        no_exception(page)
    assert [r for r in requests if not r.startswith(server.url)] == []

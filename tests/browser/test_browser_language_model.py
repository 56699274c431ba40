"""In Chromium: the Language model page as a person uses it, against a real server.

Pick, then change what the pick depends on; press presets; share the link; type text
that tries to be Markdown or HTML.
"""

from __future__ import annotations

from urllib.parse import urlencode

from browser import (
    CHART_COUNTS,
    PAYLOADS,
    chosen,
    foreign,
    no_exception,
    open_page,
    pick,
    press,
    shows,
    type_into,
)
from playwright.sync_api import expect

CHARTS = CHART_COUNTS["language_model"]


def top_word(page) -> str:
    """The first bar's label of the next-token chart, as drawn."""
    chart = page.locator(".js-plotly-plot").first
    return chart.evaluate("gd => gd.data[0].y[0]")


def test_a_token_picked_then_a_shorter_text(server, browser, smollm_installed):
    page, reruns = open_page(browser, f"{server.url}/Language_model", CHARTS)
    pick(page, reruns, "token", "3: ␣France")
    type_into(page, reruns, "your text", "Hi")
    shows(page, "token 3: ␣France no longer exists in this text; showing 0: Hi.")
    assert chosen(page, "token") == "0: Hi"
    page.context.close()


def test_pushers_picked_then_a_preset_drops_the_neurons_that_are_gone(
    server, browser, smollm_installed
):
    page, reruns = open_page(browser, f"{server.url}/Language_model", CHARTS)
    press(page, reruns, "Pick the 5 strongest pushers")
    expect(page.locator(".js-plotly-plot")).to_have_count(CHARTS + 1)
    expect(page.get_by_text("went from 0.77 to")).to_be_visible()
    press(page, reruns, "Opposites")
    expect(page.get_by_text("no longer exist for this text; dropped.")).to_be_visible()
    no_exception(page)
    assert top_word(page) == "“␣cold”"
    page.context.close()


def test_a_preset_s_link_reopens_the_same_prediction(server, browser, smollm_installed):
    page, reruns = open_page(browser, f"{server.url}/Language_model", CHARTS)
    press(page, reruns, "Freezing")
    assert top_word(page) == "“␣Celsius”"
    assert "lm_text=Water+freezes" in page.url
    fresh, _ = open_page(browser, page.url, CHARTS)
    assert top_word(fresh) == "“␣Celsius”"
    no_exception(fresh)
    page.context.close()
    fresh.context.close()


def test_a_rewritten_fact_then_another_fact_asks_again(server, browser, smollm_installed):
    page, reruns = open_page(
        browser, f"{server.url}/Language_model?lm_fact=France%27s+capital", CHARTS
    )
    before = reruns.finished
    page.get_by_text("yes, unchanged").click()
    reruns.wait_for_more_than(before, page, timeout=60)
    expect(page.get_by_text("paraphrases follow it")).to_be_visible(timeout=60_000)
    pick(page, reruns, "fact", "The Eiffel Tower")
    expect(page.get_by_text("Make your guess above to see the answer.").last).to_be_visible()
    no_exception(page)
    page.context.close()


def test_text_that_looks_like_markdown_or_html_stays_text(server, browser, smollm_installed):
    requests: list[str] = []
    for payload in PAYLOADS:
        url = f"{server.url}/Language_model?{urlencode({'lm_text': payload})}"
        page, _ = open_page(browser, url, CHARTS, on_request=lambda r: requests.append(r.url))
        page.wait_for_timeout(300)  # time for any image to be fetched
        assert foreign(page) == {"links": [], "images": [], "red": 0}, payload
        no_exception(page)
        page.context.close()
    assert [r for r in requests if not r.startswith(server.url)] == []

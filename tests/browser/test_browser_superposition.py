"""In Chromium: the Superposition page as a person uses it, against a real server."""

from __future__ import annotations

from browser import CHART_COUNTS, no_exception, open_page, press
from playwright.sync_api import expect

CHARTS = CHART_COUNTS["superposition"]


def test_a_guess_then_the_dense_preset_then_its_link_which_asks_its_reader_again(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Superposition", CHARTS)
    before = reruns.finished
    page.get_by_text("5", exact=True).first.click()
    reruns.wait_for_more_than(before, page, timeout=60)
    expect(page.get_by_text("the model keeps 5 of 5 features")).to_be_visible(timeout=30_000)
    expect(page.locator(".js-plotly-plot")).to_have_count(CHARTS + 2)
    press(page, reruns, "Dense")
    expect(page.get_by_text("At 0% zeros and importance 0.7^i, how many")).to_be_visible()
    before = reruns.finished  # a new setting asks again
    kept = page.get_by_role("radiogroup", name="how many of the five features")
    kept.get_by_text("2", exact=True).click()
    reruns.wait_for_more_than(before, page, timeout=60)
    expect(
        page.get_by_text("At 0% zeros and importance 0.7^i the model keeps 2 of 5")
    ).to_be_visible(timeout=30_000)
    # The link shares the view and not the guess: its reader predicts before the answer.
    assert "sp_sparsity=0%25" in page.url and "guess" not in page.url
    fresh, _ = open_page(browser, page.url, CHARTS)
    expect(fresh.get_by_text("Make your guess above to see the answer.").first).to_be_visible()
    expect(fresh.get_by_text("the model keeps 2 of 5 features")).to_have_count(0)
    no_exception(fresh)
    page.context.close()
    fresh.context.close()

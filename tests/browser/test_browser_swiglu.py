"""In Chromium: SwiGLU as the sidebar's FFN, page after page of the path, as a learner
goes through them by the menu: each page draws its figures with no exception, and
Collapse draws the square law once its question is answered. What each page computes
is read back in tests/pages/test_swiglu.py.

With FFN_SCREENSHOTS=1 each page is also saved at 1280 × 800, then again in presenter
mode at 1024 × 768, for a person to look at.
"""

from __future__ import annotations

from browser import (
    PROJECTOR,
    SCREENSHOTS,
    TITLE,
    change_address,
    close_sidebar,
    go_to,
    no_exception,
    open_page,
    open_sidebar,
    resize,
    screenshot,
)
from playwright.sync_api import expect

# The menu's label of each toy page, and a text its SwiGLU version shows.
PAGES = {
    "Key–value memory": "writes silu(gate) · up times its value",
    "Neurons": "look at its size |silu(gate) · up|",
    "Collapse": "Take SiLU out of SwiGLU",
    "Position-wise": "so T = 1.5 × d_ff",
    "Traps": "section 3 runs the sidebar's SwiGLU",
    "Backprop & gradient check": "at the product the gradient splits in two",
    "Activations": "SwiGLU's row passes silu(gate) · up",
    "Scale & cost": "SwiGLU's three matrices, per token",
    "Mixture of experts": "SwiGLU experts, as Mixtral's",
    "Memory lab": "it bends with SiLU",
}


def visit(page, reruns, label: str, shown: str, name: str) -> None:
    go_to(page, reruns, label)
    expect(page.locator(TITLE).first).to_contain_text(label.split(" ")[0])
    expect(page.get_by_text(shown).first).to_be_attached()
    no_exception(page)
    screenshot(page, name)


def test_every_toy_page_runs_swiglu_from_the_menu(server, browser):
    page, reruns = open_page(browser, f"{server.url}/?act=SwiGLU", charts=None)
    for label, shown in PAGES.items():
        visit(page, reruns, label, shown, f"swiglu-{label.split(' ')[0].lower()}-desktop")
        if label == "Collapse":  # its figure waits for the prediction
            before = reruns.finished
            page.get_by_role("radiogroup").filter(
                has_text="one d_model × d_model matrix"
            ).get_by_text("no", exact=True).click()
            reruns.wait_for_more_than(before, page, timeout=60)
            chart = page.locator(".js-plotly-plot", has_text="against its best single matrix")
            expect(chart).to_have_count(1)
            screenshot(page, "swiglu-collapse-answered-desktop")
    if not SCREENSHOTS:
        return
    resize(page, PROJECTOR)
    change_address(page, reruns, "?act=SwiGLU&presenter=true")
    for label, shown in PAGES.items():
        open_sidebar(page)
        visit(page, reruns, label, shown, f"swiglu-{label.split(' ')[0].lower()}-projector")
        close_sidebar(page)
        screenshot(page, f"swiglu-{label.split(' ')[0].lower()}-projector-first", whole=False)

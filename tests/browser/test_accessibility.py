"""The two Streamlit constructs the app avoids fail axe-core on a minimal page of plain
Streamlit: a sectioned menu and a disabled widget. If Streamlit fixes one, this test says
so, and the app may use it again.

Every page of the app is checked whole in `test_browser.py`, as it loads cold by its own
link: desktop and phone, default and presenter mode, nothing left out.
"""

from __future__ import annotations

from pathlib import Path

from accessibility import failures, streamlits_own
from browser import open_page

from harness.server import AppServer


def test_a_sectioned_menu_and_a_disabled_widget_fail_on_a_minimal_streamlit_page(browser):
    app = AppServer("minimal-a11y", str(Path(__file__).with_name("streamlit_only_app.py")))
    app.start()
    try:
        page, _ = open_page(browser, app.url, charts=0)
        page.get_by_text("a disabled slider").wait_for()  # drawn a moment after the run
        page.locator('[data-testid="stSidebarNav"] li').first.wait_for()
        found = failures(page)
        page.close()
    finally:
        app.stop()
    rules = {(f["rule"], streamlits_own(f)) for f in found}
    # both kinds are there, and nothing else
    assert rules == {("list", True), ("listitem", True), ("color-contrast", True)}
    (label,) = [f for f in found if f["rule"] == "color-contrast"]
    assert "a disabled slider" in label["html"]

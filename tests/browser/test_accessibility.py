"""What axe-core leaves out is Streamlit's own: its two kinds fail on a minimal page too.

Every page of the app is checked in `test_browser.py`, as it loads cold by its own link:
desktop and phone, default and presenter mode.
"""

from __future__ import annotations

from pathlib import Path

from accessibility import failures, streamlits_own
from browser import open_page

from harness.server import AppServer


def test_the_failures_left_out_happen_on_a_minimal_streamlit_page(browser):
    app = AppServer("minimal-a11y", str(Path(__file__).with_name("streamlit_only_app.py")))
    app.start()
    try:
        page, _ = open_page(browser, app.url, charts=0)
        found = failures(page)
        page.close()
    finally:
        app.stop()
    rules = {(f["rule"], streamlits_own(f)) for f in found}
    # both kinds are there, and nothing else: if Streamlit fixes one, drop its exception
    assert rules == {("list", True), ("listitem", True), ("color-contrast", True)}
    (label,) = [f for f in found if f["rule"] == "color-contrast"]
    assert "a disabled slider" in label["html"]

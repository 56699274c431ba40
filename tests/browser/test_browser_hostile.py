"""In Chromium: what a hostile visitor sends through a link or an upload is shown as text.

A shared link's value once rendered as Markdown in every viewer's page: a phishing link
inside the app's own warning, an image that reported each viewer's address to an outside
server, styled spoof text. And one JSON upload took the server 1.6 GB.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from browser import PAYLOADS, change_address, foreign, open_page, server_log_tail
from playwright.sync_api import expect

from harness.server import AppServer

# Each page and the bound key a payload travels in.
WHERE = [
    ("Neurons", "act"),  # a select box
    ("Activations", "curves"),  # pills, several chosen
    ("Backprop", "dout"),  # typed text, with ?loss=typed in
    ("Collapse", "task"),
]


@pytest.mark.parametrize(("path", "key"), WHERE)
def test_a_link_value_is_shown_as_text_and_loads_nothing_from_outside(server, browser, path, key):
    """The first payload arrives by a link opened cold, the others by the address changing
    in the open session (as Back or an edited link sends them): both are links."""
    extra = {"loss": "typed in"} if key == "dout" else {}
    requests: list[str] = []
    first, *others = PAYLOADS
    url = f"{server.url}/{path}?{urlencode({key: first, **extra})}"
    page, reruns = open_page(browser, url, None, on_request=lambda r: requests.append(r.url))
    for payload in [first, *others]:
        if payload != first:
            change_address(page, reruns, "?" + urlencode({key: payload, **extra}))
        expect(page.locator('[data-testid="stAlert"]').first).to_be_visible(timeout=20_000)
        page.wait_for_timeout(300)  # time for any image to be fetched
        found = foreign(page)
        outside = [r for r in requests if not r.startswith(server.url)]
        assert found == {"links": [], "images": [], "red": 0}, (path, key, payload, found)
        assert outside == [], (path, key, payload, outside)
        assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_an_upload_named_as_a_link_is_named_as_text(server, browser, tmp_path):
    name = "[Log in](https:evil.example) ![i](https:evil.example).json"
    bad = tmp_path / name
    bad.write_text("{}")
    page, reruns = open_page(browser, f"{server.url}/Neurons", charts=None)
    before = reruns.finished
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(bad))
    reruns.wait_for_more_than(before, page)
    note = page.locator('[data-testid="stAlert"]', has_text="was not loaded")
    expect(note).to_contain_text(f"{name} was not loaded: missing W1, b1, W2, b2")
    assert foreign(page)["links"] == [] and foreign(page)["images"] == []
    page.close()


@pytest.fixture(scope="module")
def quiet_server():
    """A server of its own, so that only the uploads run on it while they are measured."""
    app = AppServer("uploads")
    app.start()
    try:
        yield app
    finally:
        app.stop()


def upload_and_measure(app, browser, path) -> tuple[float, float, str]:
    """(server CPU s, server memory grown MB, the page's notes) of uploading one file."""
    page, _ = open_page(browser, f"{app.url}/Neurons", charts=None)
    page.wait_for_timeout(500)
    cpu, rss = app.cpu_seconds(), app.memory_mb()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.wait_for_timeout(3000)  # a refused file starts no run; an accepted one finishes
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    used, grown = app.cpu_seconds() - cpu, app.memory_mb("VmHWM") - rss
    notes = " | ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    notes += " | " + page.locator('[data-testid="stFileUploader"]').inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()
    return used, grown, notes


def test_a_49_mb_json_is_refused_without_costing_the_server(quiet_server, browser, tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_bytes(b'{"W1": [' + b"[1]," * 12_249_980 + b"[1]]}")
    assert huge.stat().st_size > 48_999_900
    used, grown, notes = upload_and_measure(quiet_server, browser, huge)
    print(f"49 MB JSON: {used:.2f} s of server CPU, {grown:.0f} MB")
    assert used < 3 and grown < 300, (used, grown, server_log_tail(quiet_server))
    assert "File must be 8.0MB or smaller." in notes  # the browser refuses it: one limit


def test_the_worst_json_under_the_limit_is_refused_cheaply(quiet_server, browser, tmp_path):
    worst = tmp_path / "worst.json"
    worst.write_bytes(b'{"W1": [' + b"[1]," * 1_999_990 + b"[1]]}")
    assert worst.stat().st_size < 8_000_000
    used, grown, notes = upload_and_measure(quiet_server, browser, worst)
    print(f"worst JSON under the limit: {used:.2f} s of server CPU, {grown:.0f} MB")
    assert used < 3 and grown < 300, (used, grown)
    assert "worst.json was not loaded: the JSON lists about 1,999,990 values" in notes


def test_a_good_json_upload_still_loads(quiet_server, browser, tmp_path):
    good = tmp_path / "good.json"
    weights = {"W1": [[1.0, -1.0]], "b1": [0.0, 0.0], "W2": [[1.0], [2.0]], "b2": [0.5]}
    good.write_text(json.dumps(weights))
    _, _, notes = upload_and_measure(quiet_server, browser, good)
    assert "Loaded good.json: d_model 1, d_ff 2." in notes

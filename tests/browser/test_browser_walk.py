"""In Chromium: any sequence of clicks, links and edits keeps every page working.

AppTest cannot see this class of failure: a widget bound to the URL behaves differently in
a real session (see browser.py). So these tests act as a person would, in a real browser
against a real server: a seeded random walk on every page and across pages, the sequences
that once crashed a page, and a bad address value typed into a session that already exists.
"""

from __future__ import annotations

import random
from urllib.parse import parse_qsl, urlencode

import pytest
from browser import (
    PAGES,
    change_address,
    chosen,
    go_to,
    open_page,
    pick,
    press,
    server_log_tail,
    set_number,
    shows,
    sidebar_links,
    type_into,
)
from browser import screenshot as save_screenshot
from helpers import ALL_PAGES, GLOSSARY, bound_keys
from playwright.sync_api import expect
from walk import Walker

from harness.caps import split_guesses, url_path

# Random actions per page: the protocol walk (tests/server/test_protocol_walk.py) takes 40
# on every page; this one looks for what only a browser shows, at a browser's cost.
STEPS = 6
ROUNDS = 8  # page switches in the walk across pages
PER_PAGE = 3  # random actions after each switch


def check(walker: Walker, server, where: str, seed: int) -> None:
    """Fail with the trail of actions, the seed to replay it and the server's last words."""
    errors = walker.exceptions()
    if errors:
        trail = "\n  ".join(walker.trail)
        pytest.fail(
            f"{where}, seed {seed}: an exception after\n  {trail}\n\n{errors[0]}\n\n"
            f"server log:\n{server_log_tail(server)}"
        )


@pytest.mark.parametrize("name", list(PAGES))
def test_a_random_walk_on_each_page_never_shows_an_exception(server, browser, name, walk_seed):
    page, reruns = open_page(browser, f"{server.url}/{PAGES[name]}", charts=None)
    walker = Walker(page, reruns, random.Random(f"{walk_seed}:{name}"))
    for _ in range(STEPS):
        walker.step()
        check(walker, server, f"/{PAGES[name]}", walk_seed)
    assert len(walker.trail) == STEPS
    print(f"/{PAGES[name]}, seed {walk_seed}:", *walker.trail, sep="\n  ")  # shown with -s
    page.context.close()


def test_a_random_walk_across_pages_carries_state_and_never_shows_an_exception(
    server, browser, walk_seed
):
    page, reruns = open_page(browser, server.url, charts=None)
    rng = random.Random(f"{walk_seed}:across")
    walker = Walker(page, reruns, rng)
    for _ in range(ROUNDS):
        links = sidebar_links(page)
        link = rng.choice(links)
        walker.trail.append(f"sidebar: {link.inner_text()!r}")
        before = reruns.finished
        link.click()
        reruns.wait_for_more_than(before, page, timeout=90)
        check(walker, server, "across pages", walk_seed)
        for _ in range(PER_PAGE):
            walker.step()
            check(walker, server, "across pages", walk_seed)
    page.context.close()


# The sequences that crashed a page before: pick something, then change what it depends on.


def test_a_token_picked_then_the_lesson_preset(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Key_value_memory", charts=None)
    pick(page, reruns, "token", "3: sat")
    press(page, reruns, "Lesson")
    shows(page, "token 3: sat no longer exists now that there is 1 token; showing 1: t1.")
    assert chosen(page, "token") == "1: t1"
    assert "tok=" not in page.url
    page.context.close()


def test_a_token_picked_then_a_shorter_sentence(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Neurons", charts=None)
    pick(page, reruns, "token", "6: mat")
    type_into(page, reruns, "sentence", "hello world")
    shows(page, "token 6: mat no longer exists now that there are 2 tokens; showing 1: hello.")
    assert chosen(page, "token") == "1: hello"
    save_screenshot(page, "neurons-token-gone-desktop")
    page.context.close()


def test_a_token_picked_then_a_new_sentence_keeps_its_position(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Neurons", charts=None)
    pick(page, reruns, "token", "3: sat")
    type_into(page, reruns, "sentence", "a dog ran home")
    expect(page.get_by_role("combobox", name="token", exact=True)).to_be_visible()
    assert chosen(page, "token") == "3: ran"
    assert page.locator('[data-testid="stException"]').count() == 0
    page.context.close()


def test_a_neuron_picked_then_a_smaller_d_ff(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Neurons", charts=None)
    pick(page, reruns, "neuron", "n16")
    set_number(page, reruns, "d_ff", 8)
    shows(page, "neuron n16 no longer exists now that d_ff = 8; showing n1.")
    assert chosen(page, "neuron") == "n1"
    page.context.close()


def test_a_real_model_token_picked_then_a_shorter_sentence(server, browser, minilm):
    page, reruns = open_page(browser, f"{server.url}/Real_model", charts=None)
    pick(page, reruns, "token", "8: [SEP]")
    type_into(page, reruns, "your sentence", "Hi there.")
    shows(page, "token 8: [SEP] no longer exists in this sentence; showing 2: there.")
    page.context.close()


def test_a_tiny_d_ff_a_long_sentence_then_the_small_preset_elsewhere(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Neurons", charts=None)
    set_number(page, reruns, "d_ff", 1)
    type_into(page, reruns, "sentence", "one two three four five six seven eight nine ten")
    pick(page, reruns, "token", "10: ten")
    go_to(page, reruns, "Key–value memory")
    press(page, reruns, "Small")
    expect(page.get_by_role("spinbutton", name="d_ff", exact=True)).to_have_value("16")
    assert chosen(page, "token") == "10: ten"  # the sentence did not change, so neither did it
    expect(page.locator('[data-testid="stException"]')).to_have_count(0)
    page.context.close()


def test_key_value_scale_starts_at_1_for_each_new_neuron(server, browser):
    page, reruns = open_page(browser, f"{server.url}/Key_value_memory?neuron=n3&scale=2.0", None)
    slider = page.get_by_role("slider", name="scale n3 by")
    assert slider.get_attribute("aria-valuetext") == "2.00"  # a link reproduces its scale
    pick(page, reruns, "neuron", "n5")
    expect(page.get_by_role("slider", name="scale n5 by")).to_have_attribute(
        "aria-valuetext", "1.00"
    )
    assert "scale=" not in page.url
    page.context.close()


# A bad value typed into the address of a session that already exists. The browser keeps
# the session when only the history changes (back, forward, or a pushed address), so this
# is what a visitor editing a link in place or pressing Back sends.


def bad_value(rule: tuple) -> str:
    kind = rule[0]
    if kind == "number":
        return "inf" if rule[3] else "abc"  # inf once crashed whole-number inputs
    if kind == "choice":
        return "nope"
    if kind == "bool":
        return "maybe"
    return "x" * (rule[1] + 10)  # text


def alerts(page) -> str:
    """The page's notes, after checking that it shows no exception."""
    errors = page.locator('[data-testid="stException"]').all_inner_texts()
    assert not errors, (page.url, errors)
    return " | ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())


@pytest.mark.parametrize("page_file", [page for page in ALL_PAGES if page != GLOSSARY])
def test_a_bad_address_value_in_an_open_session_gets_a_note_for_every_bound_key(
    server, browser, page_file
):
    """A page's keys all turn bad in one address change; each must get its own note. Keys
    drawn only when the others are good (below a question, say) turn bad again after."""
    groups = {variant: keys for (page, variant), keys in bound_keys().items() if page == page_file}
    assert groups, f"{page_file} binds no setting to the address"
    for variant, keys in groups.items():
        query, guesses = split_guesses(urlencode(dict(variant)))
        settings = dict(parse_qsl(query))
        path = f"/{url_path(page_file)}"
        page, reruns = open_page(browser, f"{server.url}{path}?{query}", None)
        for key, answer in guesses:  # a guess rides in no link: answered by a click
            before = reruns.finished
            page.locator(f".st-key-{key}").get_by_text(answer, exact=True).click()
            reruns.wait_for_more_than(before, page, timeout=60)
        bad = {key: bad_value(rule) for key, rule in keys}
        change_address(page, reruns, "?" + urlencode({**settings, **bad}))
        notes = alerts(page)
        missed = [key for key in bad if f"address set {key} to" not in notes]
        while missed:  # drawn only when the others are good (below a question): again
            change_address(
                page, reruns, "?" + urlencode({**settings, **{k: bad[k] for k in missed}})
            )
            notes += alerts(page)
            still = [key for key in missed if f"address set {key} to" not in notes]
            assert len(still) < len(missed), (path, "never noted", still, notes)
            missed = still
        for key, raw in bad.items():
            assert f"address set {key} to" in notes, (path, key, raw, notes)
        if "d_model" in bad:
            save_screenshot(page, "neurons-bad-address-desktop")
        page.context.close()


def test_the_pages_bind_at_least_45_settings_to_the_address():
    """What the test above covers, page by page: every bound key, once."""
    assert sum(len(keys) for keys in bound_keys().values()) >= 45

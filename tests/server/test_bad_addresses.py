"""A bad value typed into the address of a session that already exists, spoken in
Streamlit's protocol.

The browser keeps its session when only the history changes (Back, Forward, or a link
edited in place): it sends the new query string, marked as history navigation, and no
control's value. A bound control then reads the address again, and a value it cannot
show must become a note in the learner's words, never an exception. That is the
server's work, so a protocol session checks it on every page, at a fraction of
Chromium's cost; tests/browser/test_browser_hostile.py sends such addresses from
Chromium's own address bar.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import pytest
from helpers import ALL_PAGES, GLOSSARY, bound_keys

from harness.caps import split_guesses, url_path
from harness.class_protocol import Participant


def bad_value(rule: tuple) -> str:
    kind = rule[0]
    if kind == "number":
        return "inf" if rule[3] else "abc"  # inf once crashed whole-number inputs
    if kind == "choice":
        return "nope"
    if kind == "bool":
        return "maybe"
    return "x" * (rule[1] + 10)  # text


def notes_of(visitor: Participant, where: str) -> str:
    """The page's notes, after checking that its last run raised nothing."""
    errors = [e for seen in [visitor.shown, *visitor.fragments.values()] for e in seen.exceptions]
    assert not errors, (where, errors)
    return " | ".join(visitor.notes)


@pytest.mark.parametrize("page_file", [page for page in ALL_PAGES if page != GLOSSARY])
def test_a_bad_address_value_in_an_open_session_gets_a_note_for_every_bound_key(server, page_file):
    """A page's keys all turn bad in one address change; each must get its own note. Keys
    drawn only when the others are good (below a question, say) turn bad again after."""
    groups = {variant: keys for (page, variant), keys in bound_keys().items() if page == page_file}
    assert groups, f"{page_file} binds no setting to the address"
    path = url_path(page_file)
    for variant, keys in groups.items():
        query, guesses = split_guesses(urlencode(dict(variant)))
        settings = dict(parse_qsl(query))
        with Participant(server.port, query, path) as visitor:
            assert not visitor.shown.exceptions, (path, visitor.shown.exceptions)
            for key, answer in guesses:  # a guess rides in no link: answered by a click
                visitor.choose(key, answer)
            bad = {key: bad_value(rule) for key, rule in keys}
            visitor.history(urlencode({**settings, **bad}))
            notes = notes_of(visitor, path)
            missed = [key for key in bad if f"address set {key} to" not in notes]
            while missed:  # drawn only when the others are good (below a question): again
                visitor.history(urlencode({**settings, **{k: bad[k] for k in missed}}))
                notes += notes_of(visitor, path)
                still = [key for key in missed if f"address set {key} to" not in notes]
                assert len(still) < len(missed), (path, "never noted", still, notes)
                missed = still
            for key, raw in bad.items():
                assert f"address set {key} to" in notes, (path, key, raw, notes)


def test_the_pages_bind_at_least_45_settings_to_the_address():
    """What the test above covers, page by page: every bound key, once."""
    assert sum(len(keys) for keys in bound_keys().values()) >= 45


LONG_NUMBERS = ["9" * 310, "-" + "9" * 310, "1e999", "nan", "-0"]


@pytest.mark.parametrize("raw", LONG_NUMBERS, ids=["310 nines", "-310 nines", "1e999", "nan", "-0"])
def test_a_session_keeping_a_long_number_in_every_key_visits_every_page(server, raw):
    """A 310-digit number once crashed every page (OverflowError in math.isfinite), and a
    session that kept the address crashed on every page it opened: every numeric key of
    every page carries `raw` in one link, and the session walks the whole menu."""
    numeric = {key for group in bound_keys().values() for key, rule in group if rule[0] == "number"}
    link = urlencode(dict.fromkeys(sorted(numeric), raw))
    with Participant(server.port, link) as visitor:
        notes_of(visitor, "Home")
        for path in visitor.shown.pages:
            visitor.go(path)
            notes_of(visitor, path or "Home")
            assert visitor.shown.headings, (path, "drew nothing")

"""Every URL-bound control on every page, fed malformed and out-of-range values.

The keys come from the pages themselves (helpers.bound_keys), so a new control is fuzzed
without touching this file. A page's keys are fuzzed together: one run per bad value
carries it in every key at once, and each key must get its own note. A key that such a
run did not draw (an accepted value elsewhere changed the page) is tried again alone.
"""

from __future__ import annotations

import math

import pytest
from helpers import (
    ALL_PAGES,
    BUILD_IT,
    GLOSSARY,
    LANGUAGE_MODEL,
    NEURONS,
    TRAPS,
    bound_keys,
    link_noted,
    open_page,
    warnings_text,
)

from ffn_ui.controls.url import REGISTRY_KEY

# Values a link may hold; the long numbers once crashed every page (OverflowError).
FUZZ = ["", "abc", "nan", "inf", "-1", "1e308", "3.5", "x" * 400]
FUZZ += ["9" * 310, "-" + "9" * 310, "1e999", "-0"]

pytestmark = pytest.mark.usefixtures("fresh_caches")


def accepts(rule: tuple, raw: str) -> bool:
    """Whether a value is usable, decided from the rule alone."""
    kind = rule[0]
    if kind == "number":
        _, low, high, integer = rule
        try:
            value = int(raw) if integer else float(raw)
        except ValueError:
            return False
        return (integer or math.isfinite(value)) and low <= value <= high
    if kind == "choice":
        return raw in rule[1]
    if kind == "bool":
        return raw.lower() in ("true", "false")
    return len(raw) <= rule[1]  # text


def edge_values(rule: tuple) -> list[str]:
    """Values just outside what a rule accepts: one past each bound, a choice in the wrong
    case, a yes for a true, a text one character too long."""
    kind = rule[0]
    if kind == "number":
        _, low, high, integer = rule
        step = 1 if integer else 0.5
        return [f"{low - step:g}", f"{high + step:g}"] + (["1.5"] if integer else [])
    if kind == "choice":
        swapped = str(rule[1][0]).swapcase()
        return ["nope"] + ([swapped] if swapped not in rule[1] else [])
    if kind == "bool":
        return ["maybe", "yes", "1"]
    return ["x" * (rule[1] + 1)]


def check(at, keys: list[tuple[str, tuple]], values: dict[str, str]) -> list[str]:
    """Assert each drawn key's note; return the keys this run did not draw."""
    assert not at.exception, values
    drawn = at.session_state[REGISTRY_KEY]
    text = warnings_text(at)
    missed = []
    for key, rule in keys:
        if key not in drawn:
            missed.append(key)
            continue
        raw = values[key]
        assert link_noted(text, key, raw) == (not accepts(rule, raw)), (key, raw, text)
    return missed


@pytest.mark.parametrize("page", [p for p in ALL_PAGES if p != GLOSSARY], ids=str)
def test_malformed_link_values_fall_back_with_a_note_and_never_raise(page):
    groups = [(s, keys) for (p, s), keys in bound_keys().items() if p == page]
    assert groups, f"{page} draws no bound control of its own"  # the Glossary has none
    for settings, keys in groups:
        rules = dict(keys)
        trials = [{key: raw for key in rules} for raw in FUZZ]
        longest = max(len(edge_values(rule)) for rule in rules.values())
        for i in range(longest):  # the i-th edge value of every key, in one run
            edges = {key: edge_values(rule) for key, rule in rules.items()}
            trials.append({key: vals[i % len(vals)] for key, vals in edges.items()})
        for values in trials:
            at = open_page(page, {**dict(settings), **values})
            # Traps draws after a guess; the Language model asks for text when given none.
            empty_prompt = page == LANGUAGE_MODEL and values.get("lm_text") == ""
            assert at.get("plotly_chart") or page in (TRAPS, BUILD_IT) or empty_prompt
            missed = check(at, keys, values)
            while missed:  # drawn only when the others are good (below a question): again
                again = {key: values[key] for key in missed}
                at = open_page(page, {**dict(settings), **again})
                still = check(at, [(key, rules[key]) for key in missed], again)
                assert len(still) < len(missed), ("never drawn", still)
                missed = still


@pytest.mark.parametrize(("key", "default"), [("d_model", 4), ("d_ff", 16), ("T", 6), ("seed", 0)])
def test_bad_numbers_fall_back_to_the_default(key, default):
    at = open_page(NEURONS, {key: "-5", "tokens": "random"})
    assert at.sidebar.number_input(key=key).value == default


def test_good_values_get_no_note():
    query = {
        "d_model": "8",
        "d_ff": "32",
        "act": "GELU",
        "seed": "3",
        "init": "Xavier",
        "tokens": "random",
        "T": "9",
        "view": "pre-activation",
        "thr": "0.2",
    }
    at = open_page(NEURONS, query)
    assert not at.exception
    assert warnings_text(at) == ""
    assert at.sidebar.number_input(key="d_model").value == 8
    assert at.sidebar.selectbox(key="act").value == "GELU"


def test_every_page_registers_its_bound_controls():
    keys = {key for group in bound_keys().values() for key, _ in group}
    assert {
        "d_model",
        "d_ff",
        "act",
        "presenter",
        "view",
        "off",
        "curves",
        "task",
        "ptok",
        "eps",
        "D",
        "cost_model",
        "E",
        "T",
        "dout",
    } <= keys
    assert len(keys) >= 40

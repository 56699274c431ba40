"""Every URL-bound control on every page, fed malformed values.

The list of bound keys comes from the pages themselves (each bound control registers its
key and rule as it is drawn), so a new control is fuzzed without touching this file.
"""

from __future__ import annotations

import math

import pytest
import streamlit as st
from helpers import ALL_PAGES, ANSWERS, link_noted, open_page, warnings_text

from ffn_ui.url import REGISTRY_KEY

FUZZ = ["", "abc", "nan", "inf", "-1", "1e308", "3.5", "x" * 400]


def accepts(rule: tuple, raw: str) -> bool:
    """Whether a value is usable, decided from the rule alone."""
    kind = rule[0]
    if kind == "number":
        _, low, high, integer = rule
        try:
            value = int(raw) if integer else float(raw)
        except ValueError:
            return False
        return math.isfinite(value) and low <= value <= high
    if kind == "choice":
        return raw in rule[1]
    if kind == "bool":
        return raw.lower() in ("true", "false")
    return len(raw) <= rule[1]  # text


# Settings under which a page draws controls it hides at its defaults.
VARIANTS = [{}, {"tokens": "random"}, {"loss": "typed in"}]


def cases() -> list[tuple[str | None, dict, str, tuple]]:
    """(page, settings, key, rule) for every bound key, each on the first page that draws it."""
    st.cache_data.clear()
    st.cache_resource.clear()
    seen: dict[str, tuple] = {}
    found = []
    for variant in VARIANTS:
        for page in ALL_PAGES:
            settings = {**ANSWERS.get(page, {}), **variant}  # every question answered
            rules = open_page(page, settings).session_state[REGISTRY_KEY]
            for key, rule in rules.items():
                if key not in seen and rule[0] != "derived":
                    seen[key] = rule
                    found.append((page, settings, key, rule))
    return found


CASES = cases()


def test_every_page_registers_its_bound_controls():
    keys = {key for _, _, key, _ in CASES}
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


@pytest.mark.parametrize(("page", "variant", "key", "rule"), CASES, ids=[c[2] for c in CASES])
def test_fuzzed_values_fall_back_with_a_note_and_never_raise(page, variant, key, rule):
    for raw in FUZZ:
        at = open_page(page, {**variant, key: raw})
        assert not at.exception, (key, raw)
        text = warnings_text(at)
        noted = link_noted(text, key, raw)
        assert noted == (not accepts(rule, raw)), (key, raw, text)


@pytest.mark.parametrize("page", ALL_PAGES)
def test_unknown_and_repeated_parameters_are_harmless(page):
    at = open_page(page, {"no_such_control": "1", "d_model": ["5", "6"]})
    assert not at.exception
    assert at.sidebar.number_input(key="d_model").value == 6  # the last value wins

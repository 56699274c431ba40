"""Every page in AppTest: it runs with no exception on defaults and after each preset, no
chart ships more than 300 kB (at the caps the limit is 1 MB: test_caps.py), and every chart
is followed by the figure in numbers."""

from __future__ import annotations

import pytest
from helpers import (
    ALL_PAGES,
    ANSWERS,
    BUILD_IT,
    GLOSSARY,
    LANGUAGE_MODEL,
    REAL_MODEL,
    click,
    open_page,
)

from ffn_ui.page.display import IN_NUMBERS
from harness.caps import largest_chart

pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.mark.parametrize("page", ALL_PAGES, ids=[p or "home" for p in ALL_PAGES])
@pytest.mark.parametrize("preset", [None, "Lesson", "Small", "GPT-2"])
def test_runs_on_defaults_and_every_preset(page, preset):
    at = open_page(page, ANSWERS.get(page))
    if preset:
        click(at, preset)
    assert not at.exception
    # the page's figures are drawn; Build it draws its one figure, the learner's own
    # gradient check, once every line is typed right (tests/pages/test_build_it.py)
    assert at.get("plotly_chart") or page in (GLOSSARY, BUILD_IT)
    assert largest_chart(at) < 300_000


TOY_PAGES = [p for p in ALL_PAGES if p not in (GLOSSARY, REAL_MODEL, LANGUAGE_MODEL)]


@pytest.mark.parametrize("page", TOY_PAGES, ids=[p or "home" for p in TOY_PAGES])
def test_every_toy_page_runs_on_squared_relu_with_its_questions_answered(page):
    """Squared ReLU, added as one record, reaches every page that runs the sidebar's toy."""
    at = open_page(page, {**ANSWERS.get(page, {}), "act": "Squared ReLU"})
    assert not at.exception
    assert at.sidebar.selectbox(key="act").value == "Squared ReLU"
    assert at.get("plotly_chart")


def figure_and_words(node, found: list[tuple[str, str]]) -> None:
    """Charts and the texts in the order the page shows them, depth first."""
    for child in getattr(node, "children", {}).values():
        if child.type == "plotly_chart":
            found.append(("chart", ""))
        elif child.type == "text":
            found.append(("text", child.value))
        else:
            figure_and_words(child, found)


@pytest.mark.parametrize("page", ALL_PAGES, ids=[p or "home" for p in ALL_PAGES])
def test_every_chart_is_followed_by_the_figure_in_numbers(page):
    at = open_page(page, ANSWERS.get(page))
    found: list[tuple[str, str]] = []
    figure_and_words(at.main, found)
    charts = [k for k, (kind, _) in enumerate(found) if kind == "chart"]
    assert len(charts) == len(at.get("plotly_chart"))
    for k in charts:
        kind, words = found[k + 1]
        assert kind == "text" and words.startswith(IN_NUMBERS)
        assert len(words) > len(IN_NUMBERS) + 20  # some numbers, not an empty line


@pytest.mark.parametrize("page", [p for p in ALL_PAGES if p != GLOSSARY], ids=str)
def test_no_page_points_to_a_lesson_the_learner_never_saw(page):
    """Only the Glossary names the two lessons the app was built from, and says what they
    are; elsewhere a page speaks of what the learner can see."""
    at = open_page(page, ANSWERS.get(page))
    said = " ".join(
        [
            *(e.value for e in [*at.markdown, *at.caption, *at.info, *at.success, *at.error]),
            *(b.label for b in at.button),
        ]
    ).lower()
    for phrase in ("the lesson's", "lesson 000", "by-hand lesson", "the lesson "):
        assert phrase not in said, phrase


def test_the_glossary_says_each_activation_as_the_core_keeps_it():
    """Each bend's entry is its record's formula and words: Squared ReLU's among them."""
    from ffn_core.activations import ACTIVATIONS

    text = " ".join(m.value for m in open_page(GLOSSARY).markdown)
    for act in ACTIVATIONS.values():
        if act.bends:
            assert f"**{act.label}**: {act.formula}" in text
    assert "**Squared ReLU**: max(0, z)²" in text and "Primer" in text

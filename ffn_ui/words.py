"""Numbers, lists and quoted text as a page writes them: the one place for how a number
is rounded, a list is cut, a count takes its plural and a visitor's text is quoted
safely. Pure functions of their arguments, below every other part of ffn_ui: figures,
controls and pages all read them."""

from __future__ import annotations

MOST = 6  # items a list names before it says how many more there are
SHOWN_CHARS = 60  # a quoted value is cut here: a note stays one line


def number(value: float) -> str:
    """3 significant digits (a count of thousands in full, 5,770, not 5.77e+03), and a real
    minus sign, which screen readers say as "minus"."""
    value = float(value)
    if value == 0:
        return "0"
    if 1000 <= abs(value) < 1e15:
        text = f"{float(f'{value:.3g}'):,.0f}"
    else:
        text = f"{value:.3g}"
    return text.replace("-", "−")


def listed(items: list[str]) -> str:
    """'a, b, c' or 'a, b, c and 4 more'."""
    shown = ", ".join(items[:MOST])
    return shown if len(items) <= MOST else f"{shown} and {len(items) - MOST} more"


def count(n: int, noun: str, title: str = "") -> str:
    """A count and its noun, with the axis's title if it has one: 1 row, 5 rows (token)."""
    text = f"{n} {noun}" if n == 1 else f"{n} {noun}s"
    return f"{text} ({title})" if title else text


def literal(value: object) -> str:
    """`value` as Markdown that shows its characters and nothing else: no link, no image.

    A code span renders no Markdown inside it. Its fence is one backtick longer than any
    run of backticks in the text, so the text cannot close it early.
    """
    text = str(value)
    if len(text) > SHOWN_CHARS:
        text = text[:SHOWN_CHARS] + "…"
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if not text.strip():
        return "(empty)" if not text else f"({len(text)} spaces)"
    runs = [len(r) for r in "".join(c if c == "`" else " " for c in text).split()]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def sentence_start(text: str) -> str:
    """A text as it reads starting a sentence: "the gate is shut" -> "The gate is shut"."""
    return text[:1].upper() + text[1:]

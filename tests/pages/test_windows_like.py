"""Runs where learners are: every page works without the modules Windows lacks.

`fcntl` and `resource` exist only on Unix. The Language model page once imported `fcntl`
(for the lock around its decoded copy), so on Windows it could not even load. Here a
fresh Python, in which importing either raises ImportError as on Windows, runs every page
in AppTest; none may raise.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys

    class Windows(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name in ("fcntl", "resource"):
                raise ImportError(f"No module named {name!r} (as on Windows)")
            return None

    for name in ("fcntl", "resource"):
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, Windows())
    sys.path[:0] = [".", "tests"]

    from helpers import ALL_PAGES, ANSWERS, open_page

    failed = []
    for page in ALL_PAGES:
        at = open_page(page, ANSWERS.get(page))
        if at.exception:
            failed.append((page, [e.message for e in at.exception]))
    for name in ("fcntl", "resource"):
        assert name not in sys.modules, f"{name} was imported"
    print("FAILED", failed) if failed else print("every page ran")
    """
)


def test_every_page_runs_where_fcntl_and_resource_do_not_exist():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("every page ran"), done.stdout[-3000:]

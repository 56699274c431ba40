"""What a test needs from the machine: fail in CI if it is missing, else skip, saying why."""

from __future__ import annotations

import os

import pytest


def require(present: bool, reason: str) -> None:
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"this test must run in CI: {reason}")
    pytest.skip(reason)

"""The app as a real server for tests and benchmarks: deploy/app_server.py's process, with
its CPU time and memory read from /proc, so a test or a benchmark can say what a request
cost it.
"""

from __future__ import annotations

import os
from pathlib import Path

from deploy.app_server import ROOT, answers, free_port
from deploy.app_server import AppServer as Process

ARTIFACTS = ROOT / "test-artifacts"
__all__ = ["ARTIFACTS", "ROOT", "AppServer", "answers", "children_of", "cpu_seconds", "free_port"]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time process `pid` has used so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_of(parent: int) -> list[int]:
    """The processes whose parent is `parent` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue  # a process that ended while being read
    return found


class AppServer(Process):
    """`streamlit run app.py` on a free port, its log in test-artifacts/, and what it costs."""

    def __init__(
        self,
        name: str = "server",
        script: str = "app.py",
        env: dict[str, str] | None = None,
        logs: Path = ARTIFACTS,
        **options: str,
    ) -> None:
        super().__init__(name, script, env, logs, **options)

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server process has used so far."""
        return cpu_seconds(self.process.pid)

    def memory_mb(self, field: str = "VmRSS") -> float:
        """Resident memory now (VmRSS), or its high-water mark since start (VmHWM), in MB."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
        raise KeyError(field)

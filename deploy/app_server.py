"""One Streamlit process of the app: `streamlit run app.py` on a free port, in its own
process group, started and stopped. The lecture hall starts several; the tests and the
benchmarks start theirs through harness/server.py, which adds what they measure.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: app.py and app_pages/


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str, timeout: float) -> bool:
    """Whether Streamlit's health check at `url` says ok within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                if response.read() == b"ok":
                    return True
        except OSError:
            time.sleep(0.2)
    return False


class AppServer:
    """`streamlit run app.py` on a free port, in its own process group."""

    def __init__(
        self,
        name: str = "server",
        script: str = "app.py",
        env: dict[str, str] | None = None,
        logs: Path = ROOT / "logs",
        **options: str,
    ) -> None:
        """script: the file to run, relative to the repository; env: more environment
        variables; logs: the folder of its log; options: more `--key value` settings for
        streamlit run, e.g. `**{"server.disconnectedSessionTTL": "5"}`."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = logs / f"{name}.log"
        self.script = script
        self.env = {**os.environ, **(env or {})}
        self.options = options
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 30) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "streamlit", "run", self.script,
            "--server.headless", "true",
            "--server.address", "127.0.0.1",
            "--server.port", str(self.port),
            "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]  # fmt: skip
        for key, value in self.options.items():
            command += [f"--{key}", value]
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if not answers(self.url, timeout):
            self.stop()
            raise RuntimeError(f"the app did not answer within {timeout} s; see {self.log}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)

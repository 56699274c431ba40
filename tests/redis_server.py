"""A redis-server of the tests' own, on a free port (CI installs Debian's redis-server)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from helpers import require


class RedisServer:
    """A redis-server of our own: its port, and stop/start around the same data directory,
    so a stop is Redis going away mid-class and a start is Redis coming back."""

    def __init__(self, folder: Path):
        require(
            shutil.which("redis-server") is not None,
            "redis-server not found: apt-get install redis-server",
        )
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder, self.process = folder, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.folder), "--save", "3600 1", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)  # Redis saves its data as it stops
        self.process.wait(timeout=10)

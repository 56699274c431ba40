"""A lecture hall on one machine: Redis, several FFN Explorer processes and nginx in front.

    python -m deploy.lecture_hall                        # 2 replicas, students at port 8501
    python -m deploy.lecture_hall --replicas 4 --port 80

One Streamlit process serves a class of about 30 exploring on their own; a class that
follows its teacher needs about a core for every 15 students (benchmarks/RESULTS.md).
Every replica finds the class rooms in the same Redis (FFN_REDIS_URL), and nginx
(deploy/nginx.conf) upgrades websockets and keeps each browser on the replica that holds
its session. Press Ctrl-C to stop them all. Needs Debian's `nginx` and `redis-server`
(apt-get install -y nginx redis-server).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from deploy.app_server import AppServer, answers, free_port

CONFIG = Path(__file__).with_name("nginx.conf")
REDIS_MEMORY = "256mb"  # past this, Redis drops keys closest to expiring (all have TTLs)


def nginx_config(run: Path, listen: str, replica_ports: list[int]) -> str:
    """deploy/nginx.conf with its three places filled in."""
    replicas = "\n        ".join(f"server 127.0.0.1:{port};" for port in replica_ports)
    text = CONFIG.read_text()
    for place, value in (("@RUN@", str(run)), ("@LISTEN@", listen), ("@REPLICAS@", replicas)):
        text = text.replace(place, value)
    return text


class LectureHall:
    """Redis, `replicas` app processes sharing it, and nginx listening at `listen`."""

    def __init__(
        self, replicas: int = 2, listen: str = "", run: Path | None = None, preload: bool = False
    ) -> None:
        self.run = run or Path(tempfile.mkdtemp(prefix="ffn-hall-"))
        self.port = free_port() if not listen else int(listen.rsplit(":", 1)[-1])
        self.listen = listen or f"127.0.0.1:{self.port}"
        self.redis_url = f"redis://127.0.0.1:{free_port()}/0"
        environment = {"FFN_REDIS_URL": self.redis_url}
        if preload:  # each replica loads both real models at its first page run
            environment["FFN_PRELOAD_MODELS"] = "1"
        self.replicas = [
            AppServer(f"replica-{i}", env=environment, logs=self.run) for i in range(replicas)
        ]
        self.processes: list[subprocess.Popen] = []
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        for program in ("nginx", "redis-server"):
            if shutil.which(program) is None:
                raise RuntimeError(f"{program} not found: apt-get install -y nginx redis-server")
        try:
            self.start_all()
        except BaseException:
            self.stop()  # nothing started is left running
            raise

    def start_all(self) -> None:
        redis_port = self.redis_url.rsplit(":", 1)[1].split("/")[0]
        self.spawn(
            "redis-server", "--port", redis_port, "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--maxmemory", REDIS_MEMORY,
            "--maxmemory-policy", "volatile-ttl", "--dir", str(self.run),
        )  # fmt: skip
        for replica in self.replicas:
            replica.start()
        config = self.run / "nginx.conf"
        config.write_text(nginx_config(self.run, self.listen, [r.port for r in self.replicas]))
        self.spawn("nginx", "-c", str(config), "-p", str(self.run), "-e", "stderr")
        if not answers(self.url, timeout=30):
            raise RuntimeError(f"nginx did not answer at {self.url}; see {self.run}")

    def spawn(self, *command: str) -> None:
        with (self.run / f"{command[0]}.log").open("w") as log:
            self.processes.append(
                subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )
            )

    def stop(self) -> None:
        """nginx first, so no student reaches a stopped replica; then the replicas; Redis last."""
        for process in self.processes[1:]:
            end(process)
        for replica in self.replicas:
            replica.stop()
        for process in self.processes[:1]:
            end(process)

    def __enter__(self) -> LectureHall:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def end(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2, help="Streamlit processes")
    parser.add_argument("--port", type=int, default=8501, help="where students connect")
    parser.add_argument("--host", default="", help="an address to listen on (default: every)")
    parser.add_argument(
        "--preload-models",
        action="store_true",
        help="load both real models in each replica ahead of the first student who opens "
        "one (about 630 MB a replica)",
    )
    args = parser.parse_args()
    listen = f"{args.host}:{args.port}" if args.host else str(args.port)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` stops them all too
    with LectureHall(args.replicas, listen, preload=args.preload_models) as hall:
        print(f"Students open {hall.url} ({args.replicas} replicas; logs in {hall.run}).")
        print("Press Ctrl-C to stop.")
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()

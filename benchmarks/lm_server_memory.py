"""How much memory a server holds once the Language model page is used: one fresh server,
the toy and Real model pages first, then the Language model page at its defaults, its
costliest links, and texts no cache has seen, one visitor after another.

    python -m benchmarks.lm_server_memory

Resident memory (VmRSS) counts the decoded weights' memory-mapped pages (RssFile): the
kernel may drop those and read them again, so they are printed apart from the process's
own memory (RssAnon).
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

from harness.caps import COSTLIEST_LINKS, split_guesses
from harness.class_protocol import Participant
from harness.protocol import Visitor
from harness.server import AppServer

NEW_TEXTS = 24  # texts no cache has seen, 40 new words each (the page keeps the last 64 tokens)


def status(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def main() -> None:
    app = AppServer("lm-server-memory")
    app.start()
    print(f"{date.today()} | one server, one visitor at a time")
    print("after | resident MB | peak MB | mapped file MB | own MB")
    print("--- | ---: | ---: | ---: | ---:")

    def row(what: str) -> None:
        pid = app.process.pid
        rss, peak = status(pid, "VmRSS"), status(pid, "VmHWM")
        print(f"{what} | {rss:.0f} | {peak:.0f} | {status(pid, 'RssFile'):.0f} | "
              f"{status(pid, 'RssAnon'):.0f}", flush=True)  # fmt: skip

    try:
        row("start")
        for page in ("Traps", "Real_model", "Language_model"):
            with Visitor(app.port) as visitor:
                visitor.open(page)
            row(f"{page}, defaults")
        for query in COSTLIEST_LINKS["Language_model"]:
            link, guesses = split_guesses(query)
            with Participant(app.port, link, "Language_model") as visitor:
                for key, answer in guesses:
                    visitor.choose(key, answer)
        row("the Language model's costliest links")
        for k in range(NEW_TEXTS):
            text = " ".join(f"w{k}x{j}" for j in range(40))
            with Visitor(app.port) as visitor:
                visitor.open("Language_model", urlencode({"lm_text": text, "lm_new": "12"}))
            if k + 1 in (4, 8, 16, NEW_TEXTS):
                row(f"{k + 1} new texts")
        time.sleep(4)
        with Visitor(app.port) as later:  # its run hands freed memory back first
            later.open("Traps")
        row("a few seconds later")
    finally:
        app.stop()


if __name__ == "__main__":
    main()

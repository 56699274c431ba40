"""A class of students on one server: N real protocol sessions moving a slider.

    python -m benchmarks.load_classroom                 # 30 students, 25 moves each
    python -m benchmarks.load_classroom --students 5 --moves 5
    python -m benchmarks.load_classroom --page real     # the Real model page instead
    python -m benchmarks.load_classroom --page language # the Language model page
    python -m benchmarks.load_classroom --page key-value # the Key–value memory page
    python -m benchmarks.load_classroom --page backprop # the Backprop page

Each student is one websocket to /_stcore/stream speaking Streamlit's own protocol: it
opens the page, then every 2-5 s moves a slider and waits for the rerun to finish. On
the Activations page that is "z from -r to r", and the first chart's z axis must end at
the new value; on the Real model page it is "layer" (`--page real`), and the first
heading must name the new layer, or "k" (`--page real-k`, a fragment), and the caption must
name the new k. On the Language model page it is the block slider, and the heading names
the block. On Key–value memory it is "scale nX by": the edit's caption says the output
changed exactly when the scale is not 1. On Backprop it is the score nudge, with both
questions answered in the link, and the text names the new s. Every rerun must also show
no exception element. The server runs in its own
process; its CPU time and memory are read from /proc.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlencode

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from benchmarks.lecture_hall import run as lecture
from harness.protocol import Visitor, decode
from harness.server import AppServer

EVERY_PAGE = [
    "", "Neurons", "Key_value_memory", "Activations", "Collapse", "Position-wise", "Backprop",
    "Traps", "Scale_and_cost", "Mixture_of_experts", "Superposition", "Memory_lab",
    "Real_model", "Language_model", "Glossary",
]  # fmt: skip


@dataclass
class Seen:
    """What one rerun sent back that the checks read."""

    first_chart: str = ""  # the first chart's figure JSON
    headings: list[str] = field(default_factory=list)  # every subheader's text
    texts: list[str] = field(default_factory=list)  # every markdown and caption's text
    exception: str | None = None


@dataclass(frozen=True)
class Scenario:
    page: str  # the page's URL path
    slider_key: str
    values: list[float]
    shows: Callable[[Seen, float], bool]  # whether a rerun shows the slider's new value
    query: str = ""  # the link's query string, e.g. a question already answered


def axis_ends_at(seen: Seen, value: float) -> bool:
    return bool(seen.first_chart) and abs(first_chart_x_max(seen.first_chart) - value) <= 1e-6


def names_layer(seen: Seen, value: float) -> bool:
    return f"1. Who fires in layer {int(value)}" in seen.headings


def names_k(seen: Seen, value: float) -> bool:
    return any(f"the {int(value)} strongest neurons" in text for text in seen.texts)


def names_block(seen: Seen, value: float) -> bool:
    return f"1. Who fires in block {int(value)}'s gated FFN" in seen.headings


def changes_output_unless_1(seen: Seen, value: float) -> bool:
    """The edit caption's largest change is 0 exactly when the scale is 1."""
    said = [t for t in seen.texts if "Largest change in any coordinate: " in t]
    if not said:
        return False
    largest = float(said[0].split("Largest change in any coordinate: ")[1].split()[0].rstrip("."))
    return (largest == 0) == (abs(value - 1) < 1e-9)


def names_s(seen: Seen, value: float) -> bool:
    return any(f"The loss at s = {value:g} differs" in text for text in seen.texts)


BACKPROP_ANSWERS = urlencode(
    {
        "guess_precision": "10⁻⁶ or smaller in float64, 10⁻² or worse in float32",
        "guess_dw1": "exactly zero",
    }
)
SCENARIOS = {
    "activations": Scenario("Activations", "range", [v / 2 for v in range(1, 21)], axis_ends_at),
    "real": Scenario("Real_model", "rm_layer", [float(v) for v in range(1, 7)], names_layer),
    "real-k": Scenario("Real_model", "rm_k", [float(v) for v in range(1, 65)], names_k),
    "language": Scenario(
        "Language_model", "lm_layer", [float(v) for v in range(1, 31)], names_block
    ),
    "key-value": Scenario(
        "Key_value_memory", "scale", [v / 10 for v in range(31)], changes_output_unless_1
    ),
    "backprop": Scenario(
        "Backprop", "nudge_w", [v / 10 for v in range(-30, 31)], names_s, BACKPROP_ANSWERS
    ),
}


@dataclass
class Student:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def first_chart_x_max(spec: str) -> float:
    return float(decode(json.loads(spec)["data"][0]["x"]).max())


def run_once(ws, port: int, scenario: Scenario, page_hash: str, value, slider):
    """Send one rerun and read until it finishes: (page hash, slider, what it showed).

    slider is (widget id, fragment id): a widget inside a fragment reruns only that
    fragment, as the browser asks for it.
    """
    msg = BackMsg()
    msg.rerun_script.page_name = scenario.page
    msg.rerun_script.page_script_hash = page_hash
    msg.rerun_script.query_string = scenario.query
    msg.rerun_script.context_info.url = f"http://127.0.0.1:{port}/{scenario.page}"
    if value is not None:
        state = msg.rerun_script.widget_states.widgets.add()
        state.id, fragment_id = slider
        state.double_array_value.data.append(value)
        msg.rerun_script.fragment_id = fragment_id
    ws.send(msg.SerializeToString())
    seen, charts = Seen(), 0
    while True:
        fwd = ForwardMsg()
        fwd.ParseFromString(ws.recv(timeout=60))
        kind = fwd.WhichOneof("type")
        if kind == "navigation":  # names the page that ran (new_session names app.py)
            page_hash = fwd.navigation.page_script_hash
        elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
            element = fwd.delta.new_element
            which = element.WhichOneof("type")
            if which == "slider" and element.slider.id.endswith(f"-{scenario.slider_key}"):
                slider = (element.slider.id, fwd.delta.fragment_id)
            elif which == "plotly_chart" and charts == 0:
                charts += 1
                seen.first_chart = element.plotly_chart.spec
            elif which == "heading":
                seen.headings.append(element.heading.body)
            elif which == "markdown":
                seen.texts.append(element.markdown.body)
            elif which == "exception":
                seen.exception = element.exception.message
        elif (
            kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
        ):
            return page_hash, slider, seen


def student(
    port: int,
    scenario: Scenario,
    moves: int,
    seed: int,
    result: Student,
    start: threading.Barrier,
    full: bool,
) -> None:
    rng = random.Random(seed)
    with connect(
        f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=None
    ) as ws:
        page_hash, slider, seen = run_once(ws, port, scenario, "", None, None)
        if seen.exception or slider is None:
            result.errors.append(f"first run: {seen.exception or 'no slider'}")
            start.abort()  # release everyone waiting: the run is over
            return
        if full:  # rerun the whole page, as a page without fragments would
            slider = (slider[0], "")
        start.wait()
        for _ in range(moves):
            time.sleep(rng.uniform(2, 5))
            value = rng.choice(scenario.values)
            began = time.perf_counter()
            _, _, seen = run_once(ws, port, scenario, page_hash, value, slider)
            result.latencies.append(time.perf_counter() - began)
            if seen.exception:
                result.errors.append(f"exception: {seen.exception}")
            elif not scenario.shows(seen, value):
                result.errors.append(f"the rerun does not show {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, help="default 30; in a lecture, 119")
    parser.add_argument("--moves", type=int, help="default 25 each; in a lecture, the teacher's 10")
    parser.add_argument("--page", choices=list(SCENARIOS), default="activations")
    parser.add_argument(
        "--full-reruns",
        action="store_true",
        help="rerun the whole page on every move instead of the fragment",
    )
    parser.add_argument(
        "--every-page-first",
        action="store_true",
        help="open every page once before the class, so the server holds a whole lesson",
    )
    parser.add_argument(
        "--replicas",
        type=int,
        help="a lecture instead (benchmarks/lecture_hall.py): a teacher and the students in "
        "a class, through nginx, this many replicas and Redis",
    )
    parser.add_argument("--every", type=float, default=8.0, help="lecture: s between moves")
    args = parser.parse_args()
    if args.replicas:
        lecture(args.students or 119, args.replicas, args.moves or 10, args.every)
        return
    args.students, args.moves = args.students or 30, args.moves or 25
    scenario = SCENARIOS[args.page]

    app = AppServer()
    app.start()
    try:
        warm = Student()
        warm_up = (app.port, scenario, 1, 0, warm, threading.Barrier(1), args.full_reruns)
        if args.page == "language":  # both real models loaded, as a full lesson has them
            student(app.port, SCENARIOS["real"], 1, 0, Student(), threading.Barrier(1), False)
        if args.every_page_first:
            for page in EVERY_PAGE:
                with Visitor(app.port) as visitor:
                    assert not visitor.open(page).exceptions, page
        student(*warm_up)  # fills the caches, as the first visitor of a lesson would
        rss_warm = app.memory_mb()
        students = [Student() for _ in range(args.students)]
        start = threading.Barrier(args.students + 1)
        threads = [
            threading.Thread(
                target=student,
                args=(app.port, scenario, args.moves, i + 1, s, start, args.full_reruns),
            )
            for i, s in enumerate(students)
        ]
        for thread in threads:
            thread.start()
        start.wait()
        cpu_before, began = app.cpu_seconds(), time.perf_counter()
        rss_peak = rss_warm
        while any(t.is_alive() for t in threads):
            rss_peak = max(rss_peak, app.memory_mb())
            time.sleep(0.5)
        elapsed, cpu = time.perf_counter() - began, app.cpu_seconds() - cpu_before
        time.sleep(3)
        rss_after = app.memory_mb()
    finally:
        app.stop()

    latencies = sorted(lat for s in students for lat in s.latencies)
    errors = [e for s in students for e in s.errors]
    reruns = len(latencies)
    print(
        f"{date.today()} | {args.students} students x {args.moves} moves on /{scenario.page} "
        f"| {elapsed:.0f} s"
    )
    print(f"reruns: {reruns}, errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    if latencies:
        p95 = latencies[min(reruns - 1, int(0.95 * reruns))]
        print(
            f"latency ms: p50 {statistics.median(latencies) * 1e3:.0f}, "
            f"p95 {p95 * 1e3:.0f}, max {latencies[-1] * 1e3:.0f}"
        )
        print(
            f"server CPU per rerun: {cpu / reruns * 1e3:.1f} ms "
            f"({cpu / elapsed:.0%} of one core over the run)"
        )
    print(
        f"server memory MB: warm {rss_warm:.0f}, peak with all sessions {rss_peak:.0f} "
        f"({(rss_peak - rss_warm) / args.students:.2f} per session), "
        f"3 s after they closed {rss_after:.0f}"
    )


if __name__ == "__main__":
    main()

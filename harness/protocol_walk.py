"""A seeded random walk through a page's controls, spoken in Streamlit's protocol.

Each step picks one control the page drew (a select box, radio, pills, number, text,
button, toggle, slider or multiselect), sets it to something a person could choose, and
reads the run it causes. It is the browser walk of tests/browser/walk.py without the
browser: it cannot see layout or drawing, but it sends what a browser sends, so a server's
exceptions show, at a fraction of the CPU. The trail is what a failing test prints, and
the seed replays it.

    walker = ProtocolWalker(participant, random.Random("1:Neurons"))
    walker.step()          # one random action; walker.trail says what it was
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from harness.class_protocol import Participant
from harness.protocol import Control, Seen

# Numbers a person might type: edge values, zero, negatives and far past any cap (the
# browser keeps a number box within its range, so the walk clips to it).
NUMBERS = [0, -1, 1, 2, 3, 5, 8, 16, 64, 100, 999, 100000]
# Sentences shorter and longer than the defaults, with odd characters (the browser walk of
# tests/browser/walk.py types the same).
SENTENCES = [
    "x @ W1 + b1",  # Build it's lines: right, wrong and hostile
    "dout @ W2",
    "np.einsum('bti,btj->ij', h, dout)",
    "__import__('os').system('true')",
    "i * D + k",
    "relu(s)",
    "hello world",
    "hi",
    "",
    "a",
    "the cat sat on the mat and then the dog sat on the cat while the bird sang " * 3,
    "Paris is the capital of France.",
    "été naïve café 42 — 🙂 <b>x</b> [link](https://evil.example)",
    "the the the the the the the the the",
    "1, 2, 3",
]
KINDS = ("button", "checkbox", "radio", "selectbox", "slider", "number_input", "text_input",
         "text_area", "multiselect", "button_group")  # fmt: skip


@dataclass
class ProtocolWalker:
    """Random actions on one participant's page; `left_alone` names buttons it never
    presses (starting or ending a class is a walk's own step, not a random one)."""

    who: Participant
    rng: random.Random
    left_alone: tuple[str, ...] = ()
    trail: list[str] = field(default_factory=list)

    def controls(self) -> list[Control]:
        seen = [self.who.shown, *self.who.fragments.values()]
        found = {c.id: c for s in seen for c in s.controls}  # a fragment's newer copy wins
        return [
            c
            for c in found.values()
            if c.kind in KINDS and not c.disabled and c.label not in self.left_alone
        ]

    def step(self) -> Seen | None:
        """One random action on one control; None if the page has none to act on."""
        controls = self.controls()
        if not controls:
            self.trail.append("(no control to act on)")
            return None
        control = self.rng.choice(controls)
        value = self.value_for(control)
        self.trail.append(f"{control.kind} {control.label[:40]!r}: {str(value)[:40]!r}")
        return self.who.use(control, value)

    def value_for(self, control: Control) -> object:
        """Something a person could set `control` to."""
        rng, kind = self.rng, control.kind
        if kind == "button":
            return None
        if kind == "checkbox":
            return self.who.values.get(control.key, control.value) != "True"
        if kind in ("radio", "selectbox"):
            return rng.choice(control.options) if control.options else ""
        if kind in ("multiselect", "button_group"):
            k = rng.randint(0, min(3, len(control.options)))
            return rng.sample(list(control.options), k)
        if kind == "slider" and control.options:  # a select_slider
            return rng.choice(control.options)
        if kind == "slider":
            steps = round((control.high - control.low) / control.step) if control.step else 0
            value = control.low + rng.randint(0, max(steps, 0)) * control.step
            return round(value) if control.integer else round(value, 6)
        if kind == "number_input":
            value = min(max(rng.choice(NUMBERS), control.low), control.high)
            return int(value) if control.integer else float(value)
        text = rng.choice(SENTENCES)
        return text[: control.max_chars] if control.max_chars else text

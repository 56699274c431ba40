"""Home: the lesson's smallest FFN, live on a plane the learner drags, then the path."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import contributions, ffn_forward
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.drag import drag_plane
from ffn_ui.controls.url import bound_slider
from ffn_ui.figures import half_planes, neuron_writes_figure
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import TIER_ICONS, TIERS
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.home import (
    ANGLE_STEP,
    ANGLES,
    ASKED,
    DRAG,
    LIMIT,
    STEP,
    TOKEN,
    lesson_weights,
    moved,
)

LEDE = (
    "Inside every transformer block, a feed-forward network scores each token against every "
    "neuron's key (the pattern that neuron looks for, not attention's key); the neurons that "
    "fire write into the output."
)
INTRO = (
    "Attention lets the tokens of a sentence look at each other; the **feed-forward network "
    "(FFN)** then transforms what each token gathered. It widens the token's vector from "
    "`d_model` numbers to `d_ff` hidden neurons (usually four times as many), lets only some "
    "of them through a bend such as ReLU, and narrows the result back to `d_model` so it can "
    "be added to the token. Read each hidden neuron as a rule: its column of `W1` is a "
    "pattern it looks for (a *key*), and its row of `W2` is what it writes when the pattern "
    "is there (a *value*). Here the smallest one: two input numbers, two hidden neurons, no "
    "biases, and `W2` the identity, so each neuron writes straight into one output "
    "coordinate. (This app writes x @ W; written W @ x, as many texts do, the keys are the "
    "rows of W1 and the values the columns of W2.)"
)
# Where each neuron fires answers the question: said once it is answered.
RULE = (
    " A neuron's score is its key · x, and under ReLU it fires where that score is above 0: "
    "the half of the plane its key points into, bounded by the line through the origin at "
    "right angles to the key. As the preset named Lesson sets them, neuron 1 ([1, 1]) fires "
    "wherever x₁ + x₂ > 0, and neuron 2 ([1, −1]) wherever x₁ > x₂."
)
SIDEBAR_NOTE = (
    "These settings shape every other page; the example on this page is the smallest FFN, "
    "2 × 2, with its own sliders."
)
GUESS = Question(
    "Predict first: which neuron fires for x = [−2, −2]?",
    "guess_home",
    ("neuron 1", "neuron 2", "both", "neither"),
    answer="neither",
    why="Neuron 1 scores −2 + (−2) = −4 and neuron 2 scores −2 − (−2) = 0; ReLU passes "
    "only positive scores, so neither fires and the output is [0, 0].",
)

toy = setup("Home", "FFN Explorer", LEDE, sidebar_note=SIDEBAR_NOTE, tuck_model=True)
answered = predicted(GUESS)
plane, controls = stage(toy.presenter)
readout = controls.container()  # the output and how to drag, above the sliders
with controls:
    x1 = bound_slider("token x₁", "x1", -LIMIT, LIMIT, TOKEN[0], STEP)
    x2 = bound_slider("token x₂", "x2", -LIMIT, LIMIT, TOKEN[1], STEP)
    angles = tuple(
        bound_slider(f"key {j + 1}'s angle, degrees", f"k{j + 1}", -180, 180, a, ANGLE_STEP)
        for j, a in enumerate(ANGLES)
    )

x = np.array([x1, x2])
weights = lesson_weights(angles)
W1, b1, W2, b2 = weights.values()  # keys are the columns of W1 (x @ W convention)
out, cache = ffn_forward(x, W1, b1, W2, b2)
parts = contributions(x, W1, b1, W2, b2)  # (d_ff, d_model)
neurons = ["neuron 1", "neuron 2"]
fired = cache.h[0] > 0
held = not answered and (x1, x2) == ASKED  # the token on the question's point: no readout

with plane:
    show(half_planes(W1.T, x, LIMIT, shaded=answered), toy.presenter, key="plane")
with readout:
    if held:
        st.caption(
            "x = [−2, −2] is the question's point: guess first, then the output and who "
            "fires are shown here."
        )
    else:
        st.metric("output", str(out.tolist()))
    drag_plane("plane", W1.T, x, LIMIT, STEP, ANGLE_STEP, moved, key=DRAG)
with controls:
    if answered:
        st.caption("Notice: a neuron fires exactly when the token lies in its shaded half-plane.")
        preset_button(st, "Show x = [−2, −2] on the plane", x1=-2.0, x2=-2.0, k1=45, k2=-45)

story = "; ".join(
    f"{name} scores {z:g} and {'fires' if f else 'stays silent'}"
    for name, z, f in zip(neurons, cache.h_pre[0], fired, strict=True)
)
if not held:
    st.caption(
        f"{story.capitalize()}. Under ReLU the output {out.tolist()} is built only from the "
        "patterns this token matched. Preset Lesson sets x = [1, −1] with "
        "keys at 45° and −45°, giving [0, 2]."
    )
    show(neuron_writes_figure(parts, out, neurons, ["out₁", "out₂"]), toy.presenter)
    table = {
        name: {
            "key (column of W1)": str(W1[:, j].tolist()),
            "score z = key · x": f"{cache.h_pre[0, j]:g}",
            "fires? (z > 0)": "yes" if fired[j] else "no",
            "relu(z)": f"{cache.h[0, j]:g}",
            "writes relu(z) × value": str(parts[j].tolist()),
        }
        for j, name in enumerate(neurons)
    }
    st.dataframe(pd.DataFrame(table))
explained(INTRO + (RULE if answered else ""), toy.presenter)
offer_notebook("Home", toy, x1=x1, x2=x2, k1=angles[0], k2=angles[1])

st.header("Start here")
st.markdown(
    "Read the pages in this order: each builds on the ones before. They fall into four "
    "tiers, and the sidebar's menu marks each page with its tier's icon; the Reference is "
    "for any time. The sidebar sets one model that every "
    f"page shares, and the address bar keeps it: now d_model = {toy.d_model}, "
    f"d_ff = {toy.d_ff}, {toy.activation_label}, {toy.T} "
    f"token{'s' if toy.T != 1 else ''}. Copy the link to show someone exactly this."
)
for tier, steps in TIERS.items():
    st.subheader(f"{TIER_ICONS[tier]} {tier}")
    for step in steps[1:] if tier == "Core" else steps:
        st.page_link(step.page, label=f"{step.label}: {step.objective}")

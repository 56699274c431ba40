"""Home: what the FFN is, the lesson's smallest example computed live, and the path."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import contributions, ffn_forward
from ffn_core.init import lesson_example
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.predict import Question, predicted
from ffn_ui.controls.url import bound_slider
from ffn_ui.figures import half_planes, neuron_writes_figure
from ffn_ui.page.display import show, tucked
from ffn_ui.page.path import TIER_ICONS, TIERS
from ffn_ui.page.setup import setup

INTRO = (
    "Every transformer block has two halves. Attention lets the tokens of a sentence look "
    "at each other; the **feed-forward network (FFN)** then works on each token alone. "
    "It widens the token's vector from `d_model` numbers to `d_ff` hidden neurons "
    "(usually four times as many), lets only some of them through a bend such as ReLU, "
    "and narrows the result back to `d_model` so it can be added to the token. "
    "Read each hidden neuron as a rule: its column of `W1` is a pattern it looks for "
    "(a *key*), and its row of `W2` is what it writes when the pattern is there (a *value*). "
    "(This app writes x @ W; written W @ x, as many texts do, the keys are the rows of W1 "
    "and the values the columns of W2.)"
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

toy = setup("Home", "FFN Explorer", INTRO, sidebar_note=SIDEBAR_NOTE, tuck_model=True)
st.header("The smallest example, live")
about = tucked("The formula, and how this example works", toy.presenter)
about.latex(r"\mathrm{FFN}(x) = \mathrm{act}(x\,W_1 + b_1)\,W_2 + b_2")
about.markdown(
    "Two input numbers, two hidden neurons, no biases, and `W2` the identity, so each "
    "neuron writes straight into one output coordinate. Neuron 1's key is [1, 1]: its "
    "score is x₁ + x₂, so it fires wherever x₁ + x₂ > 0, the half of the plane above the "
    "line x₂ = −x₁. Neuron 2's key is [1, −1]: its score x₁ − x₂ is positive wherever "
    "x₁ > x₂, the half below the line x₂ = x₁. Move the token and watch which fire."
)
# On a projector the sliders sit beside the plane, so the token shows on the first screen.
controls, plane = st.columns([2, 3]) if toy.presenter else (st.container(), st.container())
left, right = (controls, controls) if toy.presenter else controls.columns(2)
x1 = bound_slider("x₁", "x1", -3.0, 3.0, 1.0, 0.5, left)
x2 = bound_slider("x₂", "x2", -3.0, 3.0, -1.0, 0.5, right)

x = np.array([x1, x2])
_, weights = lesson_example()
W1, b1, W2, b2 = weights.values()  # keys are the columns of W1 (x @ W convention)
out, cache = ffn_forward(x, W1, b1, W2, b2)
parts = contributions(x, W1, b1, W2, b2)  # (d_ff, d_model)
neurons = ["neuron 1", "neuron 2"]
fired = cache.h[0] > 0

controls.caption("Notice: a neuron fires exactly when the token lies in its shaded half-plane.")
with plane:
    show(half_planes(W1.T, x), toy.presenter)
st.dataframe(
    pd.DataFrame(
        {
            name: {
                "key (column of W1)": str(W1[:, j].tolist()),
                "score z = key · x": f"{cache.h_pre[0, j]:g}",
                "fires? (z > 0)": "yes" if fired[j] else "no",
                "relu(z)": f"{cache.h[0, j]:g}",
                "writes relu(z) × value": str(parts[j].tolist()),
            }
            for j, name in enumerate(neurons)
        }
    ),
)
st.caption("Notice: the output is the sum of what the firing neurons write.")
show(neuron_writes_figure(parts, out, neurons, ["out₁", "out₂"]), toy.presenter)
st.metric("output", str(out.tolist()))
story = "; ".join(
    f"{name} scores {z:g} and {'fires' if f else 'stays silent'}"
    for name, z, f in zip(neurons, cache.h_pre[0], fired, strict=True)
)
st.caption(
    f"{story.capitalize()}. Under ReLU the output {out.tolist()} is built only from the "
    "patterns this token matched. The smallest example (preset Lesson) is x = [1, −1], "
    "giving [0, 2]."
)
if predicted(GUESS):
    preset_button(st, "Show x = [−2, −2] on the plane", x1=-2.0, x2=-2.0)

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

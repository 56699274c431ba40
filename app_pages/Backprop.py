"""Backprop & gradient check: the backward pass step by step, and how to trust it."""

import numpy as np
import streamlit as st

from ffn_core import ffn_backward_steps, ffn_forward
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement
from ffn_ui.controls.url import bound_number
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.backprop import (
    LESSON_EXAMPLE,
    PRECISION,
    backward_steps,
    batch_and_block,
    first_silent,
    forward_graph,
    gate_notice,
    gradient_maps,
    half_width,
    shapes_table,
    silent_exercise,
    silent_key_question,
    upstream_gradient,
)
from ffn_ui.parts.backprop_gated import gated_backprop
from ffn_ui.parts.gradient_checks import plain_check

LEDE = "The backward pass walks the forward pass back, from dout to every weight's gradient."
INTRO = (
    "The backward pass walks the forward pass in reverse, reusing what the forward pass "
    "cached. The figure follows the gradient from the output back into the hidden layer: "
    "dout is the loss's gradient at out; dh = dout · W2ᵀ is the gradient at h, and dh_pre, "
    "the gradient at the scores h_pre, is dh times the activation's slope there. Each gradient has "
    "the shape of its quantity. The weights are shared by every position, so their "
    "gradients add up the contributions of all B × T positions. A numerical gradient check "
    "then compares every analytic gradient with the slope measured by nudging one number at "
    "a time."
)


SMALL_BATCH = "B = 2 sequences of T = 4 random tokens, C = 8, d_ff = 32, ReLU"

toy = setup("Backprop", "Backprop & gradient check", LEDE)
asked = st.container()  # the question goes above the figure; it names a neuron of the batch
picture, controls = stage(toy.presenter)
with controls:
    preset_button(st, "Preset: a small batch", help=SMALL_BATCH, **LESSON_EXAMPLE)
    B = bound_number("batch B (sequences)", "B", 1, 4, 1)
if toy.gated:  # SwiGLU's backward pass: ffn_ui/parts/backprop_gated.py
    gated_backprop(toy, B, picture, controls, INTRO)
    next_step("app_pages/Backprop.py")
    st.stop()
x, W1, b1, W2, b2 = batch_and_block(toy, B)  # x (B, T, C); the block at most 256 × 1024
T, C, H = x.shape[1], x.shape[2], W1.shape[1]
out, cache = ffn_forward(x, W1, b1, W2, b2, toy.activation)  # (B, T, C)
with controls:
    dout, loss = upstream_gradient(out)
    st.metric("loss L", f"{loss:.6g}")
steps = ffn_backward_steps(dout, cache)  # the core's own steps: dh, the slope, dh_pre
grads = steps.gradients()
dout2d = dout.reshape(-1, C)
bend = toy.bend  # the activation and its facts
chain, maps, rows, neurons = backward_steps(steps, bend, B, T)
silent = first_silent(cache.h_pre[0]) if bend.zero_below else None  # (j, margin) on the first token
answered = silent is None or predicted(
    silent_key_question(*silent, bend), setting=silent, container=asked
)
if not answered:  # the gate and dh_pre answer the question: held back, with all made from them
    gate, dh_pre = chain[1], chain[2]  # titled without the gate's 0 or 1
    chain[1] = figures.Panel(f"{bend.label}'s slope at h_pre", None, gate.what, gate.gate)
    chain[2] = figures.Panel("dh_pre = dh × that slope", None, dh_pre.what)
marked = (0, silent[0]) if silent and silent[0] < len(neurons) else None
with picture:
    title = "Back through the gate" if bend.gate else "Back through the slope"
    show(figures.stacked_maps(chain, rows, neurons, title, marked), toy.presenter)
with controls:
    if answered:
        st.caption(gate_notice(bend))
explained(INTRO, toy.presenter)

st.subheader("1. The forward pass and its cache")
st.graphviz_chart(forward_graph(B, T, C, H, toy.activation_label))

st.subheader("2. Backward, one step at a time")
if answered:
    show_in_pairs(gradient_maps(maps[:2]), toy.presenter)
else:
    st.caption("dW1, db1 and dx are made from dh_pre: they wait for the question at the top.")
with st.expander("The other gradients: " + ("dW2, db2 and dx" if answered else "dW2 and db2")):
    show_in_pairs(gradient_maps(maps[2:] if answered else maps[2:4]), toy.presenter)
st.markdown("Every gradient has its quantity's shape: a first check on any backward pass.")
st.dataframe(shapes_table({"x": x, "h": cache.h.reshape(B, T, H), "out": out, **grads,
                           "dh": steps.dh.reshape(B, T, H), "dout": dout,
                           "W1": W1, "b1": b1, "W2": W2, "b2": b2}))  # fmt: skip
half_width(C, B * T)  # the hidden width halved, asked first
loop_dW2 = sum(np.outer(cache.h[n], dout2d[n]) for n in range(B * T))  # one position at a time
st.caption(
    f"Adding one outer product per position in a loop gives the same dW2, "
    f"{agreement(float(np.abs(loop_dW2 - steps.dW2).max()))}: the weights are shared, so every "
    "position contributes to their gradient."
)

st.subheader("3. Gradient check against centred differences")
if predicted(PRECISION):
    plain_check(toy, x, {"W1": W1, "b1": b1, "W2": W2, "b2": b2}, cache, dout)

st.subheader("4. Exercise: move a silent neuron's key")
# copies: a fragment keeps its arguments, and a view would keep the whole model alive
first = [a.copy() for a in (x.reshape(-1, C)[0], W1, b1, W2, b2, dout2d[0])]
silent_exercise(first, silent, bend.gate, answered, toy.presenter)

offer_notebook("Backprop", toy)
next_step("app_pages/Backprop.py")

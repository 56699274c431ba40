"""Backprop & gradient check: the backward pass step by step, and how to trust it."""

import numpy as np
import streamlit as st

from ffn_core import ffn_backward, ffn_forward, get_activation
from ffn_core.gradcheck import backward_ms, onto_kink
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement, position_labels
from ffn_ui.controls.predict import predicted
from ffn_ui.controls.url import bound_number, bound_select_slider, bound_toggle
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.parts.backprop import (
    LESSON_EXAMPLE,
    PRECISION,
    backward_steps,
    batch_and_block,
    error_table,
    forward_graph,
    gradient_maps,
    half_width,
    no_kink,
    power_of_ten,
    shapes_table,
    silent_exercise,
    upstream_gradient,
)
from ffn_ui.parts.backprop_gated import gated_backprop
from ffn_ui.parts.gradient_checks import EPSILONS, MAX_CHECKED, checked_form, form_sweep

INTRO = (
    "The backward pass walks the forward pass in reverse, reusing what the forward pass "
    "cached. Each gradient has the shape of its quantity. The weights are shared by every "
    "position, so their gradients add up the contributions of all B × T positions. A "
    "numerical gradient check then compares every analytic gradient with the slope measured "
    "by nudging one number at a time."
)


toy = setup("Backprop", "Backprop & gradient check", INTRO)
preset_button(st, "Preset: a small batch, B = 2, T = 4, C = 8, d_ff = 32", **LESSON_EXAMPLE)
B = bound_number("batch B (sequences)", "B", 1, 4, 1)
if toy.gated:  # SwiGLU's backward pass: ffn_ui/parts/backprop_gated.py
    gated_backprop(toy, B)
    next_step("app_pages/Backprop.py")
    st.stop()
x, W1, b1, W2, b2 = batch_and_block(toy, B)  # x (B, T, C); the block at most 256 × 1024
T, C, H = x.shape[1], x.shape[2], W1.shape[1]
out, cache = ffn_forward(x, W1, b1, W2, b2, toy.activation)  # (B, T, C)

st.subheader("1. The forward pass and its cache")
st.graphviz_chart(forward_graph(B, T, C, H, toy.activation_label))

st.subheader("2. The upstream gradient dout")
dout, loss = upstream_gradient(out)
st.metric("loss L", f"{loss:.6g}")

st.subheader("3. Backward, one step at a time")
dx, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
grads = {"dx": dx, "dW1": dW1, "db1": db1, "dW2": dW2, "db2": db2}
dout2d = dout.reshape(-1, C)
dh = dout2d @ W2.T  # (N, d_ff)
deriv = get_activation(toy.activation).derivative(cache.h_pre)  # (N, d_ff)
dh_pre = dh * deriv  # (N, d_ff)
gate = toy.activation == "relu"
first, rest = backward_steps(cache, dout2d, dh, deriv, dh_pre, grads, B, T, toy.activation_label)
st.caption(
    "Notice: dh_pre is zero wherever the gate is 0, however large dh is there, so no "
    "gradient reaches that neuron's key (its column of dW1) from that position."
    if gate
    else "Notice: a smooth activation has a nonzero slope almost everywhere, so a little "
    "gradient passes "
    "even where h_pre < 0."
)

show_in_pairs(gradient_maps(first), toy.presenter)
with st.expander("The other gradients: dW2, db2, db1 and dx"):
    show_in_pairs(gradient_maps(rest), toy.presenter)
st.markdown("Every gradient has its quantity's shape: a first check on any backward pass.")
st.dataframe(shapes_table({"x": x, "h": cache.h.reshape(B, T, H), "out": out, **grads,
                           "dh": dh.reshape(B, T, H), "dout": dout,
                           "W1": W1, "b1": b1, "W2": W2, "b2": b2}))  # fmt: skip
half_width(C, B * T)  # the hidden width halved, asked first
loop_dW2 = sum(np.outer(cache.h[n], dout2d[n]) for n in range(B * T))  # one position at a time
st.caption(
    f"Adding one outer product per position in a loop gives the same dW2, "
    f"{agreement(float(np.abs(loop_dW2 - dW2).max()))}: the weights are shared, so every "
    "position contributes to their gradient."
)

st.subheader("4. Gradient check against centred differences")
entries = x.size + W1.size + b1.size + W2.size + b2.size
guessed = predicted(PRECISION)
if guessed and entries > MAX_CHECKED:
    st.info(
        f"The check runs one entry at a time up to {MAX_CHECKED:,} entries; these sizes "
        f"have {entries:,}. Use the preset or smaller sizes to check."
    )
elif guessed:
    left, mid, right = st.columns(3)
    eps = bound_select_slider("ε", "eps", EPSILONS, 1e-6, power_of_ten, left)
    float32 = bound_toggle("compute in float32", "f32", False, mid)
    kink = bound_toggle("put one score on ReLU's kink", "kink", False, right) if gate else False
    if not gate:  # said, not greyed out: a disabled control's label is too faint to read
        right.caption(no_kink(toy))
    dtype_name = "float32" if float32 else "float64"
    b1_checked = b1
    if kink and gate:
        b1_checked, n, j = onto_kink(cache.h_pre, b1, eps)
        st.caption(
            f"Score h_pre at {position_labels(B, T)[n]}, neuron n{j + 1} set to ε/2 = "
            f"{eps / 2:.0e}: the nudge of ±ε now straddles the kink."
        )
    weights = {"W1": W1, "b1": b1_checked, "W2": W2, "b2": b2}
    errors = checked_form(x, weights, toy.activation, eps, dtype_name, 0)
    st.dataframe(error_table(errors))
    st.caption(
        f"Computed in {dtype_name}. Max relative error: the largest, over a quantity's "
        "entries, of |analytic − numerical| / (|analytic| + |numerical|). 1 means they disagree "
        "completely: opposite signs, or one of them 0 and the other not (in float32, often "
        "the numerical one: the nudge did not change the loss at all). Blue: within 1e-6, a "
        "correct backward pass. Yellow: within 1e-4. Red: above."
    )
    near = int(np.sum(np.abs(cache.h_pre) < eps)) if gate and not kink else 0
    if near:  # the lesson's own x = [1, −1] puts neuron 1's score exactly on 0
        st.caption(
            f"{near} of the {cache.h_pre.size} scores h_pre {'is' if near == 1 else 'are'} "
            "within ε of ReLU's kink at 0 already: a nudge of ±ε straddles the bend there, "
            "so the check can report a large error for a correct backward pass."
        )
    sweep, sample = form_sweep(x, weights, toy.activation, dtype_name, 0)
    if sample:
        st.caption(f"The sweep checks {sample} random entries of each quantity at each ε.")
    show(figures.eps_sweep(np.array(EPSILONS), sweep, eps), toy.presenter)
    st.metric(
        "forward passes the check needs",
        f"{2 * entries:,}",
        help=f"2 per entry × {entries:,} entries; one backward pass took "
        f"{backward_ms(dout, cache):.2f} ms and gives all of them at once.",
    )

st.subheader("5. Exercise: a silent neuron and its gradient")
# copies: a fragment keeps its arguments, and a view would keep the whole model alive
first = [a.copy() for a in (x.reshape(-1, C)[0], W1, b1, W2, b2, dout2d[0])]
silent_exercise(first, cache.h_pre[0], gate, toy.presenter)

next_step("app_pages/Backprop.py")

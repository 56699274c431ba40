"""Backprop & gradient check: the backward pass step by step, and how to trust it."""

import time

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import ffn_backward, ffn_forward, get_activation
from ffn_core.gradcheck import PARAMETER_NAMES
from ffn_core.typed_numbers import parse_row
from ffn_ui import figures
from ffn_ui.buttons import preset_button
from ffn_ui.charts import show
from ffn_ui.gradient_checks import EPSILONS, MAX_CHECKED, checked, eps_sweep, sweep_sample
from ffn_ui.path import next_step
from ffn_ui.setup import setup
from ffn_ui.url import (
    bound_number,
    bound_select,
    bound_select_slider,
    bound_slider,
    bound_text,
    bound_toggle,
)

MAX_SHOWN = 64  # heatmap rows and columns drawn
MAX_D_MODEL, MAX_D_FF = 256, 1024  # the largest block of the model this page runs
LOSSES = ("sum(out · G)", "squared error to a target", "typed in")
INTRO = (
    "The backward pass walks the forward pass in reverse, reusing what the forward pass "
    "cached. Each gradient has the shape of its quantity. The weights are shared by every "
    "position, so their gradients add up the contributions of all B × T positions. A "
    "numerical gradient check then compares every analytic gradient with the slope measured "
    "by nudging one number at a time."
)


model = setup("Backprop", "Backprop & gradient check", INTRO)
preset_button(  # the lesson's example, on random tokens
    st,
    "Preset: the lesson's B = 2, T = 4, C = 8, d_ff = 32",
    d_model=8,
    d_ff=32,
    tokens="random",
    T=4,
    B=2,
    act="ReLU",
    init="normal",
)
B = bound_number("batch B (sequences)", "B", 1, 4, 1)
T, C, H = model.T, min(model.d_model, MAX_D_MODEL), min(model.d_ff, MAX_D_FF)
if (model.d_model, model.d_ff) != (C, H):
    st.info(
        f"This page keeps every intermediate of the forward and backward pass, so it uses "
        f"the first {C} inputs and {H} neurons of the model (at most {MAX_D_MODEL} and "
        f"{MAX_D_FF})."
    )
rng = np.random.default_rng(model.d_model * 1000 + model.T)
x = np.stack([model.x[:, :C], *(rng.standard_normal((T, C)) for _ in range(B - 1))])  # (B,T,C)
_, W1, b1, W2, b2 = model.args
W1, b1, W2, b2 = W1[:C, :H], b1[:H], W2[:H, :C], b2[:C]
out, cache = ffn_forward(x, W1, b1, W2, b2, model.activation)  # (B, T, C)

st.subheader("1. The forward pass and its cache")
st.graphviz_chart(
    f"""digraph {{ rankdir=LR; node [shape=box, style=rounded, fontsize=12];
    x [label="x\\n(B, T, C) = ({B}, {T}, {C})"];
    hpre [label="h_pre = x·W1 + b1\\n({B}, {T}, {H})  cached"];
    h [label="h = {model.activation_label}(h_pre)\\n({B}, {T}, {H})  cached"];
    out [label="out = h·W2 + b2\\n({B}, {T}, {C})"];
    x -> hpre -> h -> out; }}"""
)

st.subheader("2. The upstream gradient dout")
loss_kind = bound_select("loss", "loss", LOSSES, LOSSES[0], radio=True, horizontal=True)
G = np.random.default_rng(0).standard_normal(out.shape)  # the fixed random G
if loss_kind == LOSSES[0]:
    dout, loss = G, float(np.sum(out * G))
    st.caption("L = sum(out · G) for a fixed random G, so dout = G exactly.")
elif loss_kind == LOSSES[1]:
    target = np.zeros_like(out)
    dout, loss = 2 * (out - target), float(np.sum((out - target) ** 2))
    st.caption("L = sum((out − target)²) with target 0, so dout = 2 (out − target).")
else:
    typed = bound_text(
        f"one row of dout ({C} numbers), used at every position",
        "dout",
        ", ".join(["1"] + ["0"] * (C - 1)),
        2000,
    )
    try:
        row = parse_row(typed, C)
    except ValueError as err:
        st.warning(f"Could not use that row ({err}); using 1, 0, 0, … instead.")
        row = np.eye(C)[0]
    dout = np.broadcast_to(row, out.shape).copy()
    loss = float(np.sum(out * dout))
    st.caption("L = sum(out · dout) for the row you typed, so its gradient is that row.")
st.metric("loss L", f"{loss:.6g}")

st.subheader("3. Backward, one step at a time")
dx, dW1, db1, dW2, db2 = ffn_backward(dout, cache)
dout2d = dout.reshape(-1, C)
dh = dout2d @ W2.T  # (N, d_ff)
gate = model.activation == "relu"
positions = [f"b{b + 1} t{t + 1}" for b in range(B) for t in range(T)]
neurons = [f"n{j + 1}" for j in range(min(H, MAX_SHOWN))]
coords = [f"c{c + 1}" for c in range(min(C, MAX_SHOWN))]
rows, k, c = positions[:MAX_SHOWN], len(neurons), len(coords)
steps = [
    ("dW2 = hᵀ · dout, summed over positions", dW2[:k, :c], neurons, coords),
    ("db2 = dout summed over positions", db2[None, :c], ["db2"], coords),
    ("dh = dout · W2ᵀ", dh[: len(rows), :k], rows, neurons),
]
deriv = get_activation(model.activation).derivative(cache.h_pre)  # (N, d_ff)
dh_pre = dh * deriv
steps += [
    (
        "the gate: 1 where h_pre > 0" if gate else f"{model.activation_label}'(h_pre), the slope",
        deriv[: len(rows), :k],
        rows,
        neurons,
    ),
    ("dh_pre = dh × gate", dh_pre[: len(rows), :k], rows, neurons),
    ("dW1 = xᵀ · dh_pre, summed over positions", dW1[:c, :k], coords, neurons),
    ("db1 = dh_pre summed over positions", db1[None, :k], ["db1"], neurons),
    ("dx = dh_pre · W1ᵀ", dx.reshape(-1, C)[: len(rows), :c], rows, coords),
]
st.caption(
    "Where h_pre ≤ 0 ReLU's gate is 0: no gradient passes back through that neuron at that "
    "position, however large dh is."
    if gate
    else "A smooth activation has a slope everywhere, so a little gradient passes "
    "even where h_pre < 0."
)
for first in range(0, len(steps), 2):  # two heatmaps a row
    pair = steps[first : first + 2]
    for column, (title, values, r, cl) in zip(st.columns(2), pair, strict=False):
        with column:
            show(figures.matrix_heatmap(values, r, cl, title, "gradient"), model.presenter)
# The shown block of dW2, rebuilt one position at a time.
loop_dW2 = sum(np.outer(cache.h[n, :k], dout2d[n, :c]) for n in range(B * T))
st.caption(
    f"Adding one outer product per position in a loop gives the same dW2 (largest "
    f"difference {np.abs(loop_dW2 - dW2[:k, :c]).max():.1e} over the block shown): the "
    "weights are shared, so every position contributes to their gradient."
)

st.subheader("4. Gradient check against float64 centred differences")
entries = x.size + W1.size + b1.size + W2.size + b2.size
left, mid, right = st.columns(3)
eps = bound_select_slider("ε", "eps", EPSILONS, 1e-6, lambda e: f"{e:.0e}", left)
float32 = bound_toggle("compute in float32", "f32", False, mid)
kink = bound_toggle("put one score on ReLU's kink", "kink", False, right, disabled=not gate)
dtype_name = "float32" if float32 else "float64"
if entries > MAX_CHECKED:
    st.info(
        f"The brute-force check runs up to {MAX_CHECKED:,} entries; these sizes have "
        f"{entries:,}. Use the preset or smaller sizes to check."
    )
else:
    b1_checked = b1.copy()
    if kink and gate:
        n, j = np.unravel_index(np.argmin(np.abs(cache.h_pre)), cache.h_pre.shape)
        b1_checked[j] += eps / 2 - cache.h_pre[n, j]  # h_pre[n, j] becomes eps / 2
        st.caption(
            f"Score h_pre at {positions[n]}, neuron n{j + 1} set to ε/2 = {eps / 2:.0e}:"
            " the nudge of ±ε now straddles the kink."
        )
    errors = checked(x, W1, b1_checked, W2, b2, model.activation, eps, dtype_name, 0)
    table = pd.DataFrame({"max relative error": errors}).T[list(PARAMETER_NAMES)].T

    def colour(value: float) -> str:
        shade = "#c8e6c9" if value <= 1e-6 else "#ffe0b2" if value <= 1e-4 else "#ffcdd2"
        return f"background-color: {shade}"

    st.dataframe(table.style.format("{:.2e}").map(colour))
    st.caption("Green: ≤ 1e-6, a correct backward pass. Amber: up to 1e-4. Red: above.")
    sample = sweep_sample(entries)
    sweep = eps_sweep(x, W1, b1_checked, W2, b2, model.activation, dtype_name, 0, sample)
    if sample:
        st.caption(f"The sweep checks {sample} random entries of each quantity at each ε.")
    show(
        figures.log_lines(
            np.array(EPSILONS),
            {"worst relative error": sweep},
            "too large an ε measures the curve's bend; too small, round-off",
            "ε",
            "max relative error",
            log_x=True,
        ),
        model.presenter,
    )

    start = time.perf_counter()
    ffn_backward(dout, cache)
    backward_s = time.perf_counter() - start
    st.metric(
        "forward passes the check needs",
        f"{2 * entries:,}",
        help=f"2 per entry × {entries:,} entries; one backward pass took "
        f"{backward_s * 1e3:.2f} ms and gives all of them at once.",
    )

st.subheader("5. Exercise: a silent neuron passes no gradient")
silent = np.argwhere(cache.h_pre[:1] < 0)  # (n, j) pairs of the first position
if not gate:
    st.info("Switch the activation to ReLU to try this exercise.")
elif len(silent) == 0:
    st.info("Every neuron fires on the first token; try another seed.")
else:
    j = int(silent[0][1])
    margin = -cache.h_pre[0, j]
    delta = bound_slider("nudge W1's column (decreases the score)", "nudge_w", 0.0, 2.0, 0.5, 0.1)
    x0 = x[0, 0]
    W1_nudged = W1.copy()
    W1_nudged[:, j] -= delta * x0 / max(float(x0 @ x0), 1e-12)  # lowers h_pre[0, j] by delta

    def loss_one(weights):
        return float(np.sum(ffn_forward(x0, weights, b1, W2, b2)[0] * dout2d[0]))

    _, one_cache = ffn_forward(x0, W1, b1, W2, b2)
    _, dW1_one, *_ = ffn_backward(dout2d[0], one_cache)
    st.markdown(
        f"Neuron n{j + 1} scores {-margin:.4g} on token {model.token_labels[0]}. Nudging its "
        f"key so the score drops by {delta:g} changes this token's loss by "
        f"**{loss_one(W1_nudged) - loss_one(W1):g}**, and this token's dW1 column for "
        f"n{j + 1} is **{np.abs(dW1_one[:, j]).max():g}** everywhere."
    )

next_step("pages/6_Backprop.py")

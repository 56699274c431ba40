"""The Backprop page for SwiGLU: its first figure (the gradient splitting at the product),
its forward pass and cache, its backward pass for every parameter and x, the shapes table
and the gradient check.

    gate = x·W_gate,  up = x·W_up,  a = silu(gate) ⊙ up,  out = a·W_down
    da    = dout·W_downᵀ               dW_down = aᵀ·dout
    dup   = da ⊙ silu(gate)            dW_up   = xᵀ·dup
    dgate = da ⊙ up ⊙ silu'(gate)      dW_gate = xᵀ·dgate
    dx    = dgate·W_gateᵀ + dup·W_upᵀ
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from ffn_core.swiglu import swiglu_backward, swiglu_forward, swiglu_steps
from ffn_ui import figures
from ffn_ui.controls.labels import agreement, labels, position_labels
from ffn_ui.controls.url import bound_select_slider, bound_toggle
from ffn_ui.page.display import show, show_in_pairs
from ffn_ui.page.predict import predicted
from ffn_ui.page.stage import explained
from ffn_ui.parts.backprop import (
    MAX_SHOWN,
    PRECISION,
    batch_of,
    error_table,
    gradient_maps,
    power_of_ten,
    shapes_table,
    upstream_gradient,
)
from ffn_ui.parts.gradient_checks import (
    EPSILONS,
    MAX_CHECKED,
    checked_form,
    form_sweep,
)


def batch_and_gated_block(toy, B: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The batch (backprop.batch_of) and SwiGLU's block the page runs, cut to (C, H)."""
    x, C, H = batch_of(toy, B)
    weights = {"W_gate": toy.W_gate[:C, :H], "W_up": toy.W_up[:C, :H], "W_down": toy.W_down[:H, :C]}
    return x, weights


def forward_graph(B: int, T: int, C: int, H: int) -> str:
    """SwiGLU's forward pass as a Graphviz graph, each box with its shape; what is cached."""
    hidden = f"({B}, {T}, {H})"
    return f"""digraph {{ rankdir=LR; node [shape=box, style=rounded, fontsize=12];
    x [label="x\\n(B, T, C) = ({B}, {T}, {C})"];
    gate [label="gate = x·W_gate\\n{hidden}  cached"];
    up [label="up = x·W_up\\n{hidden}  cached"];
    a [label="a = silu(gate) ⊙ up\\n{hidden}  cached"];
    out [label="out = a·W_down\\n({B}, {T}, {C})"];
    x -> gate -> a; x -> up -> a; a -> out; }}"""


def gated_steps(cache, steps, grads: dict, B: int, T: int):
    """The heatmaps of SwiGLU's backward pass, read from the core's own steps
    (swiglu_steps), as (title, values, row labels, column labels): first how the gradient
    splits at the product, then the weights' gradients and dx."""
    C, H = steps.dout2d.shape[1], cache.a.shape[1]
    rows = position_labels(B, T)[:MAX_SHOWN]
    neurons = labels("n", min(H, MAX_SHOWN))
    coords = labels("c", min(C, MAX_SHOWN))
    n, k, c = len(rows), len(neurons), len(coords)
    first = [
        ("da = dout · W_downᵀ", steps.da[:n, :k], rows, neurons),
        ("silu(gate): how much of da reaches up", cache.s[:n, :k], rows, neurons),
        ("dup = da ⊙ silu(gate)", steps.dup[:n, :k], rows, neurons),
        ("dgate = da ⊙ up ⊙ silu'(gate)", steps.dgate[:n, :k], rows, neurons),
    ]
    rest = [
        ("dW_gate = xᵀ · dgate, summed over positions", grads["dW_gate"][:c, :k], coords, neurons),
        ("dW_up = xᵀ · dup, summed over positions", grads["dW_up"][:c, :k], coords, neurons),
        ("dW_down = aᵀ · dout, summed over positions", grads["dW_down"][:k, :c], neurons, coords),
        ("dx = dgate · W_gateᵀ + dup · W_upᵀ", grads["dx"].reshape(-1, C)[:n, :c], rows, coords),
    ]
    return first, rest


def gated_backprop(toy, B: int, picture, controls, intro: str) -> None:
    """The Backprop page for SwiGLU: its first figure (the gradient splitting at the
    product) in `picture`, the loss beside it in `controls`, the page's explanation
    `intro`, then sections 1 to 3, and why the exercise of section 4 is ReLU's."""
    gated_sections(toy, B, picture, controls, intro)
    st.subheader("4. Exercise: move a silent neuron's key")
    st.info(
        "The exercise is ReLU's, whose silent neurons get exactly no gradient; a SwiGLU "
        "neuron is never exactly silent. Choose ReLU in the sidebar to try it."
    )


def gated_sections(toy, B: int, picture, controls, intro: str) -> None:
    """The first figure, then sections 1 to 3 for SwiGLU: the forward pass, each backward
    step, the check."""
    x, weights = batch_and_gated_block(toy, B)  # x (B, T, C)
    T, C, H = x.shape[1], x.shape[2], weights["W_gate"].shape[1]
    out, cache = swiglu_forward(x, **weights)  # (B, T, C)
    with controls:
        dout, loss = upstream_gradient(out)
        st.metric("loss L", f"{loss:.6g}")
    dx, dW_gate, dW_up, dW_down = swiglu_backward(dout, cache)
    grads = {"dx": dx, "dW_gate": dW_gate, "dW_up": dW_up, "dW_down": dW_down}
    steps = swiglu_steps(dout, cache)  # the core's own steps: da, dup, dgate
    first, rest = gated_steps(cache, steps, grads, B, T)
    panels = [figures.Panel(title, v, title.split(" ", 1)[0]) for title, v, _, _ in first]
    with picture:
        title = "Back through the product: da splits into dup and dgate"
        show(figures.stacked_maps(panels, first[0][2], first[0][3], title), toy.presenter)
    with controls:
        st.caption(
            "Notice: at the product the gradient splits in two. up's share is da times "
            "silu(gate), so where a gate is shut (silu(gate) near 0) almost none reaches that "
            "neuron's up key; the gate's share is da times up times silu's slope, which is not "
            "0 anywhere except at one gate (about −1.28), so every gate key learns a little."
        )
    explained(intro, toy.presenter)

    st.subheader("1. The forward pass and its cache")
    st.graphviz_chart(forward_graph(B, T, C, H))

    st.subheader("2. Backward, one step at a time")
    with st.expander("The weights' gradients and dx: dW_gate, dW_up, dW_down and dx"):
        show_in_pairs(gradient_maps(rest), toy.presenter)
    st.markdown("Every gradient has its quantity's shape: a first check on any backward pass.")
    hidden = {"gate": cache.gate, "up": cache.up, "a": cache.a, "da": steps.da}
    st.dataframe(shapes_table({
        "x": x, **{k: v.reshape(B, T, H) for k, v in hidden.items()}, "out": out, "dout": dout,
        **weights, **grads,
    }))  # fmt: skip
    loop = sum(np.outer(cache.a[n], steps.dout2d[n]) for n in range(B * T))  # per position
    st.caption(
        f"Adding one outer product a ⊗ dout per position in a loop gives the same dW_down, "
        f"{agreement(float(np.abs(loop - dW_down).max()))}: the weights are shared, so every "
        "position contributes to their gradient."
    )

    st.subheader("3. Gradient check against centred differences")
    entries = x.size + sum(w.size for w in weights.values())
    if not predicted(PRECISION):
        return
    if entries > MAX_CHECKED:
        st.info(
            f"The check runs one entry at a time up to {MAX_CHECKED:,} entries; these sizes "
            f"have {entries:,}. Use the preset or smaller sizes to check."
        )
        return
    left, right = st.columns(2)
    eps = bound_select_slider("ε", "eps", EPSILONS, 1e-6, power_of_ten, left)
    dtype_name = "float32" if bound_toggle("compute in float32", "f32", False, right) else "float64"
    st.dataframe(error_table(checked_form(x, weights, "swiglu", eps, dtype_name, 0)))
    st.caption(
        f"Computed in {dtype_name}, every entry of W_gate, W_up, W_down and x nudged by ±ε. "
        "Max relative error: the largest, over a quantity's entries, of |analytic − "
        "numerical| / (|analytic| + |numerical|). Blue: within 1e-6, a correct backward "
        "pass. Yellow: within 1e-4. Red: above. SwiGLU has no kink, so no score sits on one."
    )
    sweep, sample = form_sweep(x, weights, "swiglu", dtype_name, 0)
    if sample:
        st.caption(f"The sweep checks {sample} random entries of each quantity at each ε.")
    show(figures.eps_sweep(np.array(EPSILONS), sweep, eps), toy.presenter)
    st.metric("forward passes the check needs", f"{2 * entries:,}", help="2 per entry")

"""The Backprop page's pieces: the loss it differentiates, the forward graph, the tables
and the heatmap lists: what each gradient is, where it comes from, and its shape."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import ffn_backward, ffn_forward
from ffn_core.gradcheck import loss_along_score
from ffn_core.lessons.costs import ffn_flops, ffn_params
from ffn_core.typed_numbers import parse_row
from ffn_ui import figures
from ffn_ui.controls.labels import labels, position_labels
from ffn_ui.controls.url import bound_select, bound_slider, bound_text
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted

LOSSES = ("sum(out · G)", "squared error to a target", "typed in")
MAX_D_MODEL, MAX_D_FF = 256, 1024  # the largest block of the model the page runs
# Lesson 001's example, on random tokens.
LESSON_EXAMPLE = dict(d_model=8, d_ff=32, tokens="random", T=4, B=2, act="ReLU", init="normal")

MAX_SHOWN = 64  # heatmap rows and columns drawn
EPSILON_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def power_of_ten(e: float) -> str:
    """1e-06 -> "10⁻⁶": how both the ε slider and the sweep's axis write ε."""
    exponent = round(np.log10(e))
    digits = "".join(EPSILON_DIGITS[int(d)] for d in str(abs(exponent)))
    return f"10{'⁻' if exponent < 0 else ''}{digits}"


# A relative error's band: (upper bound, words, shade). Blue, yellow, red differ for every
# common colour-vision deficiency (tests/ui/test_colour_vision.py), and the words say it too.
ERROR_BANDS = (
    (1e-6, "within 1e-6", "#CFE5F7"),
    (1e-4, "within 1e-4", "#F9E29A"),
    (np.inf, "above 1e-4", "#EE9F86"),
)


def error_band(value: float) -> tuple[str, str]:
    """(words, shade) of a relative error's band."""
    return next((words, shade) for bound, words, shade in ERROR_BANDS if value <= bound)


def row_shade(row: pd.Series) -> list[str]:
    """The background of every cell of a row: its error's band."""
    return [f"background-color: {error_band(row['max relative error'])[1]}"] * len(row)


def shapes_table(quantities: dict[str, np.ndarray]) -> pd.DataFrame:
    """Each quantity and its gradient with their shapes: the rule is that they match.

    quantities: name -> array, the gradients named with a leading d (dW1 for W1).
    """
    rows = []
    for name, arr in quantities.items():
        if name.startswith("d") and name[1:] in quantities:
            continue
        grad = quantities.get(f"d{name}")
        rows.append(
            {
                "quantity": name,
                "shape": str(tuple(arr.shape)),
                "its gradient": f"d{name}" if grad is not None else "(not a parameter)",
                "gradient shape": str(tuple(grad.shape)) if grad is not None else "—",
            }
        )
    return pd.DataFrame(rows).set_index("quantity")


def backward_steps(steps, bend, B: int, T: int):
    """The backward pass's maps, read from the core's own steps (ffn_backward_steps): the
    chain through the gate (dh, the gate or the activation's slope, dh_pre) as Panels, then
    the gradients made from it and from dout, as (title, values, row labels, column
    labels)."""
    dh, deriv, dh_pre = steps.dh, steps.slope, steps.dh_pre  # (N, H) each
    grads = steps.gradients()
    C, H = steps.db2.shape[0], dh.shape[1]
    n, k, c = min(B * T, MAX_SHOWN), min(H, MAX_SHOWN), min(C, MAX_SHOWN)
    rows, neurons, coords = position_labels(B, T)[:n], labels("n", k), labels("c", c)
    gate = bend.gate  # a slope of only 0 or 1 gates dh
    chain = [
        figures.Panel("dh = dout · W2ᵀ", dh[:n, :k], "dh"),
        figures.Panel(
            "the gate: 1 where h_pre > 0, else 0" if gate else f"{bend.label}'(h_pre), the slope",
            deriv[:n, :k],
            "gate" if gate else "slope",
            gate=gate,
        ),
        figures.Panel(
            "dh_pre = dh × gate" if gate else f"dh_pre = dh × {bend.label}'(h_pre)",
            dh_pre[:n, :k],
            "dh_pre",
        ),
    ]
    maps = [
        ("dW1 = xᵀ · dh_pre, summed over positions", grads["dW1"][:c, :k], coords, neurons),
        ("db1 = dh_pre summed over positions", grads["db1"][None, :k], ["db1"], neurons),
        ("dW2 = hᵀ · dout, summed over positions", grads["dW2"][:k, :c], neurons, coords),
        ("db2 = dout summed over positions", grads["db2"][None, :c], ["db2"], coords),
        ("dx = dh_pre · W1ᵀ", grads["dx"].reshape(-1, C)[:n, :c], rows, coords),
    ]
    return chain, maps, rows, neurons


def gate_notice(bend) -> str:
    """What the chain's last map shows, said once its question is answered."""
    if bend.gate:
        return (
            "Notice: dh_pre is zero wherever the gate is 0, however large dh is there, so no "
            "gradient reaches that neuron's key (its column of dW1) from that position."
        )
    if bend.zero_below:
        return (
            f"Notice: dh_pre is zero wherever h_pre ≤ 0, where {bend.label}'s slope is 0, "
            "however large dh is there; above 0 it is dh scaled by the slope."
        )
    if not bend.bends:
        return "Notice: the slope is 1 everywhere, so dh_pre is dh itself."
    return (
        "Notice: a smooth activation has a nonzero slope almost everywhere, so a little "
        "gradient passes even where h_pre < 0."
    )


def forward_graph(B: int, T: int, C: int, H: int, activation_label: str) -> str:
    """The forward pass as a Graphviz chain, each box with its shape; h_pre and h cached."""
    return f"""digraph {{ rankdir=LR; node [shape=box, style=rounded, fontsize=12];
    x [label="x\\n(B, T, C) = ({B}, {T}, {C})"];
    hpre [label="h_pre = x·W1 + b1\\n({B}, {T}, {H})  cached"];
    h [label="h = {activation_label}(h_pre)\\n({B}, {T}, {H})  cached"];
    out [label="out = h·W2 + b2\\n({B}, {T}, {C})"];
    x -> hpre -> h -> out; }}"""


def upstream_gradient(out: np.ndarray) -> tuple[np.ndarray, float]:
    """The learner's choice of loss, drawn, and (dout, L) for it; out is (B, T, C)."""
    C = out.shape[-1]
    kind = bound_select("loss", "loss", LOSSES, LOSSES[0], radio=True, horizontal=True)
    if kind == LOSSES[0]:
        G = np.random.default_rng(0).standard_normal(out.shape)  # the fixed random G
        st.caption(
            "L = sum(out · G) for a fixed random G, so dout, the loss's gradient at out, is G."
        )
        return G, float(np.sum(out * G))
    if kind == LOSSES[1]:
        target = np.zeros_like(out)
        st.caption("L = sum((out − target)²) with target 0, so dout = 2 (out − target).")
        return 2 * (out - target), float(np.sum((out - target) ** 2))
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
    st.caption("L = sum(out · dout) for the row you typed, so its gradient is that row.")
    dout = np.broadcast_to(row, out.shape).copy()
    return dout, float(np.sum(out * dout))


def gradient_maps(steps: list[tuple]) -> list:
    """One heatmap per (title, values, row labels, column labels) of backward_steps, its
    colour bar named by the gradient's own name (dW1, db1, …)."""
    return [
        figures.matrix_heatmap(v, rows, cols, title, title.split(" ", 1)[0])
        for title, v, rows, cols in steps
    ]


def error_table(errors: dict[str, float]):
    """The check's largest relative error per quantity, its band in words, and each row
    shaded by its band."""
    table = pd.DataFrame({"max relative error": errors})  # each weight, then x
    table["band"] = [error_band(e)[0] for e in table["max relative error"]]
    return table.style.format({"max relative error": "{:.2e}"}).apply(row_shade, axis=1)


PRECISION_ANSWER = "10⁻⁶ or smaller in float64, 10⁻² or worse in float32"
PRECISION = Question(
    "Predict: the check nudges each number by ε = 10⁻⁶ both ways, takes the centred "
    "difference (L(+ε) − L(−ε)) / 2ε as its slope, and compares: |a − n| / (|a| + |n|). On a "
    "correct backward pass, what relative error does it report in float64, and in float32?",
    "guess_precision",
    ("about 10⁻⁷ in both", PRECISION_ANSWER, "0 in both"),
    answer=PRECISION_ANSWER,
    why="float64 keeps about 16 digits: a nudge of 10⁻⁶ moves the loss around its 6th "
    "digit, so the centred difference keeps about 10 of them, and most entries agree to "
    "about 10⁻¹⁰; an entry whose gradient is tiny keeps fewer, so the worst can reach 10⁻⁷ "
    "or 10⁻⁶. float32 keeps about 7, so the same nudge is lost in the loss's own round-off "
    "and the check fails on a correct backward pass. That is why the check runs in float64.",
)


def first_silent(h_pre0: np.ndarray) -> tuple[int, float] | None:
    """(j, margin): the first neuron scoring 0 or below on the first token (ReLU passes
    nothing for it), and how far below 0 its score is; None if every neuron fires."""
    silent = np.flatnonzero(h_pre0 <= 0)
    return (int(silent[0]), float(-h_pre0[silent[0]])) if len(silent) else None


def scored(j: int, margin: float, label: str = "ReLU", kink: bool = True) -> str:
    """Neuron j's score on the first token, in words: exactly 0 (on a kink), or below."""
    if margin == 0:
        at = f"it sits on {label}'s kink" if kink else f"where {label} starts to rise"
        return f"n{j + 1} scores exactly 0 on the first token: {at}"
    return f"n{j + 1} scores {-margin:.4g} on the first token".replace("-", "−")


def silent_key_question(j: int, margin: float, bend) -> Question:
    """The page's question about neuron j (0-based), silent on the first token (it scores
    −margin, 0 or below) under an activation that is exactly 0 there, outlined on the
    first figure."""
    at_zero = (
        f"{bend.label}'s slope at its kink is taken as 0"
        if bend.kink
        else f"{bend.label}'s slope there is {bend.slope} = 0"
    )
    return Question(
        f"Predict: neuron {scored(j, margin, bend.label, bend.kink)} (outlined), so "
        f"{bend.label} passes nothing. What is "
        f"this token's share of dW1's column for n{j + 1}, the gradient of its key?",
        "guess_dw1",
        ("exactly zero", "small, but not zero", "as large as for a firing neuron"),
        answer="exactly zero",
        why=f"{bend.label}'s slope is 0 there (at exactly 0 too: {at_zero}), so "
        "dh_pre = dh × 0 = 0 and dW1[:, j] = x · dh_pre = 0: the loss does not change "
        "as the key moves, until the score rises above zero.",
    )


def batch_of(toy, B: int) -> tuple[np.ndarray, int, int]:
    """B sequences, the sidebar's tokens first and B - 1 random ones after, (B, T, C), with C
    and H the model's sizes up to MAX_D_MODEL and MAX_D_FF; says so when it cuts them down.
    Either form of the FFN cuts its block to (C, H)."""
    T, C, H = toy.T, min(toy.d_model, MAX_D_MODEL), min(toy.d_ff, MAX_D_FF)
    if (toy.d_model, toy.d_ff) != (C, H):
        st.info(
            f"This page keeps every intermediate of the forward and backward pass, so it uses "
            f"the first {C} inputs and {H} neurons of the model (at most {MAX_D_MODEL} and "
            f"{MAX_D_FF})."
        )
    rng = np.random.default_rng(toy.d_model * 1000 + toy.T)
    x = np.stack([toy.x[:, :C], *(rng.standard_normal((T, C)) for _ in range(B - 1))])
    return x, C, H


def batch_and_block(toy, B: int) -> tuple[np.ndarray, ...]:
    """The batch (batch_of) and the plain block the page runs: (x (B, T, C), W1 (C, H),
    b1 (H,), W2 (H, C), b2 (C,))."""
    x, C, H = batch_of(toy, B)
    return x, toy.W1[:C, :H], toy.b1[:H], toy.W2[:H, :C], toy.b2[:C]


def silent_exercise(first: list[np.ndarray], silent, relu: bool, answered: bool, presenter):
    """The last section: move the silent neuron's key, once the page's question about it
    is answered, or why there is none. `first`: copies of (x0, W1, b1, W2, b2, dout0);
    `silent`: first_silent's (j, margin) on the first token."""
    if not relu:
        st.info("Switch the activation to ReLU to try this exercise.")
    elif silent is None:
        st.info(
            "Every neuron scores above 0 on the first token, so none is silent: change the "
            "first token or the weights until one scores 0 or below."
        )
    else:
        silent_neuron_exercise(*first, *silent, answered, presenter)


@st.fragment
def silent_neuron_exercise(
    x0: np.ndarray,
    W1: np.ndarray,
    b1: np.ndarray,
    W2: np.ndarray,
    b2: np.ndarray,
    dout0: np.ndarray,
    j: int,
    margin: float,
    answered: bool,
    presenter: bool,
) -> None:
    """The exercise reruns on its own, so a class moving the nudge reruns only this section.

    x0 (C,) is the first token, dout0 (C,) its upstream gradient; neuron j (0-based) scores
    −margin on it, zero or below, under ReLU."""
    where = "and ReLU passes nothing there" if margin == 0 else "so ReLU passes nothing"
    st.markdown(
        f"Neuron {scored(j, margin)}, {where}: it is silent. Move its key so that the score "
        "changes by s, and watch this token's loss and its gradient."
    )
    if not answered:
        st.caption("This waits for the answer to the question at the top of the page.")
        return
    limit = round(max(3.0, 2 * margin), 1)
    shift = bound_slider("change the score by s", "nudge_w", -limit, limit, 0.5, 0.1)
    shifts = np.linspace(-limit, limit, 161)
    losses = loss_along_score(x0, W1, b1, W2, b2, dout0, j, shifts)
    st.caption(
        f"Notice: flat while the score is at or below zero (s ≤ {margin:.3g}), a straight "
        "line after: the kink is where the neuron starts to fire."
    )
    show(figures.loss_along_score(shifts, losses, margin, shift), presenter)
    moved = W1.copy()
    moved[:, j] += shift * x0 / max(float(x0 @ x0), 1e-12)  # the score moves by s, no other
    _, dW1_moved, *_ = ffn_backward(dout0, ffn_forward(x0, moved, b1, W2, b2)[1])
    column = dW1_moved[:, j]
    biggest = float(column[np.argmax(np.abs(column))])  # signed, as the column holds it
    st.markdown(
        f"At s = {shift:g} (score {shift - margin:.4g}), this token's dW1 column for n{j + 1}: "
        f"its largest entry in size **{biggest:.4g}**. The loss differs from the "
        f"loss at s = 0 by **{float(np.interp(shift, shifts, losses) - losses[80]):.4g}**."
    )


WIDTHS = (
    "parameters and FLOPs about halve; dW1 becomes C × 2C",
    "parameters halve, FLOPs stay the same; dW1 keeps its shape",
    "only the number of neurons changes",
)


def half_width(C: int, T: int) -> None:
    """The hidden width from 4C to 2C, asked before it is counted: parameters, forward
    FLOPs over T tokens, and dW1's shape."""
    wide, narrow = 4 * C, 2 * C
    params = [ffn_params(C, H) for H in (wide, narrow)]
    flops = [ffn_flops(T, C, H) for H in (wide, narrow)]
    question = Question(
        f"Predict: the hidden width H goes from 4C to 2C, C being d_model (here {wide} to "
        f"{narrow} neurons). "
        "What happens to the FFN's parameters, its FLOPs and the shape of dW1?",
        "guess_width",
        WIDTHS,
        answer=WIDTHS[0],
        why=f"every count is linear in H: the parameters 2·C·H + H + C go from {params[0]:,} to "
        f"{params[1]:,}, the forward FLOPs 4·T·C·H from {flops[0]:,} to {flops[1]:,}, and "
        f"dW1 always has W1's shape, C × H: ({C}, {wide}) becomes ({C}, {narrow}).",
    )
    if predicted(question, setting=(C, T)):
        table = pd.DataFrame(
            {
                "parameters": params,
                f"forward FLOPs, {T} tokens": flops,
                "dW1's shape": [f"({C}, {H})" for H in (wide, narrow)],
            },
            index=[f"H = 4C = {wide}", f"H = 2C = {narrow}"],
        )
        st.dataframe(table)


def no_kink(toy) -> str:
    """Why Backprop offers no kink to put a score on: the activation has none."""
    if not toy.bend.bends:
        return "No kink here: the identity is a straight line."
    return (
        f"No kink here: {toy.activation_label} bends smoothly through 0, so its slope never "
        "jumps as ReLU's does (from 0 to 1)."
    )

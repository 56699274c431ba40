"""Traps: the classic mistakes of the by-hand FFN, made visible."""

import inspect

import numpy as np
import streamlit as st

import ffn_core.reference
from ffn_core import (
    ffn_forward,
    ffn_forward_flat,
    ffn_forward_flat_one_stride,
    ffn_forward_flat_relu_after_w2,
)
from ffn_ui import figures
from ffn_ui.buttons import preset_button
from ffn_ui.charts import show
from ffn_ui.path import next_step
from ffn_ui.setup import setup
from ffn_ui.url import bound_number, bound_select

GUESSES = ("not sure yet", "the same answer", "a different answer or a crash")
INTRO = (
    "Two mistakes catch almost everyone who writes the FFN by hand, and both hide on the "
    "small examples people test with. Guess first, then look."
)


SHAPES = ("square", "H > D", "H < D")
NEW_GUESSES = {"guess_stride": "not sure yet", "guess_t": "not sure yet"}  # new sizes, new guesses


def outcome(fn, *args) -> tuple[list[float] | None, str]:
    """Run a possibly buggy version; a crash is an outcome too."""
    try:
        return fn(*args), ""
    except (IndexError, ValueError) as err:
        return None, f"{type(err).__name__}: {err}"


def verdict(guess: str, same: bool) -> None:
    if guess == GUESSES[0]:
        st.info("Make your guess above to see the result.")
        return
    right = (guess == GUESSES[1]) == same
    message = "the same answer" if same else "a different answer (or no answer at all)"
    (st.success if right else st.error)(f"{'Right' if right else 'Not this time'}: {message}.")


model = setup("Traps", "Traps: the mistakes that square examples hide", INTRO)

st.subheader("1. Orientation: one stride for two matrices")
st.markdown(
    "By hand, in the W @ x convention, W1 is H × D and W2 is D × H, both stored as flat "
    "row-major lists: row i of W1 starts at i·D, row i of W2 at i·H. The mistake reads "
    "W2 with W1's stride D."
)
left, mid, right = st.columns([1, 1, 2])
D = bound_number("D (d_model)", "D", 1, 8, 3, left)
H = bound_number("H (d_ff)", "H", 1, 8, 5, mid)
with right:
    st.caption("Presets")
    buttons = st.columns(3)
    for place, label, (d, h) in zip(buttons, SHAPES, [(3, 3), (3, 5), (5, 3)], strict=True):
        preset_button(place, label, D=d, H=h, **NEW_GUESSES)
rng = np.random.default_rng(D * 10 + H)
x = rng.integers(-3, 4, D).astype(float).tolist()
W1 = rng.integers(-2, 3, H * D).astype(float).tolist()
b1 = [0.0] * H
W2 = rng.integers(-2, 3, D * H).astype(float).tolist()
b2 = [0.0] * D
guess = bound_select(
    f"With D = {D} and H = {H}, will the one-stride version give the same answer?",
    "guess_stride",
    GUESSES,
    GUESSES[0],
    radio=True,
)
right_out = ffn_forward_flat(x, W1, b1, W2, b2)
wrong_out, crash = outcome(ffn_forward_flat_one_stride, x, W1, b1, W2, b2)
verdict(guess, wrong_out == right_out)
if guess != GUESSES[0]:
    left, right = st.columns(2)
    left.markdown("**correct strides**")
    left.code(repr(right_out))
    right.markdown("**one stride (D) for both**")
    right.code(crash or repr(wrong_out))
    st.caption(
        "When H = D the two strides are the same number, so every square test passes. With "
        "H > D the mistake reads the wrong numbers silently; with H < D it runs off the end."
    )

st.subheader("2. Orientation: a transposed matrix in the x @ W convention")
guess_t = bound_select(
    f"Passing W1 transposed ({H} × {D} instead of {D} × {H}): same answer?",
    "guess_t",
    GUESSES,
    GUESSES[0],
    radio=True,
)
W1m = np.array(W1).reshape(H, D).T  # (D, H): x @ W convention
W2m = np.array(W2).reshape(D, H).T  # (H, D)
good, _ = ffn_forward(np.array(x), W1m, np.zeros(H), W2m, np.zeros(D))
transposed, refusal = outcome(
    lambda: ffn_forward(np.array(x), W1m.T, np.zeros(H), W2m, np.zeros(D))[0].tolist()
)
verdict(guess_t, transposed is not None and np.allclose(transposed, good))
if guess_t != GUESSES[0]:
    if refusal:
        st.markdown("The core checks shapes and refuses, naming what it got and expected:")
        st.code(refusal)
    else:
        st.markdown(
            f"Square, so it runs silently: {np.round(transposed, 4).tolist()} instead "
            f"of {np.round(good, 4).tolist()}."
        )

st.subheader("3. An activation after W2")
st.markdown(
    "The block adds the FFN's output to the token: x + FFN(x). Put a ReLU on the output "
    "too and every coordinate the FFN wanted to push down is stopped at zero."
)
guess_clamp = bound_select(
    "With a ReLU after W2, can x + FFN(x) still lower any coordinate of a token?",
    "guess_clamp",
    ("not sure yet", "yes", "no"),
    "not sure yet",
    radio=True,
)
out, _ = ffn_forward(*model.args, model.activation)  # (T, d_model)
clamped = np.maximum(out, 0)
if guess_clamp == "not sure yet":
    st.info("Make your guess above to see the result.")
else:
    (st.success if guess_clamp == "no" else st.error)(
        ("Right" if guess_clamp == "no" else "Not this time")
        + ": clamped at zero, the update can only raise a coordinate or leave it."
    )
    blocked = int(np.sum(out < 0))
    st.metric(
        "residual updates that would have pushed a coordinate down, blocked by the clamp",
        f"{blocked} of {out.size}",
    )
    shown = min(model.d_model, 64)
    coords = [f"c{c + 1}" for c in range(shown)]
    left, right = st.columns(2)
    with left:
        show(
            figures.matrix_heatmap(
                out[:, :shown],
                model.token_labels,
                coords,
                "update x + FFN(x) − x, correct",
                "update",
            ),
            model.presenter,
        )
    with right:
        show(
            figures.matrix_heatmap(
                clamped[:, :shown],
                model.token_labels,
                coords,
                "the same with ReLU after W2",
                "update",
            ),
            model.presenter,
        )
    if model.activation == "relu":
        w = model.weights  # the by-hand version takes W @ x matrices as flat lists
        by_hand = ffn_forward_flat_relu_after_w2(
            model.x[0].tolist(),
            w["W1"].T.ravel().tolist(),
            w["b1"].tolist(),
            w["W2"].T.ravel().tolist(),
            w["b2"].tolist(),
        )
        agree = np.allclose(by_hand, clamped[0])
        st.caption(
            f"The by-hand clamped version gives the same on {model.token_labels[0]}: {agree}."
        )

st.subheader("4. A reference to check your own exercise")
st.markdown(
    "This is the by-hand forward pass the app itself runs (its source, shown as it is): "
    "plain Python lists, the W @ x convention, one ReLU between the two layers."
)
st.code(inspect.getsource(ffn_core.reference), language="python")

next_step("pages/7_Traps.py")

"""Position-wise: the same MLP at every position, and no mixing between them."""

import numpy as np
import streamlit as st

from ffn_core import attention_flops, ffn_flops, quadratic_crossover
from ffn_core.costs import default_heads
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement, labels
from ffn_ui.controls.pickers import pick_token, tokens_gone
from ffn_ui.controls.predict import Question, predicted
from ffn_ui.controls.url import bound_number, bound_slider
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup

MAX_SHOWN = 64  # output coordinates drawn
INTRO = (
    "Attention mixes the tokens of a sequence. Does the FFN? Nudge one token's input below, "
    "predict what happens to the other tokens' outputs, and then see why all T tokens can go "
    "through the FFN together as one (T × d_model) · (d_model × d_ff) matrix product."
)
WHY = (
    "The FFN never looks at two tokens at once: every token's vector goes through the same "
    "weights on its own (W1, the activation and W2; or SwiGLU's W_gate, W_up and W_down), "
    "like a 1 × 1 convolution sliding along the sequence "
    "(a filter one position wide: the same weights at every position, nothing mixed across "
    "positions). Mixing tokens is attention's job. Because the tokens are independent, all T "
    "of them go through together as one matrix product."
)


toy = setup("Position-wise", "Position-wise: the same MLP at every token", INTRO)
x = toy.x  # (T, d_model)
d = min(toy.d_model, MAX_SHOWN)
coords = labels("out", d)

st.subheader("1. Nudge one token")
left, mid, right = st.columns(3)
t = pick_token(toy.token_labels, "token to nudge", "ptok", left, gone=tokens_gone(toy))
token = toy.token_labels[t]
coord = bound_number(
    "coordinate", "coord", 1, toy.d_model, 1, mid, gone=f"now that d_model = {toy.d_model}"
)
nudge = bound_slider("by", "nudge", -3.0, 3.0, 1.0, 0.1, right)
preset_button(st, "Preset: nudge the first coordinate by 1.5", nudge=1.5, coord=1)
out = toy.forward(x)  # (T, d_model)
x_nudged = x.copy()
x_nudged[t, coord - 1] += nudge
out_nudged = toy.forward(x_nudged)
change = out_nudged - out  # (T, d_model)
others = np.delete(change, t, axis=0)
question = Question(
    f"Predict: nudge token {token}. Which rows of the change map below light up?",
    "guess_rows_moved",
    ("only its own row", "its row and its neighbours' rows", "every row"),
    answer="only its own row",
    why="each token goes through the FFN's weights alone, so changing one token's "
    "input can change only that token's output. Attention, not the FFN, lets a change at "
    "one position reach another.",
)
if predicted(question):
    st.markdown(WHY)
    left, right = st.columns(2)
    moved_elsewhere = np.abs(others).max(initial=0)
    left.metric("largest change in the other tokens' outputs", f"{moved_elsewhere:g}")
    right.metric(f"largest change in {token}'s output", f"{np.abs(change[t]).max():.4g}")
    st.caption("Notice: the whole change sits in one row, however the nudge is set.")
    show(
        figures.matrix_heatmap(
            change[:, :d], toy.token_labels, coords, "change in FFN(x) after the nudge", "change"
        ),
        toy.presenter,
    )

st.subheader("2. Shuffle the tokens, and the outputs shuffle the same way")
seed = bound_number(
    "which shuffle",
    "perm",
    0,
    999,
    1,
    help="Each number is one random order of the tokens; change it for another.",
)
perm = np.random.default_rng(seed).permutation(toy.T)
st.caption(f"New order: {', '.join(toy.token_labels[i] for i in perm)}.")
out_perm = toy.forward(x[perm])
st.metric("max |FFN(shuffled x) − shuffled FFN(x)|", f"{np.abs(out_perm - out[perm]).max():g}")
show(
    figures.matrix_heatmap(
        out_perm[:, :d],
        [toy.token_labels[i] for i in perm],
        coords,
        "FFN of the shuffled tokens: each row is still its token's output",
        "output",
    ),
    toy.presenter,
)

st.subheader("3. One batched product instead of T small ones")
rows = np.array([toy.forward(x[i]) for i in range(toy.T)])
first = "W_gate" if toy.gated else "W1"
st.markdown(
    f"`x` is {toy.T} × {toy.d_model}; `x @ {first}` is one product giving all {toy.T} × "
    f"{toy.d_ff} scores at once. Running the tokens one by one gives the same output, "
    f"{agreement(float(np.abs(rows - out).max()))}, only slower."
)

st.subheader("4. Cost: the FFN grows with T, attention with T²")
T = np.unique(np.geomspace(1, 131072, 120).astype(int))
attn = attention_flops(T, toy.d_model, default_heads(toy.d_model))
cross = quadratic_crossover(toy.d_ff, toy.cost_kind)
m = 3 if toy.gated else 2  # weight matrices: each costs 2·T·d_model·d_ff
st.caption(
    f"FLOPs (floating-point operations; a multiply-add counts as 2) of one forward pass "
    f"for your d_model = {toy.d_model}, d_ff = {toy.d_ff}. "
    f"Attention's T² terms (scores and mixing, 4·T²·d_model) overtake the FFN "
    f"({2 * m}·T·d_model·d_ff, {m} matrices) at T = {cross:,.0f}, where "
    f"4·T²·d = {2 * m}·T·d·d_ff, so T = {'1.5 × ' if toy.gated else ''}d_ff."
)
series = {
    "FFN": ffn_flops(T, toy.d_model, toy.d_ff, toy.cost_kind).astype(float),
    "attention Q, K, V, O": attn["projections"].astype(float),
    "attention T² terms": (attn["scores"] + attn["mix"]).astype(float),
}
show(figures.flops_vs_length(T, series, cross), toy.presenter)

next_step("app_pages/Position-wise.py")

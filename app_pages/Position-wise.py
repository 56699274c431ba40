"""Position-wise: the same FFN at every position, and no mixing between them."""

import numpy as np
import streamlit as st

from ffn_core import attention_flops, ffn_flops, quadratic_crossover
from ffn_core.lessons.costs import default_heads
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement, labels
from ffn_ui.controls.pickers import pick_token, tokens_gone
from ffn_ui.controls.url import bound_number, bound_slider
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage

MAX_SHOWN = 64  # output coordinates drawn
LEDE = (
    "Attention mixes the tokens of a sequence. Does the FFN? Nudge one token's input and "
    "guess which rows of the FFN's output change."
)
INTRO = (
    "The map shows, for every token (a row) and every output coordinate (a column), how "
    "much the FFN's output moves when the token you picked has one coordinate of its input "
    "nudged. In attention, a token's output draws on every token of the sequence."
)
WHY = (
    "The FFN never looks at two tokens at once: every token's vector goes through the same "
    "weights on its own (W1, the activation and W2; or, with the sidebar's SwiGLU, the gated "
    "FFN silu(x @ W_gate) * (x @ W_up) @ W_down, silu a smooth ReLU), "
    "like a 1 × 1 convolution sliding along the sequence "
    "(a filter one position wide: the same weights at every position, nothing mixed across "
    "positions). Mixing tokens is attention's job. Because the tokens are independent, all "
    "the tokens of the sequence go through together as one matrix product."
)


toy = setup("Position-wise", "Position-wise: the same FFN at every token", LEDE)
x = toy.x  # (T, d_model)
d = min(toy.d_model, MAX_SHOWN)
coords = labels("out", d)
asked = st.container()  # the question, above the map it is about
change_map, controls = stage(toy.presenter)
with controls:
    t = pick_token(toy.token_labels, "token to nudge", "ptok", gone=tokens_gone(toy))
    coord = bound_number(
        "coordinate", "coord", 1, toy.d_model, 1, gone=f"now that d_model = {toy.d_model}"
    )
    nudge = bound_slider("by", "nudge", -3.0, 3.0, 1.0, 0.1)
    preset_button(st, "Preset: coordinate 1, by 1.5", nudge=1.5, coord=1)
token = toy.token_labels[t]
out = toy.forward(x)  # (T, d_model)
x_nudged = x.copy()
x_nudged[t, coord - 1] += nudge
change = toy.forward(x_nudged) - out  # (T, d_model)
question = Question(
    f"Predict: nudge token {token}. Which rows of the change map below light up?",
    "guess_rows_moved",
    ("only its own row", "its row and its neighbours' rows", "every row"),
    answer="only its own row",
    why="each token goes through the FFN's weights alone, so changing one token's "
    "input can change only that token's output. Attention, not the FFN, lets a change at "
    "one position reach another.",
)
answered = predicted(question, container=asked)
with change_map:
    title = f"change in FFN(x) after nudging {token}"
    fig = figures.matrix_heatmap(
        change[:, :d], toy.token_labels, coords, title, "change", hidden=not answered
    )
    show(fig, toy.presenter)
explained(INTRO, toy.presenter)
if answered:
    left, right = st.columns(2)
    moved_elsewhere = np.abs(np.delete(change, t, axis=0)).max(initial=0)
    left.metric("largest change in the other tokens' outputs", f"{moved_elsewhere:g}")
    right.metric(f"largest change in the output of {token}", f"{np.abs(change[t]).max():.4g}")
    st.caption("Notice: the whole change sits in one row, however the nudge is set.")
    st.markdown(WHY)

if answered:  # each shows the tokens going through alone: the question's answer
    st.subheader("Shuffle the tokens, and the outputs shuffle the same way")
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
    gap = np.abs(out_perm - out[perm]).max()
    st.metric("max |FFN(shuffled x) − shuffled FFN(x)|", f"{gap:g}")
    shuffled = [toy.token_labels[i] for i in perm]
    title = "FFN of the shuffled tokens: each row is still its token's output"
    show(figures.matrix_heatmap(out_perm[:, :d], shuffled, coords, title, "output"), toy.presenter)

    st.subheader("One batched product instead of one per token")
    rows = np.array([toy.forward(x[i]) for i in range(toy.T)])
    first = "W_gate" if toy.gated else "W1"
    st.markdown(
        f"`x` is {toy.T} × {toy.d_model}; `x @ {first}` is one product giving all {toy.T} × "
        f"{toy.d_ff} scores at once. Running the tokens one by one gives the same output, "
        f"{agreement(float(np.abs(rows - out).max()))}, only slower."
    )

st.subheader("Cost: the FFN grows with the sequence length T, attention with T²")
T = np.unique(np.geomspace(1, 131072, 120).astype(int))
attn = attention_flops(T, toy.d_model, default_heads(toy.d_model))
cross = quadratic_crossover(toy.d_ff, toy.cost_kind)
m = 3 if toy.gated else 2  # weight matrices: each costs 2·T·d_model·d_ff
st.caption(
    f"FLOPs (floating-point operations; a multiply-add counts as 2) of one forward pass "
    f"for your d_model = {toy.d_model}, d_ff = {toy.d_ff}. "
    f"Attention's T² terms (scores and mixing, 4·T²·d_model) equal the FFN's "
    f"({2 * m}·T·d_model·d_ff, {m} matrices) at T = {cross:,.0f} and pass them beyond, where "
    f"4·T²·d_model = {2 * m}·T·d_model·d_ff, so T = {'1.5 × ' if toy.gated else ''}d_ff."
)
series = {
    "FFN": ffn_flops(T, toy.d_model, toy.d_ff, toy.cost_kind).astype(float),
    "attention Q, K, V, O": attn["projections"].astype(float),
    "attention T² terms": (attn["scores"] + attn["mix"]).astype(float),
}
show(figures.flops_vs_length(T, series, cross), toy.presenter)

offer_notebook("Position-wise", toy)
next_step("app_pages/Position-wise.py")

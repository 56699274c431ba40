"""Mixture of experts: a router sends each token to k of E expert FFNs."""

import numpy as np
import streamlit as st

from ffn_core import MODEL_SHAPES, model_params
from ffn_core.lessons.costs import ffn_params, moe_flops_per_token, moe_params
from ffn_core.lessons.moe import expert_load, load_balance_loss, moe_forward
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import agreement, labels
from ffn_ui.controls.pickers import pick_token, tokens_gone
from ffn_ui.controls.url import bound_slider
from ffn_ui.notebook.offer import offer_notebook
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.shared_arrays import experts_and_router

MAX_D_MODEL, MAX_D_FF = 256, 1024  # E experts of this size are kept in memory at most
LEDE = (
    "A mixture-of-experts layer keeps E full FFNs, the experts, and a small router that "
    "sends each token to only k of them."
)
INTRO = (
    "The router is a linear map from the token to E scores (this page adds a bias to expert "
    "1's score, to try starving it; the parameter counts leave it out). A softmax turns the "
    "scores into probabilities; each token goes only to its k most probable experts, whose "
    "outputs are mixed with those probabilities renormalised to sum to 1. Mixtral 8x7B "
    "keeps 8 experts and uses 2 per token: 8× the FFN parameters at the FFN compute of 2."
)


TITLE = "Mixture of experts: many FFNs stored, a few run per token"
toy = setup("Mixture of experts", TITLE, LEDE)
picture, controls = stage(toy.presenter)
with controls:
    headline = st.container()  # what E and k give, above the sliders that set them
    E = bound_slider("experts E", "E", 2, 16, 8, 1)
    k = bound_slider("experts per token k", "k", 1, 16, 2, 1)
    bias = bound_slider("router bias on expert 1", "rbias", -6.0, 6.0, 0.0, 0.5)
    buttons = st.container(horizontal=True)
    preset_button(buttons, "Preset: balanced router", rbias=0.0)
    preset_button(buttons, "Preset: starve expert 1", rbias=-6.0)
    if k > E:
        st.warning(f"k = {k} is more than E = {E} experts; using k = {E}.")
        k = E
    kind = "SwiGLU experts, as Mixtral's" if toy.gated else "experts"
    headline.markdown(
        f"**{E} {kind}, {k} per token: {E}× the FFN parameters at {k}× the compute of one.**"
    )
    d_model, d_ff = min(toy.d_model, MAX_D_MODEL), min(toy.d_ff, MAX_D_FF)
    if (d_model, d_ff) != (toy.d_model, toy.d_ff):
        st.info(
            f"This page keeps {E} experts in memory, so it uses d_model = {d_model} and "
            f"d_ff = {d_ff} (at most {MAX_D_MODEL} and {MAX_D_FF})."
        )
experts, router = experts_and_router(d_model, d_ff, E, 0, toy.gated)
x = toy.x[:, :d_model]
b_router = np.zeros(E)
b_router[0] = bias
out, cache = moe_forward(x, router, experts, k, toy.activation, b_router)  # (T, d_model)
expert_names = labels("e", E)
marks = np.zeros_like(cache.probs, dtype=bool)
np.put_along_axis(marks, cache.chosen, True, axis=1)
with picture:
    routes = figures.routing_heatmap(cache.probs, marks, toy.token_labels, expert_names)
    show(routes, toy.presenter)
explained(INTRO, toy.presenter)

st.subheader("1. How many tokens each expert gets")
load = expert_load(cache.chosen, E)
uniform = toy.T * k / E
show(
    figures.bars(expert_names, load, "tokens routed to each expert", "tokens", level=uniform),
    toy.presenter,
)

st.subheader("2. Load balance")
aux = load_balance_loss(cache.probs, cache.chosen)
st.metric(
    "auxiliary load-balancing loss",
    f"{aux:.3f}",
    help="E · Σ_e (share of token slots sent to e) × (mean router probability of e): "
    "1 when routing is even, at most about E/k when one expert takes every token it can "
    f"(each token picks k different experts, so one holds at most 1/k of the slots): here "
    f"about {E / k:.1f}.",
)
st.caption(
    "The Switch Transformer's loss (Fedus et al. 2021: Google's mixture-of-experts model, "
    "one expert per token). Training adds a small multiple of it to spread tokens out. Push "
    "expert 1's router bias far enough down and, while k < E, it receives no tokens at all: "
    "it is starved, and its weights would stop learning. "
    f"Expert 1 now receives {load[0]} token slots."
)

st.subheader("3. Parameters against compute")
total, active = moe_params(d_model, d_ff, E, k, toy.cost_kind, bias=not toy.gated)
dense_flops, active_flops = moe_flops_per_token(d_model, d_ff, E, k, toy.cost_kind)
mixtral = MODEL_SHAPES["Mixtral-8x7B"]
mx = model_params(mixtral)
mx_dense, mx_active = moe_flops_per_token(mixtral.d_model, mixtral.d_ff, 8, 2, "swiglu")
stored, used = f"{mx['total'] / 1e9:.1f}B", f"{mx['active'] / 1e9:.1f}B"
question = Question(
    "Predict: Mixtral 8x7B is Mistral 7B (the same company's dense model, one FFN per "
    "layer) with 8 expert FFNs per layer. How many parameters does it store, and how many "
    "does each token use?",
    "guess_mixtral",
    ("56B stored, 14B per token", f"{stored} stored, {used} per token", "56B stored, 7B per token"),
    answer=f"{stored} stored, {used} per token",
    why="only the FFNs come eightfold: the attention layers, the embeddings and the norms "
    f"are shared by all experts, so 8 × 7B overcounts them; and each token runs 2 of the 8 "
    f"experts' FFNs plus all the shared parts, {used} of {stored}.",
)
mixtral_said, (left, right) = predicted(question), st.columns(2)
left.markdown(f"**This toy** ({E} {'SwiGLU ' if toy.gated else ''}experts, k = {k})")
left.metric(
    "FFN parameters: stored / used per token",
    f"{total:,} / {active:,}",
    help=f"one expert: {ffn_params(d_model, d_ff, toy.cost_kind, not toy.gated):,}; "
    f"router {d_model * E:,}",
)
left.metric("FLOPs per token: if all ran / with k", f"{dense_flops:,} / {active_flops:,}")
if mixtral_said:
    right.markdown("**Mixtral 8x7B** (8 experts, k = 2, whole model)")
    right.metric("parameters: stored / used per token", f"{stored} / {used}")
    right.metric(
        "FFN FLOPs per token per layer: if all ran / with k",
        f"{mx_dense / 1e9:.2f} G / {mx_active / 1e9:.2f} G",
    )

st.subheader("4. One token's output, expert by expert")
t = pick_token(toy.token_labels, gone=tokens_gone(toy))
shown = min(d_model, 24)
parts = cache.gates[t][:, None] * cache.expert_out[t, :, :shown]  # (k, shown)
writers = [f"e{e + 1} × {g:.2f}" for e, g in zip(cache.chosen[t], cache.gates[t], strict=True)]
gap = float(np.abs(parts.sum(axis=0) - out[t, :shown]).max())
st.caption(
    "Each block is the router's weight × the expert's output; the diamonds are the layer's "
    f"output, which the blocks add up to {agreement(gap)}."
)
show(
    figures.neuron_writes_figure(parts, out[t, :shown], writers, labels("out", shown)),
    toy.presenter,
)

offer_notebook("Mixture of experts", toy, x=x, router=router, bias=b_router, experts=experts, k=k)
next_step("app_pages/Mixture_of_experts.py")

"""Superposition: why one neuron fires for unrelated things, and how a layer holds more
features than it has dimensions (Elhage et al. 2022, "Toy Models of Superposition")."""

import streamlit as st

from ffn_core.lessons.superposition import (
    feature_norms,
    firing_by_feature,
    polysemantic,
)
from ffn_ui import figures
from ffn_ui.controls.buttons import preset_button
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_select_slider, bound_slider
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts import superposition as sp

LEDE = (
    "Five features (each one number an input carries, usually 0) must pass through two "
    "hidden dimensions; a feature's importance is how much losing it costs in training."
)
INTRO = (
    "A trained model has neurons that fire for several unrelated tokens (the Real model "
    "page shows some). Why would a trained network do that? Above is the smallest model "
    "that does it: n features, each usually 0, squeezed into m < n hidden dimensions, "
    "h = x @ Wᵀ (W is m × n), and read back as x' = ReLU(h @ W + b). Feature i's arrow is "
    "column W_i, its direction in the hidden space. Each feature has an importance, its "
    "weight in the training loss: how much getting it wrong costs. Training decides which "
    "features get a direction of their own, which share one, and which are dropped."
)

toy = setup("Superposition", "Superposition: more features than dimensions", LEDE, tuck_model=True)
asked = st.container()  # the question goes above the figure; it names the sliders' setting
picture, controls = stage(toy.presenter)
with controls:
    row = st.container(horizontal=True)  # the buttons wrap rather than cut their words
    dense, sparse, very = "no zeros, importance 0.7^i", "95 % zeros, equal", "99.9 % zeros, 0.9^i"
    preset_button(row, "Dense", help=dense, sp_sparsity=0.0, sp_decay=0.7)
    preset_button(row, "Sparse", help=sparse, sp_sparsity=0.95, sp_decay=1.0)
    preset_button(row, "Very sparse", help=very, sp_sparsity=0.999, sp_decay=0.9)
    sparsity = bound_select_slider(
        "sparsity 1 − p (the share of zeros)", "sp_sparsity", sp.SPARSITIES, 0.95, sp.sparsity_text
    )
    decay = bound_select_slider(
        "importance of feature i: decay^i", "sp_decay", sp.DECAYS, 1.0, lambda d: f"{d:g}"
    )

at = f"{sp.sparsity_text(sparsity)} zeros and {sp.importance_text(decay)}"
question = Question(
    f"At {at}, how many of the five features will the model keep?",
    "guess_kept",
    ("2", "3", "4", "5"),
    answer=lambda: str(sp.kept(sp.five(sparsity, decay))),
    why=lambda: sp.why_kept(sp.kept(sp.five(sparsity, decay))),
)
answered = predicted(question, setting=(sparsity, decay), container=asked)
model, names = sp.five(sparsity, decay), labels("f", 5)
with picture:
    show(figures.feature_arrows(model.W if answered else None, names), toy.presenter)
if answered:
    norms = feature_norms(model.W)
    with controls:
        st.caption(
            f"At {at} the model keeps {sp.kept(model)} of 5 features (the length ‖W_i‖ of "
            f"each arrow, above 0.5 for a kept one: {', '.join(f'{v:.2f}' for v in norms)}). "
            "Notice the angles between the kept arrows: at right angles two features do not "
            "interfere; at any other angle they share the plane's two dimensions. After "
            "the phase change's question below, press Dense, Sparse and Very sparse to compare."
        )
    left, right = st.columns(2)
    gram = model.W.T @ model.W  # (5, 5)
    with left:
        show(
            figures.matrix_heatmap(gram, names, names, "Wᵀ W: how features overlap"), toy.presenter
        )
    right.caption(
        "The diagonal of Wᵀ W is each feature's squared length; the rest is how much two "
        "features interfere: 0 off the diagonal means no interference at all."
    )
explained(INTRO, toy.presenter)

st.subheader("1. The phase change")
sp.phase_section(toy.presenter)

st.subheader("2. Bigger n: how much of a dimension each feature gets")
sp.dimensions_section(sparsity, decay, answered, toy.presenter)

st.subheader("3. Polysemantic neurons")
st.caption(
    "The same sparse features, now through a hidden layer of ReLU neurons, fewer than the "
    "features: h = ReLU(x @ W1 + b1), the first half of an FFN, read back by "
    "x' = ReLU(h @ W2 + b2) (the outer ReLU is this toy's readout, as in the arrows at the "
    "top; an FFN has none after W2), trained the same way. Each cell is how far a "
    "neuron's activation rises above its resting value, its activation with every "
    "feature off, when one feature alone is on (blue: the feature switches it off)."
)
k = bound_slider("neurons", "sp_k", 2, 10, 4, 1)
net = sp.neurons(12, k, sparsity, decay)
firing = firing_by_feature(net.W1, net.b1)  # (12, k)
mixed = polysemantic(firing)
neuron_names = [f"n{j + 1}{' (poly)' if mixed[j] else ''}" for j in range(k)]
show(
    figures.matrix_heatmap(firing, labels("f", 12), neuron_names, "who fires for which feature"),
    toy.presenter,
)
st.caption(
    f"{int(mixed.sum())} of {k} neurons fire (above 0.1) for two or more unrelated features: "
    "they are polysemantic. Asking what such a neuron means has no single answer; asking "
    "which features it helps store does."
)
st.page_link("app_pages/Neurons.py", label="Neurons that fire for several tokens →")
st.page_link("app_pages/Real_model.py", label="The same in a trained encoder's neurons →")

next_step("app_pages/Superposition.py")

"""Real model: the same keys and values inside all-MiniLM-L6-v2, run by our NumPy code."""

import numpy as np
import streamlit as st

from ffn_ui import figures
from ffn_ui.controls.url import bound_slider, bound_text, whole_words
from ffn_ui.models import minilm as rm
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.real_model.layer import one_layer
from ffn_ui.parts.real_model.tables import sparsity_shares

LEDE = (
    "A trained sentence encoder, all-MiniLM-L6-v2, reads your sentence through this app's "
    "own NumPy code: each layer's FFN is the toy pages' own `ffn_forward`."
)
INTRO = (
    "Every toy page asks you to take the real thing on trust. Here is the real thing: "
    "**all-MiniLM-L6-v2**, a widely used sentence encoder (6 layers, d_model 384, "
    "d_ff 1536, GELU), run on your sentence by this app's own NumPy code. Each layer's FFN "
    "is the very `ffn_forward` the toy pages call, with the model's trained weights. The "
    "figure above gives, layer by layer, the share of the FFN's activations h (every token "
    "× every neuron of your sentence) that fire above the threshold, that dip slightly "
    "below 0 and that are exactly 0, beside the sidebar's toy run with ReLU."
)

toy = setup("Real model", "Real model: keys and values in a trained transformer", LEDE)
minilm = rm.model_or_instructions()
picture, controls = stage(toy.presenter)
with controls:
    typed = bound_text("your sentence", "rm_text", rm.DEFAULT.text, rm.MAX_CHARS)
    text = rm.fit(whole_words(typed, rm.MAX_CHARS))
    presets = st.container(horizontal=True)  # the buttons wrap rather than cut their words
    for name, preset in rm.PRESETS.items():
        presets.button(name, on_click=rm.apply_preset, args=(name,), help=preset.why)
    threshold = bound_slider(
        "fires above",
        "rm_thr",
        0.0,
        1.0,
        0.0,
        0.01,
        help="GELU is never exactly 0 for most inputs: a threshold ignores neurons that "
        "barely leak.",
    )
trace = rm.run(text)
toy_h = np.maximum(toy.scores, 0)  # the sidebar's toy, with ReLU
shares = sparsity_shares(trace.ffn_act, toy_h, threshold)
with picture:
    show(
        figures.grouped_bars(
            shares,
            [*[f"layer {i + 1}" for i in range(minilm.n_layers)], "toy ReLU"],
            "how much fires, layer by layer",
        ),
        toy.presenter,
    )
negative = float(np.mean(shares["slightly negative (h < 0)"][:-1]))
st.caption(
    "Notice: ReLU's silence is exact: a neuron that does not fire writes exactly nothing. "
    f"GELU's is soft: almost nothing is exactly 0, but {negative:.0%} of activations here "
    "are slightly negative (GELU never goes below −0.17), so they write a little, backwards. "
    f"The toy column is the sidebar's {toy.d_model} → {toy.d_ff} toy, run with ReLU"
    + (" on its gate's scores (SwiGLU has no exact zeros either)." if toy.gated else ".")
)
explained(INTRO, toy.presenter)

# Sections 1 to 5 look at one layer, picked by the slider that starts them. They are one
# fragment (ffn_ui/parts/real_model/layer.py): moving that slider reruns them alone, not the
# sidebar and the figure above, which is most of what a class waits for.
one_layer(text, threshold, toy.presenter)
st.page_link("app_pages/Key_value_memory.py", label="The same idea on a model you can edit →")

next_step("app_pages/Real_model.py")

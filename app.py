"""Home: what the FFN is, and the lesson's smallest example computed live."""

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core import contributions, ffn_forward
from ffn_ui.figures import neuron_writes_figure
from ffn_ui.setup import setup
from ffn_ui.url import bound_slider

INTRO = (
    "Every transformer block has two halves. Attention lets the tokens of a sentence look "
    "at each other; the **feed-forward network (FFN)** then works on each token alone. "
    "It widens the token's vector from `d_model` numbers to `d_ff` hidden neurons "
    "(usually four times as many), lets only some of them through a bend such as ReLU, "
    "and narrows the result back to `d_model` so it can be added to the token. "
    "Read each hidden neuron as a rule: its column of `W1` is a pattern it looks for "
    "(a *key*), and its row of `W2` is what it writes when the pattern is there (a *value*)."
)

model = setup("Home", "FFN Explorer", INTRO)
st.latex(r"\mathrm{FFN}(x) = \mathrm{act}(x\,W_1 + b_1)\,W_2 + b_2")

st.header("The smallest example, live")
st.markdown(
    "Two input numbers, two hidden neurons, no biases, and `W2` the identity, so each "
    "neuron writes straight into one output coordinate. Neuron 1 looks for "
    "*x₁ and x₂ agreeing* (key [1, 1]); neuron 2 looks for *x₁ and x₂ pulling apart* "
    "(key [1, −1]). Move the token and watch which one fires."
)
left, right = st.columns(2)
with left:
    x1 = bound_slider("x₁", "x1", -3.0, 3.0, 1.0, 0.5)
with right:
    x2 = bound_slider("x₂", "x2", -3.0, 3.0, -1.0, 0.5)

x = np.array([x1, x2])
keys = np.array([[1.0, 1.0], [1.0, -1.0]])  # one key per row, as the lesson writes them
W1, b1, W2, b2 = keys.T, np.zeros(2), np.eye(2), np.zeros(2)  # x @ W convention
out, cache = ffn_forward(x, W1, b1, W2, b2)
parts = contributions(x, W1, b1, W2, b2)  # (d_ff, d_model)

neurons = ["neuron 1", "neuron 2"]
fired = cache.h[0] > 0
st.dataframe(
    pd.DataFrame(
        {
            name: {
                "key (column of W1)": str(W1[:, j].tolist()),
                "score z = key · x": f"{cache.h_pre[0, j]:g}",
                "fires? (z > 0)": "yes" if fired[j] else "no",
                "relu(z)": f"{cache.h[0, j]:g}",
                "writes relu(z) × value": str(parts[j].tolist()),
            }
            for j, name in enumerate(neurons)
        }
    ),
)
st.plotly_chart(neuron_writes_figure(parts, out, neurons, ["out₁", "out₂"]))
st.metric("output", str(out.tolist()))
story = "; ".join(
    f"{name} scores {z:g} and {'fires' if f else 'stays silent'}"
    for name, z, f in zip(neurons, cache.h_pre[0], fired, strict=True)
)
st.caption(
    f"{story.capitalize()}. The output {out.tolist()} is built only from the patterns "
    "this token matched. The lesson's example is x = [1, −1], giving [0, 2]."
)

st.header("Where to go next")
st.markdown(
    f"The sidebar sets one model that every page shares, and the address bar keeps it: "
    f"now d_model = {model.d_model}, d_ff = {model.d_ff}, {model.activation_label}, "
    f"{model.T} tokens. Copy the link to show someone exactly this."
)
st.page_link("pages/1_Neurons.py", label="Neurons: which hidden neurons fire for each token")
st.page_link(
    "pages/2_Key_value_memory.py", label="Key–value memory: what each firing neuron writes"
)
st.page_link("pages/3_Activations.py", label="Activations: ReLU, GELU, SiLU and SwiGLU")
st.page_link("pages/4_Collapse.py", label="Collapse: without the bend, one matrix")
st.page_link("pages/5_Position-wise.py", label="Position-wise: the same MLP at every token")
st.page_link("pages/6_Backprop.py", label="Backprop & gradient check: the backward pass, checked")
st.page_link("pages/7_Traps.py", label="Traps: the mistakes that square examples hide")
st.page_link("pages/8_Scale_and_cost.py", label="Scale & cost: parameters and FLOPs of real models")
st.page_link("pages/9_Mixture_of_experts.py", label="Mixture of experts: routing tokens to experts")
st.page_link(
    "pages/10_Memory_lab.py", label="Memory lab: train a fact store, find and rewrite facts"
)
st.page_link(
    "pages/11_Real_model.py", label="Real model: the same keys and values in all-MiniLM-L6-v2"
)

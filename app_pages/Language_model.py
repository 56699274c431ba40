"""Language model: SwiGLU's keys and values inside SmolLM2-135M-Instruct, a real next-token
predictor."""

import numpy as np
import streamlit as st

from ffn_ui.controls.labels import token_labels
from ffn_ui.controls.url import bound_slider, bound_text, whole_words
from ffn_ui.models import smollm as lm
from ffn_ui.page.display import show
from ffn_ui.page.path import next_step
from ffn_ui.page.setup import setup
from ffn_ui.page.stage import explained, stage
from ffn_ui.parts.language_model import sections as sections
from ffn_ui.parts.language_model.fact_rewrite import rewrite_section
from ffn_ui.words import literal

LEDE = (
    "SmolLM2-135M-Instruct, a small trained model that writes text, reads yours through "
    "this app's own NumPy code and predicts the next token; every block's FFN is SwiGLU."
)
INTRO = (
    "The Real model page's MiniLM lets every token read the whole sentence. Here is the "
    "kind of model that writes text: **SmolLM2-135M-Instruct** (SmolLM2-135M tuned to "
    "follow instructions), a Llama-style decoder (30 blocks, d_model 576, d_ff 1536): "
    "each token reads only itself and the tokens before it, so the model learns to predict "
    "the next. It runs on this app's own NumPy code. Its blocks' matrices ship in Q4_1, a "
    "4-bit format: each run of 32 weights is kept as whole numbers from 0 to 15 with one "
    "scale and one minimum, weight = scale × number + minimum (its token embeddings in an "
    "8-bit format, its norms in float32); the app turns them all into float32 once. Every "
    "block's FFN is SwiGLU, run by the very code that runs the toy pages' SwiGLU (the "
    "sidebar's FFN set to SwiGLU), and the model reads your text to predict the next "
    "token: one probability for every token of its vocabulary, of which the figure shows "
    "the ten likeliest."
)

toy = setup(
    "Language model",
    "Language model: SwiGLU inside a next-token predictor",
    LEDE,
    tuck_model=True,
)
model = lm.model_or_instructions()
picture, controls = stage(toy.presenter)
with controls:
    typed = bound_text("your text", "lm_text", lm.DEFAULT.text, lm.MAX_CHARS)
    presets = st.container(horizontal=True)  # the buttons wrap rather than cut their words
    for name, preset in lm.PRESETS.items():
        presets.button(name, on_click=lm.apply_preset, args=(name,), help=preset.why)
    text = whole_words(typed, lm.MAX_CHARS)
    if not model.encode(text).size:
        st.info("Type some text above: the model needs at least one token to predict the next.")
        st.stop()
trace = lm.run(text)
tokens = token_labels([lm.token_label(int(i)) for i in trace.token_ids], start=0)
predicted_id = int(np.argmax(trace.logits[-1]))
word = lm.token_label(predicted_id)
top = model.top_next(trace, 10)
with picture:
    show(sections.top_bars(top), toy.presenter)
with controls:
    if len(model.tokenizer.encode(text).ids) > len(tokens):
        st.info(
            f"That text makes more than {len(tokens)} tokens; the model reads the last "
            f"{len(tokens)}."
        )
    st.caption(
        f"{len(tokens)} token{'s' if len(tokens) > 1 else ''} in (␣ marks a leading space, "
        "↵ a line break), one probability per token of the 49,152-token vocabulary out. "
        f"Notice the top one, {literal(word)}, at {top[0][1]:.2f}: greedy decoding below "
        "simply takes the top token, again and again."
    )
n_new = bound_slider("continue for (tokens)", "lm_new", 1, lm.MAX_NEW, 12, 1)
words, seconds = lm.continuation(text, n_new)
st.code(text + words, language=None, wrap_lines=True)
st.caption(f"Greedy continuation of up to {n_new} tokens, made in {seconds:.2f} s on this server.")
explained(INTRO, toy.presenter)

sections.who_fires(text, toy.presenter)  # a fragment: its block slider reruns only it

st.subheader(f"2. What the FFNs write towards {literal(word)}")
readout = lm.readout(text)
per_neuron = readout.per_neuron  # (L, d_ff)
pushers = sections.pushers_table(per_neuron)
top_share = sum(p.push for p in pushers[: sections.TOP]) / per_neuron[per_neuron > 0].sum()
st.caption(
    "Notice which blocks the strongest pushers sit in, and how spread out the push is: "
    f"the {sections.TOP} strongest (the top bars) give {top_share:.0%} of all the upward "
    "push of the "
    f"{per_neuron.size:,} neurons. A word's logit is its score before the softmax turns "
    "scores into probabilities. The stream is each token's running vector: every block "
    "reads it and adds its attention's and its FFN's output to it. After the last block "
    "the final RMSNorm divides the stream by its root mean square and multiplies it by "
    "learned weights, and the model then scores it against every token's output vector. "
    "Each bar is h_j × (W_down[j] · u), where u is the predicted word's output vector "
    "scaled as that norm scales the stream (its weights, divided by the stream's root mean "
    "square), so that stream · u is the logit: the bar is what the neuron adds to that "
    "word's logit at the last token, directly. It leaves out how the norm's scale moves "
    "and what later blocks do with what the neuron wrote."
)
show(sections.pusher_bars(pushers), toy.presenter)
choice = sections.pick_pusher(pushers)
show(sections.value_figure(model, trace, *choice, predicted_id), toy.presenter)
st.caption(
    "Read like LM-Debugger: the neuron's value vector W_down[j] against every token's output "
    "vector (SmolLM2 ties them to its input embeddings), here times its h and scaled as "
    "above, so each bar is what it adds to that token's logit. With a negative h a neuron "
    "writes its value backwards. The grey bar is the predicted word, the same push as above."
)
sections.logit_lens(readout, word, toy.presenter)

st.subheader("3. Intervene: switch neurons off, or amplify them")
edits, chosen = sections.edit_controls(pushers, len(tokens) - 1)
if edits:
    before = lm.next_probabilities(text, ())
    after = lm.next_probabilities(text, edits)
    show(sections.before_after(before, after), toy.presenter)
    new_words, _ = lm.continuation(text, n_new, edits)
    st.code(text + new_words, language=None, wrap_lines=True)
    st.caption(
        f"{chosen}: {literal(word)} went from {before[predicted_id]:.2f} to "
        f"{after[predicted_id]:.2f}. The continuation above is regenerated with the edit."
    )

st.subheader("4. Rewrite a fact")
st.caption(
    "One rank-one change to one block's W_down can move a fact (ROME, Meng et al. 2022). "
    "k* is the subject's key: the block's h at the subject's last token (averaged over a "
    "few lead-in texts). Σ is the mean of h hᵀ over 285 sentences written for this app "
    "(plus a little on its diagonal, which keeps Σ invertible: those sentences cannot pin "
    "down every direction h has). k̂ = Σ⁻¹k*/(k*ᵀΣ⁻¹k*) is the direction the edit reads "
    "in h: multiplying by Σ⁻¹, Σ's inverse, turns k̂ away from the directions those sentences' "
    "keys use most, so that they receive little of the edit's new value δ; dividing "
    "scales it so that k* · k̂ = 1 (the subject receives all of δ), not to length 1. The "
    "edit is W_down + k̂ δᵀ, the same form of update as the Memory lab's W2 + u ⊗ d, with "
    "k̂ in u's role; δ is found by gradient descent through the later blocks."
)
rewrite_section()
st.page_link("app_pages/Memory_lab.py", label="The same edit in a toy FFN you can see whole →")

st.subheader("5. The toy pages' facts, on real weights")
sections.toy_facts(text)  # a fragment with its own block slider

next_step("app_pages/Language_model.py")

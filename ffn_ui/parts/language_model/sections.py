"""The Language model page's sections that need more than a figure: the neurons that push
the prediction, their value vectors, the logit lens, and the intervention controls."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ffn_core.models.edits import Edit
from ffn_core.models.smollm.decoder_facts import rows_moved, sum_of_values_gap
from ffn_core.models.smollm.llama import rms_norm
from ffn_core.models.smollm.model import LanguageModel, Trace
from ffn_ui import figures
from ffn_ui.controls.labels import labels, token_labels
from ffn_ui.controls.pickers import pick_token
from ffn_ui.controls.url import bound_multiselect, bound_select, bound_slider
from ffn_ui.models import smollm as lm
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted
from ffn_ui.words import literal

TOP = 10  # neurons shown pushing up, and as many pushing down
ACTIONS = {"switch off (× 0)": 0.0, "amplify (× 3)": 3.0}
PLACES = ("at the prompt's last token", "at every token")
UP, DOWN = figures.COLOURS[5], figures.COLOURS[0]  # red pushes up, blue down, as in the heatmap


@dataclass(frozen=True)
class Pusher:
    label: str  # "b21 n123": block and neuron, counted from 1
    layer: int  # 0-based
    neuron: int  # 0-based
    push: float  # its direct share of the predicted word's logit


def pushers_table(per_neuron: np.ndarray) -> list[Pusher]:
    """The TOP neurons of per_neuron (L, d_ff) pushing up most, then the TOP pushing down."""
    flat = per_neuron.ravel()
    order = np.argsort(flat)
    picked = [*order[::-1][:TOP], *order[:TOP]]
    d_ff = per_neuron.shape[1]
    return [
        Pusher(f"b{i // d_ff + 1} n{i % d_ff + 1}", int(i // d_ff), int(i % d_ff), float(flat[i]))
        for i in picked
    ]


def named_axes(figure: go.Figure, x: str, y: str) -> go.Figure:
    """The figure with its axes' titles: every bar chart here says what each axis counts."""
    return figure.update_xaxes(title_text=x).update_yaxes(title_text=y)


def pusher_bars(pushers: list[Pusher]):
    colours = [UP if p.push > 0 else DOWN for p in pushers]
    bars = figures.bars(
        [p.label for p in pushers],
        [p.push for p in pushers],
        "the neurons that push the predicted word up most, and down most",
        "push on the logit",
        colours=colours,
        horizontal=True,
    )
    return named_axes(bars, "push on the predicted word's logit", "block b, neuron n")


def pick_pusher(pushers: list[Pusher]) -> tuple[int, int]:
    """The (layer, neuron) whose value vector the page reads, picked among the pushers."""
    names = [p.label for p in pushers]
    name = bound_select(
        "read the value vector of", "lm_neuron", names, names[0], gone="for this text"
    )
    chosen = pushers[names.index(name)]
    return chosen.layer, chosen.neuron


def value_figure(model: LanguageModel, trace: Trace, layer: int, neuron: int, target: int):
    """What the neuron writes at the last token, read against every token's output vector:
    the 8 tokens it pushes up most, the 8 it pushes down most, then the predicted word."""
    h = float(trace.ffn_act[layer, -1, neuron])
    rms = model.frozen_rms(trace.hidden_states[-1, -1])
    words, values = lm.value_bars(layer, neuron, h / rms, target, 8)
    colours = [UP] * 8 + [DOWN] * 8 + ["#999999"]
    title = f"b{layer + 1} n{neuron + 1}, h = {h:.3g} here: the tokens it pushes up and down"
    bars = figures.bars(words, values, title, "push on the logit", colours=colours, horizontal=True)
    return named_axes(bars, "push on the token's logit", "token")


def logit_lens(readout: lm.Readout, word: str, presenter: bool) -> None:
    """The top token read after every block, and each block's attention and FFN shares."""
    parts = readout.parts
    blocks = [f"{i + 1}" for i in range(len(readout.lens_p))]
    st.caption(
        f"The logit lens: the last token's stream read as if each block were the last. "
        f"Notice where {literal(word)} first comes out on top, and which blocks' FFNs write it."
    )
    strip = figures.lens_strip(blocks, readout.lens_tops, readout.lens_p, word)
    show(strip, presenter)
    shares = {"attention": parts["attention"], "FFN": parts["ffn"]}
    title = f"each block's direct share of “{word}”'s logit"
    show(
        named_axes(figures.grouped_bars(shares, blocks, title), "block", "added to the logit"),
        presenter,
    )
    total = float(parts["embedding"] + parts["attention"].sum() + parts["ffn"].sum())
    st.caption(
        f"The last input token's own embedding adds {float(parts['embedding']):.2f}; with "
        f"these bars the sum is {total:.2f}, the logit itself."
    )


def edit_controls(pushers: list[Pusher], last: int) -> tuple[tuple[Edit, ...], str]:
    """The edits the learner chose, and a phrase saying what they are."""
    names = [p.label for p in pushers]
    strongest = names[:5]
    st.button(
        "Pick the 5 strongest pushers",
        on_click=st.session_state.update,
        kwargs={"lm_off": strongest},
    )
    picked = bound_multiselect("neurons", "lm_off", names, gone="for this text")
    left, right = st.columns(2)
    action = bound_select("do", "lm_action", list(ACTIONS), "switch off (× 0)", left, radio=True)
    place = bound_select("where", "lm_where", list(PLACES), PLACES[0], right, radio=True)
    if not picked:
        st.info("Pick neurons above to see what the model predicts once they are changed.")
        return (), ""
    token = last if place == PLACES[0] else None
    chosen = [pushers[names.index(name)] for name in picked]
    edits = tuple(Edit(p.layer, p.neuron, ACTIONS[action], token) for p in chosen)
    return edits, f"{action.split(' (')[0].capitalize()} {', '.join(picked)} {place}"


def top_bars(top: list[tuple[int, float]]):
    """The likeliest next tokens (`LanguageModel.top_next`) as bars."""
    words = [f"“{lm.token_label(i)}”" for i, _ in top]
    bars = figures.bars(
        words,
        [p for _, p in top],
        f"the {len(top)} likeliest next tokens",
        "probability",
        horizontal=True,
    )
    return named_axes(bars, "probability", "next token")


def before_after(before: np.ndarray, after: np.ndarray, k: int = 8):
    """The k likeliest next tokens before or after the edit, with both probabilities."""
    best = list(dict.fromkeys([*np.argsort(before)[::-1][:k], *np.argsort(after)[::-1][:k]]))
    words = [f"“{lm.token_label(i)}”" for i in best]
    series = {"before": before[best], "after the edit": after[best]}
    bars = figures.grouped_bars(series, words, "next-token probability, before and after")
    return named_axes(bars, "next token", "probability")


GATE_QUESTION = Question(
    "A neuron's gate is −6 and its up is +5. What does it pass on, its h?",
    "guess_gate",
    ("a lot, positive", "about nothing", "a lot, negative"),
    answer="about nothing",
    why="its gate gives silu(−6) = −0.015, so h = −0.015 × 5 ≈ −0.07: a nearly shut gate "
    "lets almost nothing of up through.",
)


def causal_setup(n: int) -> str:
    """What the causal check does to a text of n tokens: append “ and” to the first
    CAUSAL_TOKENS tokens, in place of the rest when there is a rest."""
    if n <= lm.CAUSAL_TOKENS:
        return f"Append “ and” to the text's {n} token{'s' if n > 1 else ''}"
    return f"Follow the text's first {lm.CAUSAL_TOKENS} tokens with “ and” instead of the rest"


@st.fragment
def who_fires(text: str, presenter: bool) -> None:
    """Section 1: one block's h for every token, then every neuron of one token as a
    (gate, up) point. A fragment, so moving its block slider reruns only this section."""
    trace = lm.run(text)
    tokens = token_labels([lm.token_label(int(i)) for i in trace.token_ids], start=0)
    d_ff = trace.ffn_act.shape[2]
    neurons = labels("n", d_ff)
    heading = st.empty()  # above the slider, naming the block the slider picks
    layer = bound_slider("block", "lm_layer", 1, len(trace.ffn_act), lm.DEFAULT.layer, 1) - 1
    heading.subheader(f"1. Who fires in block {layer + 1}'s gated FFN")
    h = trace.ffn_act[layer]  # (T, d_ff)
    order = np.argsort(-np.abs(h).max(axis=0))[:40]
    t, j = np.unravel_index(np.argmax(np.abs(h)), h.shape)
    st.caption(
        f"h = silu(gate)·up. Notice how uneven it is: in this block the median |h| is "
        f"{np.median(np.abs(h)):.2g} and the largest {abs(h[t, j]):.3g}, at token "
        f"{literal(tokens[t])}, so a few cells set the colour scale. Red is a positive h, blue "
        "a negative one; shown are the 40 neurons with the largest |h|."
    )
    heatmap = figures.matrix_heatmap(h[:, order], tokens, [neurons[j] for j in order], "h", "h")
    show(heatmap, presenter)
    token = pick_token(tokens, key="lm_tok", default=len(tokens) - 1, gone="in this text")
    if predicted(GATE_QUESTION):
        gate, up = trace.ffn_gate[layer, token], trace.ffn_up[layer, token]
        show(figures.gate_up_scatter(gate, up, h[token], neurons), presenter)
        st.caption(
            f"Every neuron of block {layer + 1} for token {literal(tokens[token])}. Left of "
            "the vertical line (gate below 0) silu(gate) lies between −0.28 and 0, so h has "
            "the opposite sign of up and at most 28 % of its size: silu(−1) = −0.27 still "
            "passes 27 %, and the gate is nearly shut only well below −3 (silu(−5) = −0.03). "
            "Right of it, h grows with the gate and takes up's sign."
        )
    st.page_link("app_pages/Activations.py", label="SwiGLU's surface on the Activations page →")


@st.fragment
def toy_facts(text: str) -> None:
    """Section 5: the toy pages' three facts, measured on a block of the learner's choice
    at the last token. A fragment with its own block slider."""
    model, trace = lm.smollm(), lm.run(text)
    layer = bound_slider("block to check", "lm_check_block", 1, len(trace.ffn_act), 1, 1) - 1
    token = len(trace.tokens) - 1
    block = model.blocks[layer]
    eps = model.settings.eps
    x_in = rms_norm(trace.hidden_states[layer] + trace.attn_out[layer], block.ffn_norm, eps)
    moved = rows_moved(x_in, block.W_gate, block.W_up, block.W_down, token)
    gap = sum_of_values_gap(trace.ffn_act[layer, token], block.W_down, trace.ffn_out[layer, token])
    shown = literal(f"{token}: {lm.token_label(int(trace.token_ids[token]))}")
    largest = float(np.abs(trace.hidden_states).max())
    facts = [
        f"**The output is the sum of the values.** In block {layer + 1} at token {shown}, "
        "Σ_j h_j·W_down[j], added one neuron at a time, differs from the FFN's output by at "
        f"most {gap:.1e} (float32 rounding).",
        f"**Causal.** {causal_setup(len(trace.token_ids))}: their states "
        + moved_by(lm.causal_gap(text), True, f"in any block, while states reach {largest:.1e}")
        + ", because a decoder's token never reads the tokens after it.",
    ]
    if token > 0:  # with one token there is no other row to compare
        facts.insert(
            1,
            f"**Position-wise.** Give token {shown} the first token's FFN input: its own "
            f"output moves by up to {moved[token]:.3g}; every other token's output "
            + moved_by(float(np.delete(moved, token).max()), plural=False)
            + ".",
        )
    st.markdown("\n".join(f"- {fact}" for fact in facts))


def moved_by(gap: float, plural: bool, context: str = "") -> str:
    """ "do not move at all", or "move by at most 3.1e-06 <context> (float32 rounding)"."""
    if gap == 0:
        return "do not move at all" if plural else "does not move at all"
    tail = f" {context}" if context else ""
    return f"{'move' if plural else 'moves'} by at most {gap:.1e}{tail} (float32 rounding)"

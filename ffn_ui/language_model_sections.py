"""The Language model page's sections that need more than a figure: the neurons that push
the prediction, their value vectors, the logit lens, and the intervention controls."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from ffn_core.decoder_facts import rows_moved, sum_of_values_gap
from ffn_core.llama import rms_norm
from ffn_core.smollm import Edit, LanguageModel, Trace
from ffn_ui import figures
from ffn_ui import language_model as lm
from ffn_ui.display import show
from ffn_ui.url import bound_multiselect, bound_select, literal

TOP = 10  # neurons shown pushing up, and as many pushing down
ACTIONS = {"switch off (× 0)": 0.0, "promote (× 3)": 3.0}
PLACES = ("at the last token", "at every token")


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


def pusher_bars(pushers: list[Pusher]):
    colours = [figures.COLOURS[0] if p.push > 0 else figures.COLOURS[5] for p in pushers]
    return figures.bars(
        [p.label for p in pushers],
        [p.push for p in pushers],
        "the neurons that push the predicted word up most, and down most",
        "push on the logit",
        colours=colours,
        horizontal=True,
    )


def pick_pusher(pushers: list[Pusher]) -> tuple[int, int]:
    """The (layer, neuron) whose value vector the page reads, picked among the pushers."""
    names = [p.label for p in pushers]
    name = bound_select(
        "read the value vector of", "lm_neuron", names, names[0], gone="for this text"
    )
    chosen = pushers[names.index(name)]
    return chosen.layer, chosen.neuron


def value_figure(model: LanguageModel, layer: int, neuron: int, target: int):
    """The 8 tokens the neuron's value promotes most and the 8 it suppresses most, and
    below them the predicted word with its own score and rank."""
    up, down = model.value_tokens(layer, neuron, 8)
    scores = model.value_scores(layer, neuron)
    rank = int((scores > scores[target]).sum()) + 1
    word = f"“{lm.visible(model.piece(target))}”, rank {rank:,}"
    words = [f"“{lm.visible(w)}”" for w, _ in [*up, *down]] + [word]
    values = [score for _, score in [*up, *down]] + [float(scores[target])]
    colours = [figures.COLOURS[0]] * len(up) + [figures.COLOURS[5]] * len(down) + ["#999999"]
    title = f"b{layer + 1} n{neuron + 1}'s value: the tokens it promotes and suppresses"
    return figures.bars(words, values, title, "score", colours=colours, horizontal=True)


def logit_lens(model: LanguageModel, trace: Trace, target: int, word: str, presenter: bool) -> None:
    """The top token read after every block, and each block's attention and FFN shares."""
    parts = model.logit_parts(trace, -1, target)
    blocks = [f"{i + 1}" for i in range(model.settings.n_layers)]
    st.caption(
        f"The logit lens: the last token's stream read as if each block were the last. "
        f"Notice where {literal(word)} first comes out on top, and which blocks' FFNs write it."
    )
    tops, p_target = model.logit_lens(trace, target)
    strip = figures.lens_strip(blocks, [lm.visible(t) for t in tops], p_target, word)
    show(strip, presenter)
    shares = {"attention": parts["attention"], "FFN": parts["ffn"]}
    show(
        figures.grouped_bars(shares, blocks, f"each block's direct share of “{word}”'s logit"),
        presenter,
    )
    total = float(parts["embedding"] + parts["attention"].sum() + parts["ffn"].sum())
    st.caption(
        f"The token's own embedding adds {float(parts['embedding']):.2f}; with these bars the "
        f"sum is {total:.2f}, the logit itself."
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
        st.info("Pick neurons above to see what the model predicts without them.")
        return (), ""
    token = last if place == PLACES[0] else None
    chosen = [pushers[names.index(name)] for name in picked]
    edits = tuple(Edit(p.layer, p.neuron, ACTIONS[action], token) for p in chosen)
    return edits, f"{action.split(' (')[0].capitalize()} {', '.join(picked)} {place}"


def top_bars(model: LanguageModel, p: np.ndarray, k: int = 10):
    best = np.argsort(p)[::-1][:k]
    words = [f"“{lm.visible(model.piece(i))}”" for i in best]
    return figures.bars(
        words, p[best], f"the {k} likeliest next tokens", "probability", horizontal=True
    )


def before_after(model: LanguageModel, before: np.ndarray, after: np.ndarray, k: int = 8):
    """The k likeliest next tokens before or after the edit, with both probabilities."""
    best = list(dict.fromkeys([*np.argsort(before)[::-1][:k], *np.argsort(after)[::-1][:k]]))
    words = [f"“{lm.visible(model.piece(i))}”" for i in best]
    series = {"before": before[best], "after the edit": after[best]}
    return figures.grouped_bars(series, words, "next-token probability, before and after")


def toy_facts(
    model: LanguageModel, trace: Trace, text: str, layer: int, token: int, tokens: list[str]
) -> None:
    """The toy pages' three facts, measured on this block and token."""
    block = model.blocks[layer]
    eps = model.settings.eps
    x_in = rms_norm(trace.hidden_states[layer] + trace.attn_out[layer], block.ffn_norm, eps)
    moved = rows_moved(x_in, block.W_gate, block.W_up, block.W_down, token)
    gap = sum_of_values_gap(trace.ffn_act[layer, token], block.W_down, trace.ffn_out[layer, token])
    shown = literal(tokens[token])
    st.markdown(
        f"- **The output is the sum of the values.** Block {layer + 1}, token {shown}: "
        "Σ_j h_j·W_down[j], added one neuron at a time, differs from the FFN's output by at "
        f"most {gap:.1e}.\n"
        f"- **Position-wise.** Give token {shown} another token's FFN input: its own "
        f"output moves by up to {moved[token]:.3g}; every other token's moves by "
        f"{np.delete(moved, token).max(initial=0.0):.1e}.\n"
        "- **Causal.** Add “ and” to the text: the earlier tokens' states move by at most "
        f"{lm.causal_gap(text):.1e} in every block, because a decoder's token never reads "
        "the tokens after it."
    )

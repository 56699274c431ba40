"""The Mixture-of-experts page in AppTest: routing, load and balance loss against the core,
and why Mixtral is not 56B."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import MOE, decode, open_page, page_words, traces, warnings_text

from ffn_core import MODEL_SHAPES, model_params
from ffn_core.init import init_weights
from ffn_core.lessons.costs import moe_flops_per_token, moe_params
from ffn_core.lessons.moe import expert_load, load_balance_loss, moe_forward
from ffn_core.tokens import embed_words

pytestmark = pytest.mark.usefixtures("fresh_caches")


def expected_routing(E=8, k=2, bias=0.0, d_model=4, d_ff=16):
    """Rebuild the page's router and experts from the core and route the default words."""
    experts = [init_weights(d_model, d_ff, "normal", seed=1 + e) for e in range(E)]
    router = np.random.default_rng(0).standard_normal((d_model, E)) * 2 / np.sqrt(d_model)
    x = embed_words(["the", "cat", "sat", "on", "the", "mat"], d_model)
    b = np.zeros(E)
    b[0] = bias
    return moe_forward(x, router, experts, k, "relu", b)


def test_routing_load_and_balance_loss_are_the_cores():
    at = open_page(MOE)
    _out, cache = expected_routing()
    np.testing.assert_allclose(decode(traces(at, 0)[0]["z"]), cache.probs, rtol=1e-6)
    np.testing.assert_array_equal(decode(traces(at, 1)[0]["y"]), expert_load(cache.chosen, 8))
    assert at.metric[0].value == f"{load_balance_loss(cache.probs, cache.chosen):.3f}"
    total, active = moe_params(4, 16, 8, 2, "standard", bias=True)
    assert at.metric[1].value == f"{total:,} / {active:,}"
    dense, used = moe_flops_per_token(4, 16, 8, 2, "standard")
    assert at.metric[2].value == f"{dense:,} / {used:,}"


def test_one_tokens_blocks_add_up_to_the_layer_output():
    at = open_page(MOE, {"tok": "2: cat"})
    out, _ = expected_routing()
    bars = [decode(t["y"]) for t in traces(at, 2) if t["type"] == "bar"]
    assert len(bars) == 2  # k experts
    np.testing.assert_allclose(np.sum(bars, axis=0), out[1], rtol=1e-5, atol=1e-6)


def test_a_negative_router_bias_starves_expert_one():
    at = open_page(MOE, {"rbias": "-6"})
    assert decode(traces(at, 1)[0]["y"])[0] == 0
    assert "Expert 1 now receives 0 token slots" in " ".join(c.value for c in at.caption)


def test_k_above_e_is_clipped_with_a_note_and_all_experts_average():
    at = open_page(MOE, {"E": "3", "k": "9"})
    assert "using k = 3" in warnings_text(at)
    assert at.metric[0].value == "1.000"  # every expert takes every token: balanced


def test_the_title_and_the_headline_follow_e_and_k():
    at = open_page(MOE, {"E": "12", "k": "3"})
    assert at.title[0].value == "Mixture of experts: many FFNs stored, a few run per token"
    assert "**12 experts, 3 per token: 12× the FFN parameters at 3× the compute of one.**" in [
        m.value for m in at.markdown
    ]


def test_the_page_claims_no_compute_for_free_and_says_each_model_where_first_named():
    """The active experts still compute: the page says more parameters at the same compute
    per token, never capacity without compute; Mistral 7B and the Switch Transformer are
    each said in a few words where the page first names them."""
    said = page_words(open_page(MOE).main)
    assert "without compute" not in said and "capacity" not in said.lower()
    mistral = said.index("Mistral 7B")
    assert "dense model, one FFN per layer" in said[mistral : mistral + 80]
    switch = said.index("Switch Transformer")
    assert "mixture-of-experts model, one expert per token" in said[switch : switch + 120]


@pytest.mark.parametrize(("E", "k"), [(8, 2), (16, 4), (6, 1)])
def test_the_balance_loss_peaks_near_e_over_k_as_the_help_says(E, k):
    """One expert favoured by every token: it gets 1/k of the slots, and the loss ≈ E/k."""
    T = 50
    probs = np.full((T, E), 1e-6)
    probs[:, 0] = 1 - 1e-6 * (E - 1)
    chosen = np.stack([np.arange(k) for _ in range(T)])  # expert 0 and k - 1 others
    assert load_balance_loss(probs, chosen) == pytest.approx(E / k, rel=1e-4)
    at = open_page(MOE, {"E": str(E), "k": str(k)})
    (metric,) = [m for m in at.metric if m.label.startswith("auxiliary")]
    assert "at most about E/k" in metric.help and f"here about {E / k:.1f}" in metric.help


def test_the_mixtral_question_explains_why_it_is_not_56b():
    mx = model_params(MODEL_SHAPES["Mixtral-8x7B"])
    at = open_page(MOE)
    assert not [m for m in at.metric if m.label.startswith("parameters: stored")]
    stored, used = f"{mx['total'] / 1e9:.1f}B", f"{mx['active'] / 1e9:.1f}B"
    before = page_words(at.main, questions=False)
    assert stored not in before and used not in before and "Mixtral 8x7B" in before
    at.radio(key="guess_mixtral").set_value("56B stored, 14B per token").run()
    verdict = at.error[0].value
    assert f"{mx['total'] / 1e9:.1f}B stored, {mx['active'] / 1e9:.1f}B per token" in verdict
    assert "attention layers, the embeddings and the norms are shared" in verdict
    (shown,) = [m for m in at.metric if m.label.startswith("parameters: stored")]
    assert shown.value == "46.7B / 12.9B" == f"{stored} / {used}"


def test_the_routing_comes_first_and_the_explanation_after_it():
    """The page opens on the routing heatmap: before it, the heading and one sentence; the
    router's softmax and Mixtral's 8 and 2 are said under it."""
    at = open_page(MOE)
    said = page_words(at.main, questions=False)
    first_figure = said.index("The figure in numbers: ")
    assert said.index("A softmax turns the scores into probabilities") > first_figure
    assert "router" in said[:first_figure] and "softmax" not in said[:first_figure]


def test_the_balance_loss_is_cited_to_the_switch_transformer_and_counts_token_slots():
    """The Switch Transformer defines this loss; the Mixtral paper does not describe one.
    With top-k routing the shares are of token slots, so even routing gives 1, not k."""
    from helpers import GLOSSARY

    at = open_page(MOE, {"E": "8", "k": "2"})
    assert [m.label for m in at.metric].count("auxiliary load-balancing loss") == 1
    (cited,) = [c.value for c in at.caption if "Switch Transformer" in c.value]
    assert cited.startswith("The Switch Transformer's loss (Fedus et al. 2021")
    glossary = " ".join(m.value for m in open_page(GLOSSARY).markdown)
    entry = glossary.split("**load-balancing loss**", 1)[1].split("**", 1)[0]
    assert "Switch Transformer" in entry and "Mixtral" not in entry
    assert (
        "share of token slots sent to e" in entry
        and "a token sent to k experts fills k slots" in entry
    )
    assert "1 when routing is even" in entry

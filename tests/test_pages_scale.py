"""The Scale & cost and Mixture-of-experts pages in AppTest: the numbers shown are the core's."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ANSWERS, MOE, SCALE, decode, open_page, shown_table, traces, warnings_text

from ffn_core import MODEL_SHAPES, attention_flops, model_params, quadratic_crossover
from ffn_core.costs import moe_flops_per_token, moe_params
from ffn_core.init import init_weights
from ffn_core.moe import expert_load, load_balance_loss, moe_forward
from ffn_core.tokens import embed_words

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_the_table_shows_the_cores_counts_and_matches_every_checkpoint():
    at = open_page(SCALE, {"d_model": "6", "d_ff": "20", "layers": "3", **ANSWERS[SCALE]})
    table = at.dataframe[0].value
    for name, shape in MODEL_SHAPES.items():
        counts = model_params(shape)
        row = table.loc[name]
        assert row["FFN params / block"] == counts["ffn"]
        assert row["attention params / block"] == counts["attention"]
        assert row["recount with embeddings"] == row["published"] == shape.published_params
        assert row["T where attention's T² overtakes the FFN"] == quadratic_crossover(
            shape.d_ff, shape.ffn_kind, shape.top_k
        )
    yours = table.loc["your model"]
    assert yours["FFN params / block"] == 2 * 6 * 20 + 20 + 6
    assert yours["all blocks"] == 3 * (
        yours["FFN params / block"] + yours["attention params / block"] + 4 * 6
    )
    assert table.loc["GPT-2 small", "FFN params / block"] == 4_722_432


def test_the_table_shows_a_dash_where_a_model_has_no_number():
    shown = shown_table(open_page(SCALE, ANSWERS[SCALE]))
    cells = shown.to_numpy().ravel().tolist()
    assert not {"None", "nan", "NaN", "<NA>"} & set(cells)
    assert shown.loc["your model", "published"] == "—"
    assert shown.loc["GPT-2 small", "active per token"] == "—"
    assert shown.loc["GPT-2 small", "published"] == "124,439,808"


def test_flops_chart_follows_the_chosen_model():
    at = open_page(SCALE, {"cost_model": "Mixtral-8x7B", **ANSWERS[SCALE]})
    ffn = traces(at, 2)[0]
    assert ffn["name"] == "FFN (active experts)"
    T = decode(ffn["x"])
    np.testing.assert_allclose(decode(ffn["y"]), 2 * 3 * 2 * T * 4096 * 14336, rtol=1e-6)


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


def test_sequence_length_metrics_are_the_cores():
    at = open_page(SCALE, {"seq_T": "4,096"})
    m = MODEL_SHAPES["GPT-2 small"]
    per_token = 2 * 2 * 768 * 3072
    values = {x.label: x.value for x in at.metric}
    assert values["FFN FLOPs per token"] == f"{per_token:,}"
    assert values["FFN FLOPs over T = 4,096"] == f"{per_token * 4096:.3g}"
    attn = attention_flops(4096, m.d_model, m.n_heads)
    assert values["attention FLOPs over T = 4,096"] == f"{sum(attn.values()):.3g}"


def test_the_share_question_comes_before_the_table_and_says_why():
    at = open_page(SCALE)
    assert not at.dataframe  # the table would give the answer away
    at.radio(key="guess_share").set_value("about half").run()
    assert at.error[0].value.startswith("Not this time: the answer is about two thirds.")
    assert "the FFN holds 66.6% of the block" in at.error[0].value
    counts = model_params(MODEL_SHAPES["GPT-2 small"])
    assert counts["ffn"] / counts["block"] == pytest.approx(0.666, abs=1e-3)


def test_the_text_says_which_norms_are_left_out_and_names_each_models_share():
    at = open_page(SCALE, {"guess_share": "about two thirds"})
    text = " ".join(c.value for c in at.caption)
    assert "leaves out the embeddings and the one norm outside the blocks" in text
    table = at.dataframe[0].value
    for name, share in (("Llama-3-8B", "81 %"), ("Mixtral-8x7B", "97 %")):
        assert f"{table.loc[name, 'FFN share of block']:.0%}".replace("%", " %") == share
        assert share in text


@pytest.mark.parametrize(("d_model", "heads"), [(768, 12), (1024, 16), (4, 1), (100, 2)])
def test_your_models_heads_are_64_wide_where_d_model_allows(d_model, heads):
    from ffn_core.costs import default_heads

    assert default_heads(d_model) == heads
    at = open_page(SCALE, {"d_model": str(d_model), "guess_share": "about two thirds"})
    text = " ".join(c.value for c in at.caption)
    assert f"with {heads} head{'s' if heads > 1 else ''} of {d_model // heads} numbers" in text


def test_the_title_and_the_headline_follow_e_and_k():
    at = open_page(MOE, {"E": "12", "k": "3"})
    assert at.title[0].value == "Mixture of experts: capacity without compute"
    assert "**12 experts, 3 per token: 12× the FFN capacity at 3× the compute of one.**" in [
        m.value for m in at.markdown
    ]


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
    at.radio(key="guess_mixtral").set_value("56B stored, 14B per token").run()
    verdict = at.error[0].value
    assert f"{mx['total'] / 1e9:.1f}B stored, {mx['active'] / 1e9:.1f}B per token" in verdict
    assert "attention layers, the embeddings and the norms are shared" in verdict
    (shown,) = [m for m in at.metric if m.label.startswith("parameters: stored")]
    assert shown.value == "46.7B / 12.9B"

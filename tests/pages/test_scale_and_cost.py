"""The Scale & cost page in AppTest: the parameter table against every published checkpoint,
FLOPs and sequence length."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    ANSWERS,
    SCALE,
    chart_traces,
    decode,
    metric,
    open_page,
    page_words,
    shown_table,
    traces,
)

from ffn_core import MODEL_SHAPES, attention_flops, ffn_flops, model_params, quadratic_crossover

pytestmark = pytest.mark.usefixtures("fresh_caches")

BOTH = {**ANSWERS[SCALE], "guess_swiglu_cost": "about the same"}  # the page's two questions


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
    at = open_page(SCALE, {"cost_model": "Mixtral-8x7B", **BOTH})
    ffn = traces(at, 2)[0]  # after the split and the ratio
    assert ffn["name"] == "FFN (active experts)"
    T = decode(ffn["x"])
    np.testing.assert_allclose(decode(ffn["y"]), 2 * 3 * 2 * T * 4096 * 14336, rtol=1e-6)


def test_sequence_length_metrics_are_the_cores():
    at = open_page(SCALE, {"seq_T": "4,096", **ANSWERS[SCALE]})
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
    for name, share in (("Llama-3-8B", "81 %"), ("Mixtral-8x7B", "97 %"), ("Llama-2-70B", "82 %")):
        assert f"{table.loc[name, 'FFN share of block']:.0%}".replace("%", " %") == share
        assert share in text


@pytest.mark.parametrize(("d_model", "heads"), [(768, 12), (1024, 16), (4, 1), (100, 2)])
def test_your_models_heads_are_64_wide_where_d_model_allows(d_model, heads):
    from ffn_core.lessons.costs import default_heads

    assert default_heads(d_model) == heads
    at = open_page(SCALE, {"d_model": str(d_model), "guess_share": "about two thirds"})
    text = " ".join(c.value for c in at.caption)
    assert f"with {heads} head{'s' if heads > 1 else ''} of {d_model // heads} numbers" in text


def test_before_the_guess_the_blocks_are_drawn_whole_and_nothing_gives_the_share():
    """The question asks GPT-2 small's FFN share: the figure draws each block without its
    split, and no table, ratio chart, caption ("8·d², twice attention's 4·d²") or figure's
    words give it; after the guess the split is the core's, model by model."""
    from ffn_ui.parts.cost_table import FIGURE_MODELS, SHAPES

    at = open_page(SCALE)
    (whole,) = traces(at, 0)  # one grey bar per model, no parts
    assert list(whole["y"]) == [*FIGURE_MODELS, "your model"]
    np.testing.assert_array_equal(decode(whole["x"]), 1.0)
    assert not any(c.isdigit() for c in whole["hovertemplate"] + "".join(whole["text"]))
    said = page_words(at.main, questions=False)
    for answer in ("two thirds", "66.6", "67 %", "67%", "0.666", "8·d²", "4·d²", "twice"):
        assert answer not in said, answer
    assert not at.dataframe and len(at.get("plotly_chart")) == 1  # the split alone
    at.radio(key="guess_share").set_value("about a third").run()
    ffn, attention, norms = traces(at, 0)
    assert [ffn["name"], attention["name"], norms["name"]] == [
        "FFN",
        "attention (Q, K, V, O)",
        "norms",
    ]
    for i, name in enumerate(FIGURE_MODELS):
        counts = model_params(SHAPES[name])
        assert decode(ffn["x"])[i] == pytest.approx(counts["ffn"] / counts["block"], rel=1e-6)
        assert decode(attention["x"])[i] == pytest.approx(counts["attention"] / counts["block"])
    said = page_words(at.main, questions=False)
    assert "66.6%" in said
    assert len(at.get("plotly_chart")) == 2  # and the FLOPs; the ratio waits for question 2
    at.radio(key="guess_swiglu_cost").set_value("more").run()
    assert "8·d², twice attention's 4·d²" in page_words(at.main, questions=False)
    assert len(at.get("plotly_chart")) == 3  # and the ratio's lines


def test_llama_2_keeps_two_thirds_at_7b_and_13b_and_82_percent_at_70b():
    """M2: the page's claim per size, each recount the published checkpoint's."""
    from ffn_ui.parts.cost_table import SHAPES

    shares = {}
    for name in ("Llama-2-7B", "Llama-2-13B", "Llama-2-70B"):
        counts = model_params(SHAPES[name])
        assert counts["total"] == SHAPES[name].published_params
        shares[name] = counts["ffn"] / counts["block"]
    assert shares["Llama-2-7B"] == pytest.approx(2 / 3, abs=0.005)
    assert shares["Llama-2-13B"] == pytest.approx(2 / 3, abs=0.005)
    assert shares["Llama-2-70B"] == pytest.approx(0.82, abs=0.005)
    seventy = SHAPES["Llama-2-70B"]
    assert (seventy.d_ff, seventy.n_heads, seventy.n_kv_heads) == (28672, 64, 8)
    at = open_page(SCALE, ANSWERS[SCALE])
    said = " ".join(c.value for c in at.caption)
    assert "GPT-2, BERT and Llama 2 7B and 13B keep two thirds" in said
    assert "Llama 2 70B keeps 82 %" in said and "d_ff 28,672" in said
    assert "GPT-2, BERT and Llama 2 keep two thirds" not in said  # the old, too broad claim
    assert at.dataframe[0].value.loc["Llama-2-70B", "published"] == 68_976_648_192


def test_the_norms_are_said_in_a_few_words_before_the_table_names_them():
    at = open_page(SCALE, ANSWERS[SCALE])
    said = page_words(at.main, questions=False)
    why = said.index("LayerNorm (GPT-2, BERT) shifts")
    assert "RMSNorm (Llama) only divides by the numbers' root mean square" in said
    assert why < said.index("GPT-2-style blocks with biases and LayerNorm")


def test_before_the_swiglu_guess_no_table_or_word_gives_either_ffns_flops():
    """Section 4 asks whether SwiGLU at 8/3 × d_model does more FLOPs than the plain FFN at
    4 × d_model: both counts wait for the guess, then come from the core."""
    from ffn_core.lessons.costs import swiglu_d_ff

    at = open_page(SCALE, {"d_model": "4", **ANSWERS[SCALE]})
    plain, gated = ffn_flops(1, 4, 16), ffn_flops(1, 4, swiglu_d_ff(4), "swiglu")
    assert (plain, gated) == (256, 264)
    assert not [d for d in at.dataframe if "FLOPs per token" in d.value.columns]
    said = page_words(at.main, questions=False)
    assert f"= {plain:,}" not in said and f"= {gated:,}" not in said
    at.radio(key="guess_swiglu_cost").set_value("about the same").run()
    assert at.success[-1].value.startswith("Right:")
    (table,) = [d.value for d in at.dataframe if "FLOPs per token" in d.value.columns]
    assert list(table["FLOPs per token"]) == [plain, gated]


def test_before_the_share_guess_no_flops_line_or_count_gives_the_ffns_weights():
    """The FFN's FLOPs against attention's projections are its weights against theirs, two
    to one: the FLOPs section waits for the first guess, then is the core's."""
    at = open_page(SCALE)
    assert not at.metric
    assert not [t for chart in chart_traces(at) for t in chart if "attention" in t.get("name", "")]
    said = page_words(at.main, questions=False)
    assert "FFN FLOPs per token" not in said and f"{2 * 2 * 768 * 3072:,}" not in said
    at.radio(key="guess_share").set_value("about half").run()
    assert metric(at, "FFN FLOPs per token") == f"{2 * 2 * 768 * 3072:,}"


def test_before_the_swiglu_guess_nothing_says_its_weights_match_the_plain_ffns():
    """Question 2 asks whether SwiGLU at 8/3 × d_model does the plain FFN's FLOPs per token:
    equal weights would settle it, so no heading, sidebar caption or ratio says so before
    the guess (the share question answered); after it the ratio's lines and words do."""
    at = open_page(SCALE, ANSWERS[SCALE])
    sidebar = page_words(at.sidebar, questions=False)
    assert "d²" not in sidebar and "as many weights" not in sidebar
    # question 1's why counts GPT-2's 8·d², not SwiGLU's
    said = page_words(at.main, questions=False)
    for answer in ("stay at 8·d²", "same weights", "as many weights", "the same FLOPs"):
        assert answer not in said, answer
    assert len(at.get("plotly_chart")) == 2  # the split and the FLOPs: no ratio yet
    at.radio(key="guess_swiglu_cost").set_value("more").run()
    assert "so it uses d_ff ≈ 8/3·d_model to stay at 8·d²" in page_words(at.main, questions=False)


def test_an_expert_is_said_where_the_page_first_names_mixtrals():
    """Mixture of experts comes after this page: where Mixtral's experts first appear (the
    notice beside the split, once guessed) they are said in a few words, and so is the
    table's "active per token"."""
    said = page_words(open_page(SCALE, ANSWERS[SCALE]).main, questions=False)
    first = said.index("expert")
    assert (
        "eight FFNs side by side of which a small router runs two for each token"
        in (said[first : first + 100])
    )
    assert "'active per token' is what one token runs through" in said

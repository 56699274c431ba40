"""The Scale & cost page in AppTest: the parameter table against every published checkpoint,
FLOPs and sequence length."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ANSWERS, SCALE, decode, open_page, shown_table, traces

from ffn_core import MODEL_SHAPES, attention_flops, model_params, quadratic_crossover

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

"""SmolLM2-135M run by our NumPy code, against independent computations.

smollm_reference.npz holds what Hugging Face transformers' LlamaForCausalLM (PyTorch)
computes from the same GGUF file (see make_smollm_reference.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ffn_core.models.edits import Edit, RankOneEdit

REFERENCE = np.load(Path(__file__).parents[1] / "data" / "smollm_reference.npz")
L, D_MODEL, D_FF, VOCAB = 30, 576, 1536, 49152
PROMPT = "The capital of France is"


def relative_error(ours: np.ndarray, theirs: np.ndarray) -> float:
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    return float(np.linalg.norm(ours - theirs) / np.linalg.norm(theirs))


@pytest.fixture(scope="module")
def trace(smollm):
    return smollm.run(PROMPT)


# --- tokens ------------------------------------------------------------------------------


def test_token_ids_match_transformers_for_digits_accents_emoji_code_spaces_and_chat(smollm):
    expected = json.loads(str(REFERENCE["token_texts"]))
    for text, ids in expected.items():
        assert smollm.tokenizer.encode(text, add_special_tokens=False).ids == ids, text


def test_chat_markers_are_single_tokens_and_text_round_trips(smollm):
    ids = smollm.encode("<|im_start|>user\nHi<|im_end|>")
    assert ids[0] == 1 and ids[-1] == 2
    for text in json.loads(str(REFERENCE["token_texts"])):
        assert smollm.tokenizer.decode(list(smollm.encode(text)), skip_special_tokens=False) == text


def test_every_digit_is_its_own_token(smollm):
    assert [smollm.piece(i) for i in smollm.encode("1999")] == ["1", "9", "9", "9"]


# --- the forward pass against transformers ----------------------------------------------


def test_the_prompt_has_the_reference_ids(trace):
    assert trace.token_ids.tolist() == REFERENCE["run_ids"].tolist()


def test_every_hidden_state_matches_transformers(trace):
    for layer, theirs in enumerate(REFERENCE["hidden_states"]):
        assert relative_error(trace.hidden_states[layer], theirs) < 2e-3, layer


@pytest.mark.parametrize("name", ["gate", "up", "act"])
def test_every_ffn_hidden_vector_matches_transformers(trace, name):
    ours = {"gate": trace.ffn_gate, "up": trace.ffn_up, "act": trace.ffn_act}[name][:, -1]
    for layer in range(L):
        assert relative_error(ours[layer], REFERENCE[name][layer]) < 2e-3, layer


def test_logits_and_top_five_match_transformers(trace):
    assert relative_error(trace.logits[-1], REFERENCE["logits"]) < 2e-3
    assert np.argsort(trace.logits[-1])[::-1][:5].tolist() == REFERENCE["top"].tolist()


def test_switching_neurons_off_matches_transformers_with_the_same_hook(smollm):
    edit = json.loads(str(REFERENCE["edit"]))
    edits = [Edit(edit["layer"], j, edit["scale"]) for j in edit["neurons"]]
    edited = smollm.run(PROMPT, edits)
    assert relative_error(edited.logits[-1], REFERENCE["edited_logits"]) < 2e-3
    assert np.argsort(edited.logits[-1])[::-1][:5].tolist() == REFERENCE["edited_top"].tolist()
    assert np.all(edited.ffn_act[edit["layer"], :, edit["neurons"]] == 0)


def test_the_trace_has_the_contracted_shapes(trace):
    T = len(trace.tokens)
    assert trace.hidden_states.shape == (L + 1, T, D_MODEL)
    for name in ("ffn_gate", "ffn_up", "ffn_act"):
        assert getattr(trace, name).shape == (L, T, D_FF)
    assert trace.logits.shape == (T, VOCAB)


def test_the_issue_s_measured_predictions(smollm):
    for prompt, word, p in [
        (PROMPT, " Paris", 0.77),
        ("The opposite of hot is", " cold", 0.68),
        ("Water freezes at zero degrees", " Celsius", 0.88),
    ]:
        top_id, top_p = smollm.top_next(smollm.run(prompt), 1)[0]
        top_word = smollm.piece(top_id)
        assert top_word == word and abs(top_p - p) < 0.01


# --- the FFN inside: the toy facts on real weights ---------------------------------------


def test_each_ffn_output_is_the_sum_of_its_neurons_values(smollm, trace):
    layer, t = 8, 2
    W_down = smollm.blocks[layer].W_down.astype(np.float64)
    total = np.zeros(D_MODEL)
    for j in range(D_FF):
        total += float(trace.ffn_act[layer, t, j]) * W_down[j]
    assert np.allclose(total, trace.ffn_out[layer, t], rtol=1e-4, atol=1e-4)


def test_act_is_silu_of_gate_times_up(trace):
    gate, up = trace.ffn_gate.astype(np.float64), trace.ffn_up.astype(np.float64)
    assert np.allclose(gate / (1 + np.exp(-gate)) * up, trace.ffn_act, rtol=1e-4, atol=1e-5)


def test_an_edit_at_one_token_changes_nothing_before_it(smollm, trace):
    edited = smollm.run(PROMPT, [Edit(4, 100, scale=5.0, token=2)])
    assert np.array_equal(edited.hidden_states[:, :2], trace.hidden_states[:, :2])
    assert not np.allclose(edited.hidden_states[5:, 2], trace.hidden_states[5:, 2])
    assert np.allclose(edited.ffn_act[4, 2, 100], 5.0 * trace.ffn_act[4, 2, 100])


def test_the_causal_mask_keeps_earlier_tokens_as_they_were(smollm, trace):
    longer = smollm.run(PROMPT + " a city")
    T = len(trace.tokens)
    assert np.allclose(longer.hidden_states[:, :T], trace.hidden_states, rtol=1e-4, atol=1e-4)


# --- generation --------------------------------------------------------------------------


def test_generation_with_the_cache_equals_recomputing_everything(smollm):
    ids = smollm.encode(PROMPT)
    edits = [Edit(20, 3, 0.0), Edit(10, 50, 2.0, token=1)]
    for given in ((), edits):
        cached = smollm.generate_ids(ids, 12, given)
        assert cached == smollm.generate_ids(ids, 12, given, use_cache=False)
    assert smollm.generate(PROMPT, 1) == " Paris"


def test_each_greedy_step_is_the_top_token_of_a_full_run(smollm):
    ids = smollm.encode("The opposite of hot is")
    out = smollm.generate_ids(ids, 4)
    for step in range(len(out)):
        full = smollm.run_ids(np.concatenate([ids, out[:step]]).astype(np.int64))
        assert int(np.argmax(full.logits[-1])) == out[step]


# --- attribution -------------------------------------------------------------------------


def test_logit_parts_add_up_to_the_logit(smollm, trace):
    target = int(np.argmax(trace.logits[-1]))
    parts = smollm.logit_parts(trace, -1, target)
    total = parts["embedding"] + parts["attention"].sum() + parts["ffn"].sum()
    assert total == pytest.approx(float(trace.logits[-1, target]), rel=1e-3)


def test_neuron_attributions_add_up_to_each_ffn_share(smollm, trace):
    target = int(np.argmax(trace.logits[-1]))
    per_neuron = smollm.neuron_attribution(trace, -1, target)
    assert per_neuron.shape == (L, D_FF)
    shares = smollm.logit_parts(trace, -1, target)["ffn"]
    assert np.allclose(per_neuron.sum(axis=1), shares, rtol=1e-3, atol=1e-3)


def test_value_scores_are_the_value_vector_against_every_output_vector(smollm):
    layer, neuron = 25, 123
    scores = smollm.value_scores(layer, neuron)
    value = smollm.blocks[layer].W_down[neuron].astype(np.float64) * smollm.final_norm
    expected = smollm.embed.astype(np.float64) @ value
    assert np.sort(scores)[::-1][:5] == pytest.approx(np.sort(expected)[::-1][:5], rel=1e-4)
    assert np.sort(scores)[:5] == pytest.approx(np.sort(expected)[:5], rel=1e-4)
    assert int(np.argmax(scores)) == int(np.argmax(expected))


def test_logit_lens_ends_on_the_prediction(smollm, trace):
    top_id, p = smollm.top_next(trace, 1)[0]
    target = int(np.argmax(trace.logits[-1]))
    lens, p_target = smollm.logit_lens(trace, target)
    assert len(lens) == L and lens[-1] == target and top_id == target
    assert p_target[-1] == pytest.approx(p, rel=1e-5)
    final = trace.hidden_states[5, -1].astype(np.float64)
    normed = final / np.sqrt(np.mean(final**2) + 1e-5) * smollm.final_norm
    assert lens[4] == int(np.argmax(smollm.embed.astype(np.float64) @ normed))


# --- a rank-one change to W_down, applied without copying it -----------------------------


def test_a_rank_one_edit_adds_h_dot_u_times_v_to_one_block(smollm, trace):
    rng = np.random.default_rng(0)
    u = rng.standard_normal(D_FF).astype(np.float32) * 1e-3
    v = rng.standard_normal(D_MODEL).astype(np.float32)
    before = smollm.blocks[6].W_down.copy()
    edited = smollm.run(PROMPT, fact=RankOneEdit(6, u, v))
    assert np.array_equal(smollm.blocks[6].W_down, before)
    added = edited.ffn_out[6] - trace.ffn_out[6]
    assert np.allclose(added, np.outer(trace.ffn_act[6] @ u, v), rtol=1e-3, atol=1e-4)
    W = before.astype(np.float64) + np.outer(u, v)
    assert np.allclose(trace.ffn_act[6] @ W, edited.ffn_out[6], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("text", ["The capital of France is", "One, two, three, four, five,"])
def test_a_continuation_from_the_trace_is_the_generated_one(smollm, text):
    """Continuing from a run's own keys and values gives the tokens that generating from
    the text gives, without running the text again."""
    trace = smollm.run(text)
    assert smollm.continue_trace(trace, 8) == smollm.generate_ids(smollm.encode(text), 8)

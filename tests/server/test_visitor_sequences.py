"""What a visitor clicks through, read from the server: pick something, then change what it
depends on; press a preset, then share the link; answer, then change the question.

These once crashed a page in a real session only (a widget bound to the address behaves
there as AppTest cannot show), and were checked in Chromium. What they check is the
server's work: its reruns, its notes, the values it sets and the address it writes. A
protocol session sends what the browser sends, the address it writes for a bound
control included (harness/class_protocol.py), so these run here at a fraction of
Chromium's cost. The browser keeps what only it shows (tests/browser/).
"""

from __future__ import annotations

import json

import numpy as np
from helpers import ANSWERS, BACKPROP

from ffn_core.models.edits import Edit
from ffn_core.models.minilm.model import cosine
from ffn_ui.models.minilm import DEFAULT
from harness.class_protocol import Participant
from harness.protocol import decode

ASK = "Make your guess above to see the answer."


def said(visitor: Participant) -> str:
    """Every heading, note and text the page shows now, as read (no code marks), after
    checking that nothing on it raised."""
    runs = [visitor.shown, *visitor.fragments.values()]
    errors = [e for seen in runs for e in seen.exceptions]
    assert not errors, errors
    parts = [t for seen in runs for t in (*seen.headings, *seen.notes, *seen.texts)]
    return "\n".join(parts).replace("`", "")


def chosen(visitor: Participant, key: str) -> str:
    return visitor.control(key).value


def figure(visitor: Participant, index: int) -> dict:
    return json.loads(visitor.shown.charts[index])


def chart_y(visitor: Participant, index: int, kind: str) -> list[float]:
    (trace,) = [t for t in figure(visitor, index)["data"] if t["type"] == kind][:1]
    return decode(trace["y"]).tolist()


def heatmap_shape(visitor: Participant) -> list[int]:
    trace = figure(visitor, 0)["data"][0]
    return list(decode(trace["z"]).shape)


def top_word(visitor: Participant) -> str:
    """The first bar's label of the Language model page's next-token chart."""
    return figure(visitor, 0)["data"][0]["y"][0]


# --- pick, then change what the pick depends on ------------------------------------------


def test_a_token_picked_then_the_lesson_preset(server):
    with Participant(server.port, page="Key_value_memory") as visitor:
        visitor.set("tok", "3: sat")
        assert "tok=3%3A+sat" in visitor.query  # as the browser writes it
        visitor.press("Lesson")
        assert "token 3: sat no longer exists now that there is 1 token; showing 1: t1." in (
            said(visitor)
        )
        assert chosen(visitor, "tok") == "1: t1"
        assert "tok=" not in visitor.query


def test_a_token_picked_then_a_shorter_sentence(server):
    with Participant(server.port, page="Neurons") as visitor:
        visitor.set("tok", "6: mat")
        visitor.set("text", "hello world")
        note = "token 6: mat no longer exists now that there are 2 tokens; showing 1: hello."
        assert note in said(visitor)
        assert chosen(visitor, "tok") == "1: hello"


def test_a_token_picked_then_a_new_sentence_keeps_its_position(server):
    with Participant(server.port, page="Neurons") as visitor:
        visitor.set("tok", "3: sat")
        visitor.set("text", "a dog ran home")
        assert "no longer exists" not in said(visitor)  # carried silently
        assert chosen(visitor, "tok") == "3: ran"


def test_a_neuron_picked_then_a_smaller_d_ff(server):
    with Participant(server.port, page="Neurons") as visitor:
        visitor.set("neuron", "n16")
        visitor.set("d_ff", 8)
        assert "neuron n16 no longer exists now that d_ff = 8; showing n1." in said(visitor)
        assert chosen(visitor, "neuron") == "n1"


def test_a_real_model_token_picked_then_a_shorter_sentence(server, minilm):
    with Participant(server.port, page="Real_model") as visitor:
        visitor.set("rm_tok", "8: [SEP]")
        visitor.set("rm_text", "Hi there.")
        note = "token 8: [SEP] no longer exists in this sentence; showing 2: there."
        assert note in said(visitor)


def test_a_tiny_d_ff_a_long_sentence_then_the_small_preset_elsewhere(server):
    with Participant(server.port, page="Neurons") as visitor:
        visitor.set("d_ff", 1)
        visitor.set("text", "one two three four five six seven eight nine ten")
        visitor.set("tok", "10: ten")
        visitor.go("Key_value_memory")
        visitor.press("Small")
        assert chosen(visitor, "d_ff") == "16"
        assert chosen(visitor, "tok") == "10: ten"  # the sentence did not change, nor did it
        said(visitor)


def test_key_value_scale_starts_at_1_for_each_new_neuron(server):
    with Participant(server.port, "neuron=n3&scale=2.0", "Key_value_memory") as visitor:
        assert chosen(visitor, "scale") == "2"  # a link reproduces its scale
        visitor.set("neuron", "n5")
        scale = visitor.control("scale")
        assert (scale.label, scale.value) == ("scale n5 by", "1")
        assert "scale=" not in visitor.query


# --- the model a page shows, across pages and links --------------------------------------


def test_a_token_picked_on_neurons_carries_to_key_value(server):
    with Participant(server.port, page="Neurons") as visitor:
        visitor.set("tok", "3: sat")
        visitor.go("Key_value_memory")
        assert "1. Match: how well “3: sat” fits each key" in said(visitor)
        assert "tok=3%3A+sat" in visitor.query  # the server's own address for the page


def test_neurons_heatmap_follows_d_ff_and_keeps_it_across_pages(server):
    with Participant(server.port, page="Neurons") as visitor:
        assert heatmap_shape(visitor) == [6, 16]  # six words, 16 neurons
        visitor.set("d_ff", 24)
        assert heatmap_shape(visitor) == [6, 24]
        visitor.go("Key_value_memory")
        assert visitor.shown.title.startswith("Key–value memory")
        assert chosen(visitor, "d_ff") == "24"
        assert "d_ff=24" in visitor.query


def test_lesson_preset_link_with_hand_weights_reproduces_the_output(server):
    with Participant(server.port, page="Key_value_memory") as visitor:
        visitor.press("Lesson")
        assert len(visitor.shown.charts) == 3  # the sum waits for the guess
        visitor.choose("guess_kv", "nothing")
        assert len(visitor.shown.charts) == 5  # the sum, and the plane's arrows join in
        assert chart_y(visitor, 1, "scatter") == [0.0, 2.0]
        assert "w=" in visitor.query and "x=" in visitor.query
        link = visitor.query
    with Participant(server.port, link, "Key_value_memory") as reader:
        said(reader)
        assert len(reader.shown.charts) == 3  # a guess rides in no link: the reader's own
        reader.choose("guess_kv", "its value, times its whole score")
        assert chart_y(reader, 1, "scatter") == [0.0, 2.0]


def test_collapse_trains_both_networks_after_a_prediction(server):
    with Participant(server.port, "task=spiral", "Collapse") as visitor:
        before = len(visitor.shown.charts)  # the fits wait for the prediction
        visitor.choose("guess", "no")
        assert len(visitor.shown.charts) > before  # the fits, trained once guessed
        text = said(visitor)
        assert "Right: with no bend the network is one matrix" in text
        assert "on spiral, " in text  # then how it compares with always one class


# --- the Language model and Superposition pages ------------------------------------------


def test_a_language_model_token_picked_then_a_shorter_text(server, smollm_installed):
    with Participant(server.port, page="Language_model") as visitor:
        visitor.set("lm_tok", "3: ␣France")
        visitor.set("lm_text", "Hi")
        assert "token 3: ␣France no longer exists in this text; showing 0: Hi." in said(visitor)
        assert chosen(visitor, "lm_tok") == "0: Hi"


def test_pushers_picked_then_a_preset_drops_the_neurons_that_are_gone(server, smollm_installed):
    with Participant(server.port, page="Language_model") as visitor:
        charts = len(visitor.shown.charts)
        visitor.press("Pick the 5 strongest pushers")
        assert len(visitor.shown.charts) == charts + 1
        assert "went from 0.77 to" in said(visitor)
        visitor.press("Opposites")
        assert "no longer exist for this text; dropped." in said(visitor)
        assert top_word(visitor) == "“␣cold”"


def test_a_language_model_preset_s_link_reopens_the_same_prediction(server, smollm_installed):
    with Participant(server.port, page="Language_model") as visitor:
        visitor.press("Freezing")
        assert top_word(visitor) == "“␣Celsius”"
        assert "lm_text=Water+freezes" in visitor.query
        link = visitor.query
    with Participant(server.port, link, "Language_model") as reader:
        assert top_word(reader) == "“␣Celsius”"
        said(reader)


def test_a_rewritten_fact_then_another_fact_asks_again(server, smollm_installed):
    with Participant(server.port, "lm_fact=France%27s+capital", "Language_model") as visitor:
        visitor.choose("guess_neighbour", "yes, unchanged")
        assert "paraphrases follow it" in said(visitor)
        visitor.set("lm_fact", "The Eiffel Tower")
        assert ASK in said(visitor) and "paraphrases follow it" not in said(visitor)


def test_a_superposition_guess_then_the_dense_preset_then_its_link_asks_again(server):
    with Participant(server.port, page="Superposition") as visitor:
        charts = len(visitor.shown.charts)
        visitor.choose("guess_kept", "5")
        assert "the model keeps 5 of 5 features" in said(visitor)
        assert len(visitor.shown.charts) == charts + 2  # now Wᵀ W and the bars
        visitor.press("Dense")
        assert visitor.control("guess_kept").label.startswith(
            "At 0% zeros and importance 0.7^i, how many"
        )
        visitor.choose("guess_kept", "2")  # a new setting asks again
        assert "At 0% zeros and importance 0.7^i the model keeps 2 of 5" in said(visitor)
        # The link shares the view and not the guess: its reader predicts first.
        assert "sp_sparsity=0%25" in visitor.query and "guess" not in visitor.query
        link = visitor.query
    with Participant(server.port, link, "Superposition") as reader:
        assert ASK in said(reader)
        assert "the model keeps 2 of 5 features" not in said(reader)


# --- a fragment reruns on its own ----------------------------------------------------------


def fragment_of(visitor: Participant, key: str):
    """What the last run of the fragment holding control `key` showed."""
    return visitor.fragments[visitor.control(key).fragment]


def test_activations_range_slider_reruns_its_fragment(server):
    with Participant(server.port, page="Activations") as visitor:
        visitor.set("range", 4.5)
        curves = fragment_of(visitor, "range")
        assert curves.fragment_run  # the section alone, not the page
        assert max(decode(json.loads(curves.charts[0])["data"][0]["x"])) == 4.5
        assert "range=4.5" in visitor.query  # as the browser writes it


def test_backprop_exercise_answers_then_its_nudge_reruns_it_and_a_new_seed_redraws_it(server):
    """The silent-neuron exercise is a fragment: its question, its slider and its text
    rerun on their own, and a change above it (the seed) still redraws it."""
    with Participant(server.port, page="Backprop") as visitor:
        visitor.choose("guess_precision", ANSWERS[BACKPROP]["guess_precision"])
        visitor.choose("guess_dw1", "exactly zero")
        visitor.set("nudge_w", 0.6)
        exercise = fragment_of(visitor, "nudge_w")
        assert exercise.fragment_run
        text = "\n".join(exercise.texts + exercise.notes).replace("`", "")
        assert "At s = 0.6 (score" in text
        assert "The loss differs from the loss at s = 0" in text
        visitor.set("seed", 7)
        assert not visitor.shown.fragment_run
        visitor.choose("guess_dw1", "exactly zero")  # new weights: the question asks again
        assert "The loss differs from the loss at s = 0" in said(visitor)  # redrawn whole


# --- the Real model page ---------------------------------------------------------------


def heatmap_rows(visitor: Participant) -> list[str]:
    """The rows of the page's first heatmap, on whichever chart it is drawn."""
    runs = [visitor.shown, *visitor.fragments.values()]
    for chart in (c for seen in runs for c in seen.charts):
        trace = json.loads(chart)["data"][0]
        if trace["type"] == "heatmap":
            return list(trace["y"])
    raise AssertionError("no heatmap")


BANK = ["0: [CLS]", "1: i", "2: deposited", "3: my", "4: salary", "5: at", "6: the", "7: bank"]
BANK += ["8: .", "9: [SEP]"]
WHALES = ["0: [CLS]", "1: whales", "2: sing", "3: .", "4: [SEP]"]


def test_real_model_preset_and_typed_sentence_redraw_it_and_the_link_keeps_them(server, minilm):
    with Participant(server.port, page="Real_model") as visitor:
        visitor.press("Bank")
        assert heatmap_rows(visitor) == BANK
        assert chosen(visitor, "rm_layer") == "4"
        visitor.set("rm_text", "Whales sing.")
        assert heatmap_rows(visitor) == WHALES
        said(visitor)
        link = visitor.query
    with Participant(server.port, link, "Real_model") as reader:
        assert heatmap_rows(reader) == WHALES
        assert chosen(reader, "rm_layer") == "4"


def test_real_model_k_slider_reruns_its_section_with_the_cores_numbers(server, minilm):
    with Participant(server.port, page="Real_model") as visitor:
        visitor.set("rm_k", 17)
        section = fragment_of(visitor, "rm_k")
        assert section.fragment_run
    trace = minilm.run(DEFAULT.text)
    layer, token = DEFAULT.layer - 1, 2
    off = np.argsort(-trace.ffn_act[layer, token], kind="stable")[:17]
    edited = minilm.run(DEFAULT.text, [Edit(layer, int(j), 0.0, token) for j in off])
    (value,) = [v for label, v in section.metrics.items() if "original vs switched off" in label]
    assert value == f"{cosine(trace.embedding, edited.embedding):.4f}"


def test_a_link_s_settings_stay_when_the_learner_moves_on_by_the_menu(server):
    """Opened by a link, then straight to another page: the link's model stays, and the
    new page's address names it again from its next run (a typed value is in it at once)."""
    link = "act=SwiGLU&d_ff=24&d_model=6"
    with Participant(server.port, link, "Neurons") as visitor:
        visitor.go("Key_value_memory")
        assert visitor.shown.title.startswith("Key–value memory")
        assert [chosen(visitor, k) for k in ("act", "d_ff", "d_model")] == ["SwiGLU", "24", "6"]
        visitor.set("tok", "2: cat")  # the page's next run
        assert {"act=SwiGLU", "d_ff=24", "d_model=6"} <= set(visitor.query.split("&"))
        visitor.go("Collapse")
        assert [chosen(visitor, k) for k in ("act", "d_ff", "d_model")] == ["SwiGLU", "24", "6"]
        assert {"act=SwiGLU", "d_ff=24"} <= set(visitor.query.split("&"))

"""The Key–value page in AppTest: each firing neuron's write, switching off and scaling,
against the core."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    GLOSSARY,
    KEY_VALUE,
    NEURONS,
    chart_traces,
    click,
    decode,
    expected_default_model,
    guessed,
    heatmap,
    open_page,
    relu,
    trace_y,
    traces,
)

pytestmark = pytest.mark.usefixtures("fresh_caches")


def test_lesson_preset_gives_the_output_0_2():
    at = guessed(click(open_page(KEY_VALUE), "Lesson"), "guess_kv")
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 2.0])
    assert len(at.get("plotly_chart")) == 5  # the plane's arrows appear at d_model = 2
    at = guessed(click(open_page(NEURONS), "Lesson"), "guess_fire")
    np.testing.assert_array_equal(decode(heatmap(at)["z"]), [[np.nan, 2.0]])


def test_the_blocks_shown_add_up_to_the_output_shown():
    at = guessed(open_page(KEY_VALUE), "guess_kv")
    x, w = expected_default_model()
    out = relu(x[0] @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
    bars = [decode(t["y"]) for t in traces(at, 1) if t["type"] == "bar"]
    shown_out = trace_y(at, 1, name="output (the sum)")
    np.testing.assert_allclose(np.sum(bars, axis=0), shown_out, atol=1e-6)
    np.testing.assert_allclose(shown_out, out, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("neuron", [0, 6, 14])
def test_switching_a_neuron_off_removes_exactly_its_write(neuron):
    x, w = expected_default_model()
    h = relu(x[2] @ w["W1"] + w["b1"])  # token "3: sat"
    write = h[neuron] * w["W2"][neuron]
    query = {"tok": "3: sat", "neuron": f"n{neuron + 1}"}
    at = open_page(KEY_VALUE, {**query, "off": f"n{neuron + 1}"})
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, -write, atol=1e-6)
    at = open_page(KEY_VALUE, {**query, "scale": "2.5"})
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, 1.5 * write, atol=1e-6)


def test_the_inspected_neuron_can_be_switched_off_and_then_cannot_be_scaled():
    x, w = expected_default_model()
    h = relu(x[0] @ w["W1"] + w["b1"])  # token "1: the"
    at = open_page(KEY_VALUE, {"neuron": "n3", "off": "n1", "scale": "2"})
    (switch,) = [b for b in at.button if b.label == "Switch off n3"]
    switch.click().run()
    assert at.multiselect(key="off").value == ["n1", "n3"]
    assert not at.slider(key="scale").disabled  # greyed out, its label was unreadable
    assert any("n3 is switched off, so scaling it changes nothing." in c.value for c in at.caption)
    before, after = trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    np.testing.assert_allclose(after - before, -(h[0] * w["W2"][0] + h[2] * w["W2"][2]), atol=1e-6)
    assert not [b for b in at.button if b.label.startswith("Switch off")]


def test_reset_restores_the_output():
    at = open_page(KEY_VALUE, {"off": "n1", "scale": "2"})
    (reset,) = [b for b in at.button if b.label == "Reset"]
    reset.click().run()
    np.testing.assert_array_equal(
        trace_y(at, -1, name="output"), trace_y(at, -1, name="edited output")
    )


def test_residual_view_shows_x_ffn_and_their_sum():
    at = open_page(KEY_VALUE)
    x, ffn, total = (trace_y(at, -2, name=n) for n in ("x", "FFN(x)", "x + FFN(x)"))
    np.testing.assert_allclose(x + ffn, total, atol=1e-6)


def test_the_chosen_token_and_neuron_come_from_the_link():
    at = open_page(KEY_VALUE, {"tok": "2: cat", "neuron": "n7"})
    assert at.selectbox(key="tok").value == "2: cat"
    assert "1. Match: how well “2: cat” fits each key" in captions(at)
    assert "n7 scores" in captions(at)
    x, w = expected_default_model()
    scores = x[1] @ w["W1"] + w["b1"]  # token "2: cat" against every key: the first figure
    np.testing.assert_allclose(trace_y(at, 0, kind="bar"), scores, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("act", "answer"),
    [
        ("ReLU", "nothing"),
        ("Squared ReLU", "nothing"),
        ("GELU", "a little, its value sign-flipped"),
    ],
)
def test_a_neuron_that_does_not_fire_still_writes_under_gelu_and_the_page_asks_first(act, answer):
    """The silent neuron asked about, recomputed here: under ReLU its write is exactly zero;
    under GELU it is GELU(z) × W2[k] with GELU(z) = z Φ(z) < 0."""
    import math

    x, w = expected_default_model()
    z = x[0] @ w["W1"] + w["b1"]  # token "1: the"
    gelu = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in z])
    h = {"ReLU": relu(z), "Squared ReLU": relu(z) ** 2, "GELU": gelu}[act]
    silent = np.flatnonzero(z <= 0)
    k = int(silent[np.argmax(np.abs(h[silent]) + 1e-9 * z[silent])])
    at = open_page(KEY_VALUE, {"act": act})
    question = at.radio(key="guess_kv")
    assert question.label.startswith(f"Predict: n{k + 1} scores {z[k]:.3g} for “1: the”")
    assert not [c for c in at.caption if "'s write, h × its row of W2" in c.value]  # asked first
    wrong = "its value, times its whole score"
    question.set_value(wrong).run()
    assert at.error[0].value.startswith(f"Not this time: the answer is {answer}.")
    at.radio(key="guess_kv").set_value(answer).run()
    assert at.success[0].value.startswith("Right:")
    (said,) = [c.value for c in at.caption if "'s write, h × its row of W2" in c.value]
    assert said.startswith(f"n{k + 1}'s write, h × its row of W2 (row {k + 1}):")  # one count
    assert f"largest entry {np.abs(h[k] * w['W2'][k]).max():.3g}" in said
    if act == "GELU":
        assert h[k] < 0 and f"= {h[k]:.3g}, so n{k + 1} still writes" in at.success[0].value


def test_the_strongest_neuron_can_be_switched_off_from_a_button():
    x, w = expected_default_model()
    strongest = int(np.argmax(relu(x[0] @ w["W1"] + w["b1"])))
    at = open_page(KEY_VALUE)
    (switch,) = [
        b for b in at.button if b.label == f"Switch off n{strongest + 1}, the strongest, below"
    ]
    switch.click().run()
    change = trace_y(at, -1, name="edited output") - trace_y(at, -1, name="output")
    np.testing.assert_allclose(
        change, -relu(x[0] @ w["W1"] + w["b1"])[strongest] * w["W2"][strongest], atol=1e-5
    )


def test_the_intro_says_what_holds_for_every_activation_and_leaves_section_four_to_ask():
    """Under GELU a neuron that missed still writes (GELU(−1) = −Φ(1), computed here); under
    ReLU it writes nothing. Which is section 4's question, so the intro says neither."""
    import math

    gelu = f"GELU(−1) = {-0.5 * (1 + math.erf(-1 / math.sqrt(2))):.2f}".replace("-", "−")
    at = open_page(KEY_VALUE)
    intro = " ".join(m.value for m in at.markdown)
    assert "the output is every value, weighted by its neuron's activation, plus the bias" in intro
    assert "only the patterns this token matched" not in intro  # Q4's answer under ReLU
    assert "sign-flipped" not in intro and "a little" not in intro  # and under GELU
    assert "W2 the identity, no biases" in intro  # what makes the Lesson's output [0, 2]
    glossary = " ".join(m.value for m in open_page(GLOSSARY).markdown)
    assert f"with GELU or SiLU it still writes a little, sign-flipped ({gelu})" in glossary
    assert "the by-hand lesson" not in intro and "the lesson's example" not in intro


@pytest.mark.parametrize(
    "act, key", [("ReLU", "guess_kv"), ("GELU", "guess_kv"), ("SwiGLU", "guess_kv_gate")]
)
def test_the_sum_of_the_writes_waits_for_the_guess_about_a_silent_neuron(act, key):
    """The sum's figure shows what every neuron writes, the silent one too, so it would
    answer section 2's question before it is asked: it is drawn after the guess."""
    at = open_page(KEY_VALUE, {"act": act})
    names = [t.get("name") for traces_ in chart_traces(at) for t in traces_]
    assert "output (the sum)" not in names
    assert "and their sum, are drawn with the answer." in captions(at)
    at = guessed(at, key)
    names = [t.get("name") for traces_ in chart_traces(at) for t in traces_]
    assert "output (the sum)" in names


def captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_blocks_that_add_up_exactly_say_so_in_words():
    """At the Lesson preset every number is a small integer, so the sum is exact: the
    caption says it in words, not as 0.0e+00."""
    at = guessed(click(open_page(KEY_VALUE), "Lesson"), "guess_kv")
    captions = " ".join(c.value for c in at.caption)
    assert "the blocks add up to it exactly, to the last bit of float64." in captions
    assert "e+00" not in captions


def test_homes_link_promises_no_preset_it_does_not_apply():
    """Home's path link opens Key–value memory on the sidebar's model, so it names no
    preset; the page's intro says where the smallest example is."""
    home = open_page()
    (link,) = [k for k in home.get("page_link") if k.proto.label.startswith("Key–value memory")]
    assert "preset" not in link.proto.label
    intro = " ".join(m.value for m in open_page(KEY_VALUE).markdown)
    assert "In the smallest example (preset *Lesson*: d_model = d_ff = 2" in intro


def shown_words(at) -> str:
    """Every word the page shows: headings, sentences, captions, notes, verdicts, metrics
    and each figure in numbers."""
    parts = [e.value for e in [*at.title, *at.subheader, *at.markdown, *at.caption, *at.text]]
    parts += [e.value for e in [*at.info, *at.warning, *at.success, *at.error]]
    return "\n".join([*parts, *(f"{m.label} {m.value}" for m in at.metric)])


def silent_neuron(x, W1, b1, act):
    """The neuron section 2 asks about, recomputed: of those scoring ≤ 0 for the first
    token, the one that writes the most; its score and what the activation passes on."""
    import math

    z = x[0] @ W1 + b1
    bend = {
        "ReLU": lambda v: max(v, 0.0),
        "GELU": lambda v: v * 0.5 * math.erfc(-v / math.sqrt(2)),
        "none": lambda v: v,
    }[act]
    h = np.array([bend(v) for v in z])
    silent = np.flatnonzero(z <= 0)
    k = int(silent[np.argmax(np.abs(h[silent]) + 1e-9 * z[silent])])
    return k, z[k], h[k]


@pytest.mark.parametrize(("act", "key"), [("ReLU", "guess_kv"), ("GELU", "guess_kv"),
                                          ("none", "guess_kv")])  # fmt: skip
def test_before_the_guess_nothing_says_what_the_neuron_that_missed_writes(act, key):
    """Section 2 asks what neuron k, which scored ≤ 0, writes. With k itself picked, so
    that section 1's caption is about it, nothing before the guess gives what it passes
    on (under ReLU 0, under GELU a small negative number, with none its whole score): no
    sentence, no sum of the writes; the guess brings both."""
    x, w = expected_default_model()
    k, z, h = silent_neuron(x, w["W1"], w["b1"], act)
    at = open_page(KEY_VALUE, {"act": act, "neuron": f"n{k + 1}"})
    words = shown_words(at)
    assert f"n{k + 1} scores {z:.4g}: at or below 0, it does not fire." in words
    assert "passes on" not in words.split(f"n{k + 1} scores")[1].split("\n")[0]
    if h not in (0, z):  # with none, h is the score: the question itself gives it
        assert f"{h:.3g}" not in words and f"{h:.4g}" not in words
    names = [t.get("name") for chart in chart_traces(at) for t in chart]
    assert "output (the sum)" not in names and not any(str(n).startswith("n") for n in names)
    at = guessed(at, key)
    words = shown_words(at)
    assert f"{h:.3g}" in words
    assert "output (the sum)" in [t.get("name") for chart in chart_traces(at) for t in chart]


def test_the_lesson_example_is_asked_not_told_before_the_guess():
    """At the Lesson preset, section 2 asks what the neuron that scored 0 writes: the intro
    gives both scores and leaves the output, [0, 2], to the answer."""
    at = click(open_page(KEY_VALUE), "Lesson")
    words = shown_words(at)
    assert "scores 0 against the key [1, 1] and 2 against the key [1, −1]" in words
    assert "[0, 2]" not in words and "only the second value" not in words
    assert "output (the sum)" not in [t.get("name") for c in chart_traces(at) for t in c]
    at = guessed(at, "guess_kv")
    np.testing.assert_array_equal(trace_y(at, 1, name="output (the sum)"), [0.0, 2.0])


def test_a_teachers_page_says_nothing_of_the_teachers_own_answer():
    """A teacher does not answer: the class does, and the teacher reveals. The line under
    the held-back sum is true on every page, the teacher's and the students' following it."""
    from ffn_ui.classroom.room import TEACHER

    teacher = open_page(KEY_VALUE)
    (start,) = [b for b in teacher.sidebar.button if b.label == "Start a class"]
    start.click().run()
    assert TEACHER in teacher.session_state and not teacher.exception
    words = shown_words(teacher)
    assert "once you have answered" not in words and "you have answered" not in words
    assert "and their sum, are drawn with the answer." in words
    assert "output (the sum)" not in [t.get("name") for c in chart_traces(teacher) for t in c]


def test_the_residual_names_x_by_the_inputs_coordinates_and_the_output_by_its_own():
    x, _ = expected_default_model()
    at = open_page(KEY_VALUE)
    bars = {t["name"]: t for t in traces(at, -2)}
    assert bars["x"]["customdata"] == ["x1", "x2", "x3", "x4"]
    assert bars["FFN(x)"]["customdata"] == ["out1", "out2", "out3", "out4"]
    assert bars["x + FFN(x)"]["customdata"][0] == "x1 + out1"
    np.testing.assert_allclose(decode(bars["x"]["y"]), x[0], rtol=1e-6)


def test_a_wrong_answer_about_a_closed_gate_starts_its_sentence_with_a_word():
    """The why follows "the answer is …." as a sentence of its own: it starts with a
    capital word, never a function's name capitalised (Silu)."""
    at = open_page(KEY_VALUE, {"act": "SwiGLU"})
    at.radio(key="guess_kv_gate").set_value("nothing: the gate is shut").run()
    (wrong,) = at.error
    assert "Silu" not in wrong.value
    assert ". A closed gate still lets a little of the up score through" in wrong.value


def test_at_a_score_of_exactly_zero_a_smooth_bend_is_not_said_to_pass_nothing_below_zero():
    """The Lesson's first key scores exactly 0 and GELU(0) = 0 · Φ(0) = 0: the answer is
    nothing, and the why must not claim GELU passes nothing below zero (GELU(−1) ≈ −0.16)."""
    at = click(open_page(KEY_VALUE), "Lesson")  # the preset sets ReLU: GELU after it
    at.sidebar.selectbox(key="act").set_value("GELU").run()
    at.radio(key="guess_kv").set_value("a little, its value sign-flipped").run()
    (wrong,) = at.error
    assert wrong.value.startswith("Not this time: the answer is nothing.")
    assert "passes nothing at or below zero" not in wrong.value
    assert "score of exactly 0 even GELU passes nothing" in wrong.value

"""Build it in AppTest: a learner types lines, gets a grader's words, fixes a wrong line, asks
for a hint or the answer, passes their own gradient check, and shares their lines."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import BUILD_IT, open_page

from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN, Case, names_before, reference
from ffn_core.exercise.check_lines import CHECK_STEPS
from ffn_core.exercise.collapse_lines import COLLAPSE_STEPS
from ffn_core.exercise.safe_eval import MAX_WORK, priced_work
from ffn_ui.parts.build_it import TOY_CAPS, decode, encode
from harness.hostile_lines import ATTACK, COSTLY

ANSWERS = {step.name: step.answer for step in STEPS}


def typed(at, name: str, text: str):
    return at.text_input(key=f"typed_{name}").input(text).run()


def said(at) -> str:
    return " ".join(
        str(e.value)
        for kind in ("markdown", "caption", "success", "error", "info", "warning", "code")
        for e in getattr(at, kind)
    )


def everything(at, answers=ANSWERS):
    for name, text in answers.items():
        at.text_input(key=f"typed_{name}").input(text)
    return at.run()


def test_a_wrong_line_gets_a_grader_s_words_and_the_fix_is_accepted():
    at = open_page(BUILD_IT)
    assert not at.exception
    at = typed(at, "dW2", "np.einsum('bti,btj->btij', h, dout)")
    (error,) = at.error
    assert "dW2 should have shape (32, 8), W2's" in error.value
    assert "sums over B and T" in error.value
    at = typed(at, "dW2", "h.reshape(-1, H).T @ dout.reshape(-1, C)")
    assert not at.error
    assert any(s.value.startswith("Right") for s in at.success)
    assert "1 of 10 lines right." in said(at)


def test_no_answer_is_on_the_page_before_a_try():
    """A fresh page (or a shared link opened by someone who has not tried) shows hints,
    never the lesson's lines."""
    text = said(open_page(BUILD_IT))
    for name, answer in ANSWERS.items():
        assert f"{name} = {answer}" not in text
        assert answer not in text, answer


def test_after_an_honest_try_the_answer_is_a_click_away_and_not_marked_shown():
    at = typed(open_page(BUILD_IT), "dx", "dh_pre @ W1")
    assert "The right one, transposed, would fit" in at.error[0].value
    assert not at.code or "dx = dh_pre @ W1.T" not in [c.value for c in at.code]
    (show,) = [b for b in at.button if b.key == "show_dx"]
    at = show.click().run()
    codes = [c.value for c in at.code]
    assert "dx = dh_pre @ W1.T" in codes
    assert "dW1 = " + ANSWERS["dW1"] not in codes  # only the line asked for
    assert "Shown before a try" not in said(at)
    at = typed(at, "dx", "dh_pre @ W1.T")
    assert "1 of 10 lines right." in said(at)  # tried first: it counts as the learner's


def test_show_me_reveals_an_answer_and_says_it_was_shown():
    at = open_page(BUILD_IT)
    (show,) = [b for b in at.button if b.key == "show_db1"]
    at = show.click().run()
    assert "db1 = dh_pre.sum(axis=(0, 1))" in [c.value for c in at.code]
    assert "Shown before a try" in said(at)
    at = typed(at, "db1", "dh_pre.sum(axis=(0, 1))")
    assert "1 of 10 lines right (1 of them shown first: db1)." in said(at)


def test_every_line_right_runs_the_learner_s_own_gradient_check():
    at = everything(open_page(BUILD_IT))
    assert not at.exception and not at.error
    assert "10 of 10 lines right." in said(at)
    table = at.dataframe[-1].value
    assert list(table.index) == ["dW1", "db1", "dW2", "db2", "dx"]
    assert table["worst relative error"].max() < 1e-6
    assert table["passes (below 1e-5)"].all()
    assert "Your backward pass passes" in at.success[-1].value
    assert len(at.get("plotly_chart")) == 2  # the diagram, and the check's bars


def test_a_line_right_on_one_case_but_wrong_on_another_fails_the_check_honestly():
    """The toy case: the learner's lines are checked on it too."""
    at = open_page(BUILD_IT, {"build_case": "the sidebar's toy", "d_model": "5", "d_ff": "7"})
    at = everything(at)
    assert "10 of 10 lines right." in said(at)
    assert "the sidebar's toy (B, T, C, H = 1, 6, 5, 7)" in at.success[-1].value


def test_what_a_learner_types_is_never_read_as_markdown():
    at = typed(open_page(BUILD_IT), "h", "**bold** [link](http://example.com)")
    assert not at.exception
    message = at.error[0].value
    assert "http" not in message and "[link]" not in message


@pytest.mark.parametrize(
    "text", ["__import__('os').system('true')", "x.__class__", "10**10**9", "(" * 200 + "x"]
)
def test_a_hostile_line_gets_a_message_and_the_page_goes_on(text):
    at = typed(open_page(BUILD_IT), "h_pre", text)
    assert not at.exception and at.error
    at = typed(at, "h_pre", "x @ W1 + b1")
    assert not at.error


def test_shared_lines_ride_in_the_address_only_when_asked_and_load_in_a_new_session():
    at = typed(open_page(BUILD_IT), "h_pre", "x @ W1")
    assert "lines" not in at.query_params
    (share,) = [b for b in at.button if b.label.startswith("Put my lines in the address")]
    at = share.click().run()
    link = at.query_params["lines"]
    link = link[0] if isinstance(link, list) else link
    assert decode(link) == {"h_pre": "x @ W1"}  # what was typed, and nothing else
    reader = open_page(BUILD_IT, {"lines": link})
    assert reader.text_input(key="typed_h_pre").value == "x @ W1"
    assert "b1 is missing" in reader.error[0].value
    assert "This link holds 1 lines someone shared" in said(reader)


@pytest.mark.parametrize(
    "link",
    [
        "not base64 at all!",
        encode({"nonsense": "x"}),
        encode({"h_pre": "x" * 400}),
        "A" * 5000,
    ],
)
def test_a_bad_shared_link_gets_a_note_and_nothing_else(link):
    at = open_page(BUILD_IT, {"lines": link})
    assert not at.exception
    assert any("The link's lines were not loaded" in w.value for w in at.warning)


def test_the_by_hand_lines_name_both_traps():
    at = open_page(BUILD_IT)
    at = typed(at, "w2_index", "i * D + j")
    assert "The stride trap" in at.error[0].value
    at = typed(at, "output", "relu(s)")
    assert any("activation-after-W2 trap" in e.value for e in at.error)
    at = typed(typed(at, "w2_index", "i * H + j"), "output", "s")
    assert not at.error


def test_the_shapes_table_follows_the_chosen_case():
    at = open_page(BUILD_IT, {"build_case": "no two sizes alike"})
    table = at.dataframe[0].value
    assert table.loc["x", "shape"] == "(3, 5, 6)"
    assert np.array_equal(table.index, ["x", "W1, b1", "W2, b2", "dout", "B, T, C, H", "np"])


def test_a_costly_line_is_refused_in_the_learner_s_words_and_the_page_goes_on():
    """Issue 45's line (right, plus 49,152 entries of % over a wide exponent gap, five
    times) was graded right at 110-160 ms a rerun; now it is refused, naming %."""
    at = typed(open_page(BUILD_IT), "h_pre", ATTACK)
    assert not at.exception
    (error,) = at.error
    assert "too much work" in error.value and "“%” is costly here" in error.value
    at = typed(at, "h_pre", "x @ W1 + b1")
    assert not at.error


def test_a_shared_link_of_costly_lines_loads_and_each_is_refused():
    seven = dict(list(COSTLY.items())[:7])
    at = open_page(BUILD_IT, {"lines": encode(seven)})
    assert not at.exception
    assert "This link holds 7 lines someone shared" in said(at)
    assert len(at.error) == 7
    assert all("is costly here" in e.value for e in at.error)


TOY_AT_CAPS = Case("the sidebar's toy at its caps", 1, *TOY_CAPS.values(), seed=0)
LEARNER_LINES = [
    *ANSWERS.items(),
    ("h", "relu(h_pre)"),
    ("h", "(h_pre + np.abs(h_pre)) / 2"),
    ("dh_pre", "dh * (h_pre > 0).astype(float)"),
    ("dh_pre", "dh * np.heaviside(h_pre, 0)"),
    ("dW2", "h.reshape(-1, H).T @ dout.reshape(-1, C)"),
    ("dW1", "x.reshape(B * T, C).T @ dh_pre.reshape(B * T, H)"),
    ("dW2", "np.einsum('bti,btj->btij', h, dout).sum(axis=(0, 1))"),
    ("dx", "np.einsum('bth,ch->btc', dh_pre, W1)"),
    ("db2", "dout.sum(axis=0).sum(axis=0)"),
]


@pytest.mark.parametrize("step, text", LEARNER_LINES)
def test_every_right_line_runs_within_half_the_work_cap_on_every_case(step, text):
    """Priced work, not time: the lesson's shapes, the uneven ones, and the sidebar's toy
    at the exercise's caps (T 8, C 16, H 64), where the products are largest."""
    assert list(TOY_CAPS) == ["T", "C", "H"]
    for case in (LESSON, UNEVEN, TOY_AT_CAPS):
        inputs = case.inputs()
        names = names_before(step, inputs, reference(inputs), case.sizes)
        assert priced_work(text, names, target=step) <= MAX_WORK // 2, (case.name, text)


def test_every_answer_passes_on_the_sidebar_s_toy_at_its_caps():
    toy = {"d_model": "16", "d_ff": "64", "tokens": "random", "T": "8"}
    at = everything(open_page(BUILD_IT, {"build_case": "the sidebar's toy", **toy}))
    assert not at.exception and not at.error
    assert "10 of 10 lines right." in said(at)
    assert "the sidebar's toy (B, T, C, H = 1, 8, 16, 64)" in at.success[-1].value


def boxes(at) -> dict[str, str]:
    """The first figure's boxes: {name: the words under the name (shape, state)}."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    said = [a["text"] for a in spec["layout"]["annotations"] if a.get("text")]
    return {t.split("</b>")[0].removeprefix("<b>"): t.split("<br>", 1)[1] for t in said}


def test_the_page_opens_on_the_diagram_of_its_lines_each_with_its_shape_and_state():
    """Every line to write, with its shape on the small batch (B, T, C, H = 2, 4, 8, 32); x
    and dout given; the first line, h_pre, marked next and its box beside the diagram. A
    wrong try turns its box wrong, a right one right, and the next line moves on."""
    at = open_page(BUILD_IT)
    shown = boxes(at)
    assert shown["x"] == "(2,4,8)<br>given" and shown["dout"] == "(2,4,8)<br>given"
    assert shown["h_pre"] == "(2,4,32)<br>next"
    expected = {"h": "(2,4,32)", "out": "(2,4,8)", "dh": "(2,4,32)", "dh_pre": "(2,4,32)",
                "dW2": "(32,8)", "db2": "(8,)", "dW1": "(8,32)", "db1": "(32,)",
                "dx": "(2,4,8)"}  # fmt: skip
    for name, shape in expected.items():
        assert shown[name] == f"{shape}<br>to write", name
    assert "beside the diagram" in " ".join(c.value for c in at.caption)
    at = typed(at, "h_pre", "x @ W1")
    assert boxes(at)["h_pre"] == "(2,4,32)<br>next"  # still the one to write
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "h_pre (2, 4, 32) wrong" in spec["layout"]["meta"]["alt"]
    at = typed(at, "h_pre", "x @ W1 + b1")
    shown = boxes(at)
    assert shown["h_pre"] == "(2,4,32)<br>✓ right" and shown["h"] == "(2,4,32)<br>next"
    at = typed(at, "dW2", "h.sum()")  # a later line, tried wrong
    assert boxes(at)["dW2"] == "(32,8)<br>✗ wrong"


def test_the_diagram_follows_the_chosen_shapes_and_never_shows_an_answer():
    at = open_page(BUILD_IT, {"build_case": "no two sizes alike"})
    shown = boxes(at)
    assert shown["h_pre"].startswith("(3,5,10)") and shown["dW1"].startswith("(6,10)")
    spec = at.get("plotly_chart")[0].proto.spec
    for answer in ANSWERS.values():
        assert answer not in spec, answer


def test_once_every_line_is_right_the_diagram_says_so_and_nothing_is_next():
    at = everything(open_page(BUILD_IT))
    assert all(v.endswith("✓ right") for k, v in boxes(at).items() if k not in ("x", "dout"))
    assert any(s.value.startswith("Every line is right") for s in at.success)


# --- the gradient check, the collapse and the rebuild, written by the learner ------------

CHECK_ANSWERS = {step.name: step.answer for step in CHECK_STEPS}
COLLAPSE_ANSWERS = {step.name: step.answer for step in COLLAPSE_STEPS}


def test_no_check_or_collapse_answer_is_on_the_page_before_a_try():
    """Except numeric's, sweep(P): the helper's call is its own description."""
    text = said(open_page(BUILD_IT))
    for name, answer in (CHECK_ANSWERS | COLLAPSE_ANSWERS).items():
        assert name == "numeric" or answer not in text, answer


def test_a_wrong_check_line_gets_the_grader_s_words():
    at = typed(open_page(BUILD_IT), "L_minus", "nudge(W1, i, -eps)")
    (error,) = at.error
    assert "ε" in error.value or "eps" in error.value  # it names the step it got wrong
    at = typed(at, "L_minus", CHECK_ANSWERS["L_minus"])
    assert not at.error


def test_the_learner_s_own_check_passes_their_pass_and_flags_a_planted_bug():
    at = everything(open_page(BUILD_IT), ANSWERS | CHECK_ANSWERS)
    assert not at.exception and not at.error
    (table,) = [d.value for d in at.dataframe if "by your check" in " ".join(d.value.columns)]
    assert list(table.index) == ["dW1", "db1", "dW2", "db2", "dx"]
    assert table.iloc[:, 0].max() < 1e-6  # a right check of a right pass
    text = said(at)
    assert "Your check passes your backward pass" in text
    assert "**flagged**" in text and "**missed**" not in text


def test_the_check_waits_for_the_forward_and_backward_lines():
    at = everything(open_page(BUILD_IT), CHECK_ANSWERS)
    assert not at.error
    assert not [d for d in at.dataframe if "by your check" in " ".join(d.value.columns)]
    assert "Once these and your forward and backward lines are right" in said(at)


def test_the_collapse_written_by_the_learner_says_both_gaps_from_independent_numbers():
    at = everything(open_page(BUILD_IT), COLLAPSE_ANSWERS)
    assert not at.exception and not at.error
    x, W1, b1, W2, b2 = (LESSON.inputs()[n] for n in ("x", "W1", "b1", "W2", "b2"))
    one = x @ (W1 @ W2) + (b1 @ W2 + b2)
    with_relu = np.maximum(x @ W1 + b1, 0) @ W2 + b2
    bent = float(np.abs(with_relu - one).max())
    assert bent > 0.1  # the ReLU bends: the one matrix misses
    text = said(at)
    assert f"by {bent:.3g}" in text
    (small,) = [w for w in text.split() if "e-" in w and w[0].isdigit()]
    assert float(small.rstrip(":.")) < 1e-12  # without the ReLU: rounding only


def test_a_shared_link_carries_the_check_and_collapse_lines_too():
    at = everything(open_page(BUILD_IT), {"W_eff": "W1 @ W2", "L": "out.sum()"})
    (share,) = [b for b in at.button if b.label.startswith("Put my lines in the address")]
    link = share.click().run().query_params["lines"]
    link = link[0] if isinstance(link, list) else link
    reader = open_page(BUILD_IT, {"lines": link})
    assert reader.text_input(key="typed_W_eff").value == "W1 @ W2"
    assert reader.text_input(key="typed_L").value == "out.sum()"


def test_the_rebuild_asks_the_shapes_before_it_shows_them():
    at = open_page(BUILD_IT, {"build_h": "2C = 16"})
    at = everything(at)
    text = said(at) + " ".join(str(d.value) for d in at.dataframe)
    assert "(2, 4, 16)" not in text and "(8, 16)" not in text
    (asked,) = [r for r in at.radio if r.key == "guess_build_2c"]
    at = asked.set_value("h (2, 4, 32), dW1 (8, 32)").run()
    (table,) = [d.value for d in at.dataframe if "H = 2C" in " ".join(d.value.columns)]
    assert table.loc["h", table.columns[0]] == "(2, 4, 16)"
    assert table.loc["dW1", table.columns[0]] == "(8, 16)"
    assert table.loc["dW2", table.columns[0]] == "(16, 8)"


def test_the_size_letters_are_said_in_words_where_they_first_appear():
    at = open_page(BUILD_IT)
    shown = said(at)
    first = shown.index("B, T, C, H")
    meant = "B sequences in a batch, T positions (tokens) in each, model width C = d_model, "
    assert meant + "hidden width H = d_ff" in shown[first : first + 160]
    table = at.dataframe[0].value
    assert "hidden width H = d_ff" in table.loc["B, T, C, H", "what"]


def test_every_line_s_placeholder_is_short_enough_to_show_whole():
    """The first line stands in the narrow column beside the diagram: its placeholder says
    no more than the caption above it leaves to say, and fits that box at 1280 × 800 and
    on a phone (as a line in a section does, its box being wider)."""
    at = open_page(BUILD_IT)
    first = at.text_input(key="typed_h_pre").proto.placeholder
    assert first == "a NumPy expression, then Enter"
    assert "The first line to write: the first layer's pre-activation." in said(at)
    for step in (*STEPS, *CHECK_STEPS, *COLLAPSE_STEPS):
        if step.name != "h_pre":
            assert at.text_input(key=f"typed_{step.name}").proto.placeholder == step.of
            assert len(step.of) <= 32, step.name  # "rel =" and "gap =" were cut at 1024 px

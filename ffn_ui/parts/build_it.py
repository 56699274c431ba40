"""Build it's pieces: a line the learner types and the grader's verdict, the hint and the
answer, the learner's own gradient check, the by-hand lines, and sharing one's lines.

What a learner types is data (ffn_core/exercise/safe_eval.py runs it) and is shown only
as literal text. The lines live in the session; a link holds them only when the learner
asks for one, and never holds an answer they did not type.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import streamlit as st

from ffn_core.exercise import build_ffn, by_hand
from ffn_core.exercise.build_ffn import LESSON, STEPS, UNEVEN, Case, Verdict
from ffn_core.exercise.check_lines import CHECK_STEPS
from ffn_core.exercise.collapse_lines import COLLAPSE_STEPS
from ffn_core.exercise.safe_eval import FUNCTIONS, MAX_CHARS, METHODS
from ffn_ui import figures
from ffn_ui.page.display import show

TRIED = "build_tried"  # session: the lines with a wrong try, whose answer may be shown
SHOWN = "build_shown"  # session: the lines whose answer was shown before a try
REVEALED = "build_revealed"  # session: the lines whose answer the learner asked to see
LINK_KEY = "lines"  # the address's key for lines a learner chose to share
MAX_LINK_CHARS = 3000  # the shared lines, encoded
TOY_CAPS = {"T": 8, "C": 16, "H": 64}  # the sidebar's toy as a case, capped small
BY_HAND_LABELS = {
    "w1_index": "W1[i][k] sits at index",
    "w2_index": "W2[i][j] sits at index",
    "output": "y[i] =",
}


def key(name: str) -> str:
    """A typed line's key: the learner's own, never bound to the address nor followed in
    a class (only bound settings are)."""
    return f"typed_{name}"


def toy_case(toy) -> Case:
    """The sidebar's toy as a case: one sequence of its tokens, its d_model and d_ff, capped;
    its own weights when it is a plain FFN (the exercise's bend is always ReLU)."""
    T, C, H = (min(v, TOY_CAPS[n]) for n, v in (("T", toy.T), ("C", toy.d_model), ("H", toy.d_ff)))
    given = {"x": np.asarray(toy.x, dtype=np.float64)[None, :T, :C]}
    if not toy.gated:
        w = toy.weights
        given |= {
            "W1": w["W1"][:C, :H],
            "b1": w["b1"][:H],
            "W2": w["W2"][:H, :C],
            "b2": w["b2"][:C],
        }
    return Case("the sidebar's toy", 1, T, C, H, seed=0, given=given)


# What each size letter is, said where the letters first appear on the page.
SIZES_MEANT = (
    "B sequences in a batch, T positions (tokens) in each, model width C = d_model, "
    "hidden width H = d_ff"
)


def sizes_text(case: Case) -> str:
    return f"B, T, C, H = {case.B}, {case.T}, {case.C}, {case.H}"


def checked_on(case: Case, toy_chosen: bool) -> str:
    """Which shapes every line is checked on, and what a line may read."""
    also = f", and on {case.name}, {sizes_text(case)}" if toy_chosen else ""
    return (
        f"Every line is checked on the small batch, {sizes_text(LESSON)} ({SIZES_MEANT}), "
        "and on "
        f"{sizes_text(UNEVEN)}{also}. A line may use the names below and the lines above "
        "it, each graded with the correct values of the lines above substituted in, so one "
        "mistake does not spill into the next. float64, seeded."
    )


def names_table(case: Case) -> pd.DataFrame:
    """Every name a line may use, its shape on `case`, and what it is."""
    B, T, C, H = case.B, case.T, case.C, case.H
    rows = {
        "x": ((B, T, C), "the input, one vector per position"),
        "W1, b1": (f"{(C, H)}, {(H,)}", "the first layer"),
        "W2, b2": (f"{(H, C)}, {(C,)}", "the second layer"),
        "dout": ((B, T, C), "the loss's gradient at out (backward pass only)"),
        "B, T, C, H": (f"{B}, {T}, {C}, {H}", f"the sizes, as numbers: {SIZES_MEANT}"),
        "np": ("", "maximum, where, einsum, sum, exp, … (the allowed list below)"),
    }
    return pd.DataFrame(
        {"shape": [str(s) for s, _ in rows.values()], "what": [w for _, w in rows.values()]},
        index=list(rows),
    )


def names_note(case: Case, toy_chosen: bool, presenter: bool) -> None:
    """The names a line may use, their shapes on `case`, and what is allowed."""
    with st.expander("The names a line may use") if presenter else st.container():
        st.caption(checked_on(case, toy_chosen))
        st.caption(
            "The grader's verdict appears beside each line; typing “h_pre = …” in full works "
            "too. Section 7 writes W @ x instead, as code by hand often does."
        )
        st.dataframe(names_table(case))
        st.caption(
            "Allowed: + - * / @ ** and comparisons; indexing and slicing; .T, .shape, "
            + ", ".join(f".{m}()" for m in sorted(METHODS))
            + "; np."
            + ", np.".join(sorted(FUNCTIONS))
            + "; relu(). Anything else is refused, with its name: np.dot, np.tensordot and "
            "np.outer are not on the list, and np.einsum or reshape-then-@ sum over the "
            "positions."
        )


def grade(step: str, text: str, extra: Case | None) -> Verdict:
    cases = (LESSON, UNEVEN) if extra is None else (LESSON, UNEVEN, extra)
    return build_ffn.check_line(step, text, cases)


def graded(extra: Case | None) -> dict[str, Verdict | None]:
    """Every line's verdict on what the learner has typed (None: nothing yet), graded
    once a run, before any line is drawn: the diagram shows them all, first."""
    texts = {s.name: st.session_state.get(key(s.name), "") for s in STEPS}
    return {n: grade(n, t, extra) if t.strip() else None for n, t in texts.items()}


def state_of(verdict: Verdict | None) -> str:
    """A line's state, as the diagram names it."""
    if verdict is None:
        return "to write"
    return "right" if verdict.right else "wrong"


def diagram(verdicts: dict[str, Verdict | None], case: Case, next_line: str | None):
    """Build it's first figure: every line's box, its shape on `case` and its state."""
    B, T, C, H = case.B, case.T, case.C, case.H
    shapes = {"x": (B, T, C), "h_pre": (B, T, H), "h": (B, T, H), "out": (B, T, C),
              "dout": (B, T, C), "dh": (B, T, H), "dh_pre": (B, T, H), "dW2": (H, C),
              "db2": (C,), "dW1": (C, H), "db1": (H,), "dx": (B, T, C)}  # fmt: skip
    states = {n: state_of(v) for n, v in verdicts.items()}
    about = {s.name: s.of for s in STEPS}
    return figures.line_diagram(states, shapes, about, next_line)


def line(step, verdict: Verdict | None, stacked: bool = False) -> bool:
    """One line: the input, the grader's verdict (beside it, or under it when `stacked`),
    the hint and, after a try, the answer. True when the line is right."""
    state = st.session_state
    box, said = (st.container(), st.container()) if stacked else st.columns([2, 3])
    with box:  # the verdict beside the line; stacked on a phone
        st.text_input(
            f"{step.name} =",
            key=key(step.name),
            max_chars=MAX_CHARS,
            # Short enough not to be cut off at 1280 px or on a phone: beside the diagram,
            # the caption above says what the line is; in a section, the section says Enter.
            placeholder="a NumPy expression, then Enter" if stacked else step.of,
            persist_state="session",
        )
    if verdict and not verdict.right:
        state.setdefault(TRIED, set()).add(step.name)  # an honest try: the answer may show
    with box:
        help_for(step.name, step.name, step.hint, f"{step.name} = {step.answer}")
    if verdict:
        (said.success if verdict.right else said.error)(literal_sentences(verdict.says))
    return bool(verdict and verdict.right)


def section_lines(verdicts: dict[str, Verdict | None], first, backward: bool) -> None:
    """A section's lines, forward or backward, but `first`, the first line to write: it
    stands beside the diagram, and its section says so."""
    for step in STEPS:
        if step.backward != backward:
            continue
        if step is first:
            st.caption(f"{step.name} = … is beside the diagram, at the top of the page.")
        else:
            line(step, verdicts[step.name])


def literal_sentences(text: str) -> str:
    """The grader's words, with anything in them a learner typed kept literal: the
    messages quote names, shapes and numbers, never Markdown."""
    for mark in "\\*_[]<>$#|~":
        text = text.replace(mark, "\\" + mark)
    return text.replace("`", "'")


def help_for(name: str, shown_as: str, hint: str, answer: str) -> None:
    """A hint, one click away; the answer a second click away, on "Show me the answer",
    which says so if no try came first."""
    state = st.session_state
    with st.expander(f"Hint for {shown_as}"):
        st.markdown(hint)
        if name in state.get(REVEALED, set()):
            st.code(answer, language=None, wrap_lines=True)
            if name in state.get(SHOWN, set()):
                st.caption("Shown before a try: type it in to go on, and it counts as shown.")
        elif st.button("Show me the answer", key=f"show_{name}"):
            state.setdefault(REVEALED, set()).add(name)
            if name not in state.get(TRIED, set()):
                state.setdefault(SHOWN, set()).add(name)
            st.rerun()


def progress_text(right: dict[str, bool]) -> str:
    shown = st.session_state.get(SHOWN, set())
    done = [n for n, ok in right.items() if ok]
    text = f"{len(done)} of {len(right)} lines right"
    mine = [n for n in done if n in shown]
    if mine:
        text += f" ({len(mine)} of them shown first: {', '.join(mine)})"
    return text + "."


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def own_check_of(lines: tuple[tuple[str, str], ...], case: Case) -> dict[str, float]:
    """The learner's gradient check, once per set of lines and case (15–65 ms), not on
    every rerun of the page; a few hundred bytes an entry."""
    return build_ffn.own_gradient_check(dict(lines), case)


def own_check(case: Case, presenter: bool) -> None:
    """The learner's own lines, run in order, against centred differences in float64."""
    lines = {s.name: st.session_state.get(key(s.name), "") for s in STEPS}
    worst = own_check_of(tuple(lines.items()), case)
    table = pd.DataFrame({"worst relative error": worst})
    table["passes (below 1e-5)"] = table["worst relative error"] < build_ffn.CHECK_PASSES
    st.dataframe(table.style.format({"worst relative error": "{:.2e}"}))
    fig = figures.check_bars(list(worst), list(worst.values()), build_ffn.CHECK_PASSES)
    show(fig, presenter)
    biggest = max(worst, key=worst.get)
    if all(v < build_ffn.CHECK_PASSES for v in worst.values()):
        st.success(
            f"Your backward pass passes: every entry of dW1, db1, dW2, db2 and dx agrees with "
            f"its numerical slope, the worst to {worst[biggest]:.1e} ({biggest}), as a correct "
            f"pass does (about 1e-7). Checked on {case.name} ({sizes_text(case)}), "
            f"ε = {build_ffn.CHECK_EPS:g}, every entry nudged both ways."
        )
    else:
        st.error(
            f"{biggest} disagrees with its numerical slope (worst relative error "
            f"{worst[biggest]:.1e}): a line that is right on the checked shapes is wrong here."
        )


def by_hand_line(field: str) -> bool:
    box, said = st.columns([2, 3])
    with box:
        text = st.text_input(
            BY_HAND_LABELS[field], key=key(field), max_chars=120, persist_state="session"
        )
    verdict = by_hand.check_field(field, text) if text.strip() else None
    if verdict and not verdict.right:
        st.session_state.setdefault(TRIED, set()).add(field)
    with box:
        shown_as = BY_HAND_LABELS[field].removesuffix(" =").replace(" sits at index", "'s index")
        help_for(field, shown_as, by_hand.HINTS[field], by_hand.FIELDS[field][2])
    if verdict:
        (said.success if verdict.right else said.error)(literal_sentences(verdict.says))
    return bool(verdict and verdict.right)


def by_hand_section() -> None:
    """The forward pass once more, in plain Python over flat lists: the indexing by hand."""
    st.subheader("7. By hand, over flat lists")
    st.markdown(
        "Plain Python, one token, in the W @ x convention: D is the token's width (C above) "
        "and H the hidden width. W1 is stored H × D, the transpose of the W1 above, and W2 is "
        "D × H, each as one flat list read row by row. The loops are written. Type where "
        "W1's row i, column k sits in its list (names i, k, D, H), the same for W2's row i, "
        "column j (names i, j, D, H), and y[i] from s, the row's sum with b2[i] (names s and "
        "relu)."
    )
    st.code(
        "for i in range(H):  # hidden neuron i\n"
        "    h[i] = relu(sum(W1[<W1 index>] * x[k] for k in range(D)) + b1[i])\n"
        "for i in range(D):  # output coordinate i\n"
        "    s = sum(W2[<W2 index>] * h[j] for j in range(H)) + b2[i]\n"
        "    y[i] = <your y[i]>",
        language=None,  # plain text: the highlighter's colours miss AA contrast
        wrap_lines=True,  # no sideways scrolling on a phone
    )
    done = [by_hand_line(field) for field in by_hand.FIELDS]
    st.caption(
        f"Checked on a square case (D = H = {by_hand.SQUARE[0]}) and an uneven one "
        f"(D = {by_hand.UNEVEN[0]}, H = {by_hand.UNEVEN[1]}): {sum(done)} of {len(done)} right."
    )


# --- sharing one's lines -----------------------------------------------------------------


def all_keys() -> list[str]:
    steps = (*STEPS, *CHECK_STEPS, *COLLAPSE_STEPS)
    return [s.name for s in steps] + list(by_hand.FIELDS)


def encode(lines: dict[str, str]) -> str:
    raw = json.dumps({k: v for k, v in lines.items() if v}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(text: str) -> dict[str, str]:
    """The lines a link holds, checked: known names, strings within the caps."""
    if len(text) > MAX_LINK_CHARS:
        raise ValueError(f"the lines in the link are longer than {MAX_LINK_CHARS} characters")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        lines = json.loads(raw.decode())
    except (ValueError, UnicodeDecodeError):
        raise ValueError("the link's lines are not in the form this page writes") from None
    if not isinstance(lines, dict) or not set(lines) <= set(all_keys()):
        raise ValueError("the link names lines this page does not have")
    if not all(isinstance(v, str) and len(v) <= MAX_CHARS for v in lines.values()):
        raise ValueError(f"each line is text of at most {MAX_CHARS} characters")
    return lines


def load_shared_lines() -> None:
    """At a session's first run of the page: the lines a shared link holds, if any, into
    the inputs (each is graded like a typed one). A bad link gets a note, nothing else."""
    state = st.session_state
    if state.get("build_link_read"):
        return
    state["build_link_read"] = True
    text = st.query_params.get(LINK_KEY)
    if not text:
        return
    try:
        lines = decode(text)
    except ValueError as err:
        st.warning(f"The link's lines were not loaded: {err}.")
        return
    for name, value in lines.items():
        state[key(name)] = value
    st.info(f"This link holds {len(lines)} lines someone shared; each is graded as typed.")


def share_lines() -> None:
    """A button that writes the learner's lines into the address, to copy and share."""
    lines = {n: st.session_state.get(key(n), "") for n in all_keys()}
    typed = {n: v for n, v in lines.items() if v.strip()}
    if not typed:
        st.caption("Type a line, and you can share your lines as a link.")
        return
    if st.button("Put my lines in the address, to share them"):
        encoded = encode(typed)
        if len(encoded) > MAX_LINK_CHARS:
            st.warning("Your lines are too long for a link.")
        else:
            st.query_params[LINK_KEY] = encoded
            st.caption(
                f"The address now holds your {len(typed)} lines: copy it from the address "
                "bar. It holds what you typed, and no answer you did not."
            )

"""The Collapse page's pieces: the part of the model it multiplies out, what is left of
SwiGLU without its SiLU (a bilinear map, not one matrix), and the figure of how a trained
network fits its task."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ffn_core.analysis import affine_fit_gap
from ffn_core.forms import run
from ffn_core.training import TASKS, TrainResult, make_task, probability_grid
from ffn_ui import figures
from ffn_ui.controls.predict import Question, predicted
from ffn_ui.page.display import show

MAX_D_MODEL = 256  # W_eff is d_model x d_model, multiplied out and decomposed in full

FITS = 0.95  # the accuracy or R² at which a network "fits" a task


def first_coordinates(toy) -> tuple[np.ndarray, ...]:
    """(x (T, C), W1 (C, d_ff), b1, W2 (d_ff, C), b2 (C,)) on the model's first C ≤ 256
    coordinates; says so when it cuts the model down."""
    C = min(toy.d_model, MAX_D_MODEL)
    if toy.d_model > C:
        st.info(
            f"This page multiplies W1 · W2 out in full and takes its singular values, so it "
            f"uses the first {C} of the model's {toy.d_model} coordinates (at most "
            f"{MAX_D_MODEL})."
        )
    return toy.x[:, :C], toy.W1[:C], toy.b1, toy.W2[:, :C], toy.b2[:C]


def fit_figure(task: str, activation: str, result: TrainResult, title: str) -> go.Figure:
    """A trained network on its task: the decision surface of a classifier, or the fitted
    curve of a regression."""
    X, target = make_task(task, seed=0)
    if TASKS[task] == "classify":
        grid, prob = probability_grid(result.weights, activation)
        return figures.decision_surface(grid, prob, X, target, title)
    out, _ = run(X, result.weights, activation)
    return figures.curve_fit(X[:, 0], target, out[:, 0], title)


# What each FFN of the training demo is called on the page.
NAMES = {"identity": "no activation", "bilinear": "SwiGLU without SiLU"}


def score_text(task: str, score: float) -> str:
    """A trained network's score as the page says it everywhere: accuracy as a percentage
    to one decimal (199 of 200 is 99.5%, never 0.99 here and 100% there), R² to 3 places."""
    return f"{score:.1%}" if TASKS[task] == "classify" else f"{score:.3f}"


def fit_question(
    task: str, linear_result: Callable[[], TrainResult], gated: bool = False
) -> Question:
    """Can the FFN with no activation (or SwiGLU without its SiLU) fit `task`? Its answer
    trains that network (`linear_result`, cached), only once the learner has guessed."""
    measure = "accuracy" if TASKS[task] == "classify" else "R²"
    r2 = "; R² is 1 minus the squared error over the target's variance" if measure == "R²" else ""
    which = "SwiGLU with its SiLU taken out" if gated else "the FFN with no activation"
    if gated:
        reason = (
            "without SiLU the gated FFN is (x·W_gate) ⊙ (x·W_up)·W_down: each output a sum of "
            "products of two coordinates of x, a curved (quadratic) surface"
        )
    else:
        reason = (
            "with no bend the network is one matrix, x·W_eff + b_eff: a straight boundary or "
            "a straight line"
        )
    return Question(
        f"Predict first: can {which} fit {task}? (It fits when its {measure} reaches "
        f"{score_text(task, FITS)}{r2}.)",
        "guess_gated" if gated else "guess",
        ("yes", "no"),
        answer=lambda: "yes" if linear_result().scores[-1] >= FITS else "no",
        why=lambda: (
            f"{reason}, and it reaches {measure} {score_text(task, linear_result().scores[-1])} on "
            f"{task}{against_guessing(task, linear_result().scores[-1])}."
        ),
    )


def against_guessing(task: str, accuracy: float) -> str:
    """For a classifier: how its accuracy compares with always answering the commoner class."""
    if TASKS[task] != "classify":
        return ""
    _, y = make_task(task, seed=0)
    base = float(np.bincount(y).max() / len(y))
    if accuracy >= FITS:
        return f", where always answering the commoner class scores {base:.2f}"
    if accuracy < base:
        return (
            f", worse than the {base:.2f} of always answering the commoner class: no straight "
            "line separates these classes, and training lowers the cross-entropy, not the "
            "count of mistakes, so the line it settles on can miss more than half"
        )
    return f", hardly better than the {base:.2f} of always answering the commoner class"


def first_gated(toy) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(x (T, C), SwiGLU's weights) on the model's first C ≤ 256 coordinates."""
    C = min(toy.d_model, MAX_D_MODEL)
    if toy.d_model > C:
        st.info(
            f"This page fits a matrix to the first {C} of the model's {toy.d_model} coordinates."
        )
    weights = {"W_gate": toy.W_gate[:C], "W_up": toy.W_up[:C], "W_down": toy.W_down[:, :C]}
    return toy.x[:, :C], weights


SCALES = np.array([0.25, 0.5, 1.0, 2.0, 4.0])  # the inputs' size, relative to the tokens'
SAMPLES = 512  # random inputs the single matrix is fitted on, at each scale
NOT_ONE = ("yes, into one d_model × d_model matrix", "no", "only for small inputs")


def bilinear_gaps(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    """For each of SCALES: the gap of the best single matrix (and bias) fitted to SwiGLU
    without SiLU on SAMPLES random inputs of that size (the tokens' own size times it)."""
    size = float(np.sqrt(np.mean(x**2))) or 1.0  # the tokens' root-mean-square coordinate
    Z = np.random.default_rng(0).standard_normal((SAMPLES, x.shape[1])) * size
    return np.array([affine_fit_gap(s * Z, run(s * Z, weights, "bilinear")[0]) for s in SCALES])


def gated_collapse(toy) -> None:
    """Sections 1 and 2 for SwiGLU: take the SiLU out, ask whether one matrix is left, and
    show the best single matrix missing it by more and more as the inputs grow."""
    x, weights = first_gated(toy)
    st.subheader("1. Take SiLU out of SwiGLU: is one matrix left?")
    st.markdown(
        "The plain FFN without its activation is x·W1·W2 + b: one matrix. Take the SiLU out "
        "of SwiGLU and what is left is (x·W_gate) ⊙ (x·W_up) · W_down: no activation "
        "function, only matrix products and one elementwise product."
    )
    gaps = bilinear_gaps(x, weights)
    at = {float(s): float(g) for s, g in zip(SCALES, gaps, strict=True)}
    question = Question(
        "Predict: does SwiGLU without its SiLU collapse into one matrix, as the plain FFN "
        "without its activation does?",
        "guess_bilinear",
        NOT_ONE,
        answer=NOT_ONE[1],
        why=(
            "the elementwise product multiplies two linear functions of x, so each output is "
            "a sum of products of two of x's coordinates: quadratic, and no matrix computes "
            f"it. The best single matrix misses it by {at[1.0]:.3g} on inputs the size of "
            f"these tokens, and by {at[2.0]:.3g} on inputs twice as large: four times more, "
            "as the square of their size."
        ),
    )
    answered = predicted(question, setting=(toy.d_model, toy.d_ff, float(gaps[2])))
    if answered:
        st.caption(
            f"The best single matrix and bias, fitted by least squares to {SAMPLES} random "
            "inputs at each size, and its largest miss. Notice: the miss grows as the square of "
            "the inputs' size (the dotted line), where a linear map's would stay at 0. A matrix "
            "can only scale with the input; the gated product scales with its square."
        )
        show(figures.square_law(SCALES, gaps), toy.presenter)
    st.subheader("2. A stack of such blocks")
    if not answered:
        st.caption("Make your guess in section 1 first: this section builds on its answer.")
        return
    st.markdown(
        "Each block without SiLU squares the degree: a stack of L of them is a polynomial of "
        "degree 2^L in x. Depth adds power here, where a stack of linear blocks stays one "
        "matrix (choose ReLU, GELU or none in the sidebar to see that stack)."
    )

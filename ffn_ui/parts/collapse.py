"""The Collapse page's pieces: the part of the model it multiplies out, and the figure of
how a trained network fits its task."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ffn_core import ffn_forward
from ffn_core.training import TASKS, TrainResult, make_task, probability_grid
from ffn_ui import figures
from ffn_ui.controls.predict import Question

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
    out, _ = ffn_forward(X, **result.weights, activation=activation)
    return figures.curve_fit(X[:, 0], target, out[:, 0], title)


def fit_question(task: str, linear_result: Callable[[], TrainResult]) -> Question:
    """Can the FFN with no activation fit `task`? Its answer trains the linear network
    (`linear_result`, cached), only once the learner has guessed."""
    measure = "accuracy" if TASKS[task] == "classify" else "R²"
    r2 = "; R² is 1 minus the squared error over the target's variance" if measure == "R²" else ""
    return Question(
        f"Predict first: can the FFN with no activation fit {task}? (It fits when its "
        f"{measure} reaches {FITS:.2f}{r2}.)",
        "guess",
        ("yes", "no"),
        answer=lambda: "yes" if linear_result().scores[-1] >= FITS else "no",
        why=lambda: (
            f"with no bend the network is one matrix, x·W_eff + b_eff: a straight boundary or "
            f"a straight line, and it reaches {measure} {linear_result().scores[-1]:.2f} on "
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

"""The Collapse page's pieces: the part of the model it multiplies out, what is left of
SwiGLU without its SiLU (a bilinear map, not one matrix), and the figure of how a trained
network fits its task."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ffn_core import ffn_forward
from ffn_core.analysis import affine_fit_gap, collapse_stack, run_stack
from ffn_core.forms import run
from ffn_core.init import init_weights
from ffn_core.lessons.training import TASKS, TrainResult, make_task, probability_grid
from ffn_ui import figures
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_slider
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted
from ffn_ui.page.stage import stage

MAX_D_MODEL = 256  # W_eff is d_model x d_model, multiplied out and decomposed in full
MAX_SHOWN = 64  # matrix rows and columns drawn
STACK_D_MODEL, STACK_D_FF = 64, 256  # the stack demo stays this small at most
PRESENTER_HEIGHT = 380  # the first figure's, before presenter mode's 1.3×: 494 px

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


def product_figure(
    W1: np.ndarray, W2: np.ndarray, W_eff: np.ndarray, presenter: bool = False
) -> go.Figure:
    """The page's first figure: W1 · W2 = W_eff, at most MAX_SHOWN rows and columns each;
    shorter for a projector, which draws it 1.3 times as tall, so that its bottom row of
    labels stays on a 768 px screen."""
    (C, H), c, h = W1.shape, min(W1.shape[0], MAX_SHOWN), min(W1.shape[1], MAX_SHOWN)
    note = "" if (c, h) == (C, H) else f": the first {c} of {C} inputs, {h} of {H} neurons drawn"
    names = (labels("x", c), labels("n", h), labels("out", c))
    height = PRESENTER_HEIGHT if presenter else 440
    return figures.product_heatmaps(W1[:c, :h], W2[:h, :c], W_eff[:c, :c], names, note, height)


def one_matrix_readout(toy, x: np.ndarray, weights: tuple, W_eff, b_eff) -> np.ndarray:
    """Beside the product: the FFN with no activation against x·W_eff + b_eff (a gap of 0
    up to rounding), W_eff's rank, and the same gap with the sidebar's bend put back; what
    b_eff and rank are. Returns the FFN's output with no activation, (T, C)."""
    out_ffn, _ = ffn_forward(x, *weights, "identity")  # (T, C)
    gap = float(np.max(np.abs(out_ffn - (x @ W_eff + b_eff))))
    C = x.shape[1]
    rounding = "float64 rounding: 0 means exactly equal, to the last bit"
    st.metric("max |FFN(x) − (x·W_eff + b_eff)|", f"{gap:.1e}", help=rounding)
    st.metric(
        "rank of W_eff",
        f"{int(np.linalg.matrix_rank(W_eff))} of {C}",
        help="at most min(d_model, d_ff)",
    )
    if toy.bend.bends:
        bent, _ = ffn_forward(x, *weights, toy.activation)
        st.metric(
            f"the same gap with {toy.activation_label}",
            f"{np.max(np.abs(bent - (x @ W_eff + b_eff))):.2g}",
            help="The bend breaks the collapse: the output is no longer x·W_eff + b_eff, and no "
            "single matrix matches the bent FFN on every input.",
        )
    st.caption(
        "With no activation, FFN(x) = x·W_eff + b_eff for every token: b_eff = b1·W2 + b2 is "
        "the two biases folded into one. W_eff's rank is how many independent directions its "
        "outputs can take: at most min(d_model, d_ff)."
    )
    return out_ffn


def stack_section(toy, x: np.ndarray) -> None:
    """Section 2: L fresh linear blocks in a row are still one matrix; its singular values."""
    st.subheader("2. A stack of linear blocks is still one matrix")
    st.markdown(
        "Fresh random blocks, not the sidebar's weights: L of them, each the sidebar's d_model → "
        "d_ff → d_model (capped at 64 → 256 → 64), with no activation, one after another."
    )
    L = bound_slider("blocks L", "L", 1, 12, 3, 1)
    sd, sk = min(toy.d_model, STACK_D_MODEL), min(toy.d_ff, STACK_D_FF)
    blocks = [tuple(init_weights(sd, sk, "normal", seed=100 + i).values()) for i in range(L)]
    W_stack, b_stack = collapse_stack(blocks)
    y = run_stack(x[:, :sd], blocks, "identity")  # (T, sd)
    stack_gap = float(np.max(np.abs(y - (x[:, :sd] @ W_stack + b_stack))))
    singular = np.linalg.svd(W_stack, compute_uv=False)
    st.metric(
        f"{L} blocks of {sd} → {sk} → {sd} in a row against one {sd} × {sd} matrix: "
        "largest difference",
        f"{stack_gap:.1e}",
    )
    st.caption(
        "Notice: depth without a bend adds no power: the stack is still one matrix. What depth "
        "does change is that matrix. Its singular values (how much it stretches space along "
        "each of its main directions) tend to spread apart as random blocks are added, some "
        "directions growing and others fading."
    )
    show(
        figures.bars(labels("σ", sd), singular, "singular values of the product", "σ"),
        toy.presenter,
    )


# What each task's data is, said under its picture.
TASK_WORDS = {
    "XOR": "four clouds around (±1, ±1): class 1 where x₁ and x₂ have the same sign, class 0 "
    "where they differ",
    "two circles": "class 1 on a circle of radius 0.5, inside class 0's ring of radius 1.3",
    "spiral": "two spiral arms wound into each other, one per class",
    "two blobs": "two clouds, class 0 around (−0.8, −0.8) and class 1 around (0.8, 0.8)",
    "|x|": "the target |x| for x from −2 to 2: a V with its bend at 0",
    "sin": "the target sin(2x) for x from −2 to 2",
    "line": "the target 0.5x + 0.2 for x from −2 to 2: a straight line",
}


def task_figure(task: str) -> go.Figure:
    """A task's data, before any network is fitted to it."""
    X, target = make_task(task, seed=0)
    title = f"{task}: the {len(X)} points to fit"
    return figures.task_points(X, target, TASKS[task] == "classify", title)


def task_words(task: str, d_ff: int, steps: int) -> str:
    """What the task's data is, and what training lowers and how it is scored, said before
    the question about fitting it."""
    if TASKS[task] == "classify":
        loss = (
            "the cross-entropy (the mean of −log of the probability the network gives each "
            "point's right class), and the score is the accuracy, the share of points classed "
            "right."
        )
    else:
        loss = (
            "the mean squared error, and the score is R²: 1 for a perfect fit, 0 for a flat "
            "line at the target's mean."
        )
    return (
        f"The data: {TASK_WORDS[task]}. Two small FFNs learn it, with two inputs and d_ff = "
        f"{d_ff}, for {steps} steps: training lowers {loss}"
    )


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
    share = score_text(task, base)  # the same form as the accuracy it is set against
    if accuracy >= FITS:
        return f", where always answering the commoner class scores {share}"
    if accuracy < base:
        return (
            f", worse than the {share} of always answering the commoner class: no straight "
            "line separates these classes, and training lowers the cross-entropy, not the "
            "count of mistakes, so the line it settles on can miss more than half"
        )
    return f", hardly better than the {share} of always answering the commoner class"


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


def gated_first(toy) -> bool:
    """The page's first figure for SwiGLU: take the SiLU out and ask whether one matrix is
    left; the best single matrix's misses, growing as the square of the inputs' size, are
    held back until the answer. True once it is in."""
    x, weights = first_gated(toy)
    gaps = bilinear_gaps(x, weights)
    at = {float(s): float(g) for s, g in zip(SCALES, gaps, strict=True)}
    question = Question(
        "Predict: SwiGLU is the gated FFN silu(x·W_gate) ⊙ (x·W_up) · W_down, where SiLU, "
        "silu(z) = z·sigmoid(z), is a smooth ReLU. Without its SiLU, does it collapse into one "
        "matrix, as the plain FFN without its activation does?",
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
    picture, words = stage(toy.presenter)
    with picture:
        show(figures.square_law(SCALES, gaps, hidden=not answered), toy.presenter)
    with words:
        st.markdown(
            "**Take SiLU out of SwiGLU: is one matrix left?** What is left is (x·W_gate) ⊙ "
            "(x·W_up) · W_down: no activation function, only matrix products and one "
            "elementwise product."
        )
        st.caption(
            f"The figure fits the best single matrix and bias by least squares to {SAMPLES} "
            "random inputs at each size, and draws its largest miss: 0 at every size would "
            "mean one matrix is left."
        )
        if answered:
            st.caption(
                "Notice: the miss grows as the square of the inputs' size (the dotted line), "
                "where a linear map's would stay at 0. A matrix can only scale with the input; "
                "the gated product scales with its square."
            )
    return answered


def gated_stack(answered: bool) -> None:
    """Section 2 for SwiGLU, once the first question is answered: a stack of blocks
    without SiLU is a polynomial whose degree doubles with each block."""
    st.subheader("1. A stack of such blocks")
    if not answered:
        st.caption("This section waits for the answer to the question above: it builds on it.")
        return
    st.markdown(
        "Each block without SiLU squares the degree: a stack of L of them is a polynomial of "
        "degree 2^L in x. Depth adds power here, where a stack of linear blocks stays one "
        "matrix (choose ReLU, GELU or none in the sidebar to see that stack)."
    )

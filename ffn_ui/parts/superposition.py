"""The Superposition page's shared parts: trained toy models, cached and shared read-only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import streamlit as st

from ffn_core.lessons.superposition import (
    NeuronModel,
    ToyModel,
    dimensions_per_feature,
    feature_dimensionality,
    feature_norms,
    phase_diagram,
    train_neuron_model,
    train_toy_model,
)
from ffn_ui import figures
from ffn_ui.controls.labels import labels
from ffn_ui.controls.url import bound_slider
from ffn_ui.page.display import show
from ffn_ui.page.predict import Question, predicted
from ffn_ui.shared_arrays import read_only

SPARSITIES = (0.0, 0.5, 0.8, 0.9, 0.95, 0.97, 0.99, 0.999)  # 1 − p, the share of zeros
DECAYS = (1.0, 0.9, 0.8, 0.7, 0.5)  # importance of feature i is decay^i
MAX_FEATURES, MAX_HIDDEN = 80, 20
BIG_STEPS, BIG_BATCH = 1200, 256  # the bigger models: about 2 s at the caps, both together


def sparsity_text(sparsity: float) -> str:
    return f"{sparsity:.1%}".replace(".0%", "%")


def importance_text(decay: float) -> str:
    return "equal importance" if decay == 1 else f"importance {decay:g}^i"


def importance(n: int, decay: float) -> np.ndarray:
    """(n,): decay^i, feature 1 the most important."""
    return decay ** np.arange(n, dtype=float)


@st.cache_resource(max_entries=64, ttl=3600, show_spinner="Training the toy model …")
def toy(n: int, m: int, sparsity: float, decay: float, seed: int = 0) -> ToyModel:
    """A trained n -> m -> n model, shared read-only (at most 80 x 20 weights, 32 kB steps)."""
    extra = {} if (n, m) == (5, 2) else {"steps": BIG_STEPS, "batch": BIG_BATCH}
    model = train_toy_model(n, m, 1.0 - sparsity, importance(n, decay), seed=seed, **extra)
    read_only([model.W, model.b, model.losses])
    return model


FIVE_FILE = Path(__file__).parents[2] / "ffn_core" / "data" / "five_features.json"


@st.cache_resource(max_entries=1, ttl=3600, show_spinner=False)
def prepared_five() -> dict[tuple[float, float], ToyModel]:
    """The five-features-in-two model at every sparsity and importance the page offers,
    trained ahead (40 models of about 1.2 s each) by `python -m ffn_ui.parts.superposition`;
    tests/pages/test_superposition.py trains some again and compares."""
    rows = json.loads(FIVE_FILE.read_text("utf-8"))["models"]
    models = {}
    for row in rows:
        model = ToyModel(np.array(row["W"]), np.array(row["b"]), np.array(row["losses"]))
        read_only([model.W, model.b, model.losses])
        models[(row["sparsity"], row["decay"])] = model
    return models


def five(sparsity: float, decay: float) -> ToyModel:
    """The 5 -> 2 model of this setting, as `toy(5, 2, sparsity, decay)` trains it (the
    losses kept: only the last 10)."""
    return prepared_five()[(sparsity, decay)]


KEPT_NORM = 0.5  # a feature the model keeps has a column W_i longer than this


def kept(model: ToyModel) -> int:
    """How many features the model keeps: those whose column of W is longer than 0.5."""
    return int(np.sum(feature_norms(model.W) > KEPT_NORM))


def why_kept(count: int) -> str:
    """One sentence on what the trained 5 -> 2 model did to keep `count` features; when
    sharing pays is the phase change's question, so it is not said here."""
    if count == 5:
        return (
            "the model spreads all five around the circle: five arrows in a plane cannot all "
            "be at right angles, so it accepts their overlaps and lets the ReLU and the bias "
            "cut the small interference they cause. The phase change below asks when such "
            "sharing pays."
        )
    if count == 2:
        return (
            "the model gives two features a dimension each, about at right angles, and drops "
            "the rest: here, any overlap would cost more than it brings. The phase change "
            "below asks when that changes."
        )
    return (
        f"the model shares the plane among {count} features and drops the rest: here, "
        "squeezing in more would cost more in interference than it brings. The phase change "
        "below asks when sharing pays."
    )


@st.cache_resource(max_entries=32, ttl=3600, show_spinner="Training the neuron version …")
def neurons(n: int, k: int, sparsity: float, decay: float) -> NeuronModel:
    """The neuron version: n features through k ReLU neurons, shared read-only."""
    model = train_neuron_model(
        n, k, 1.0 - sparsity, importance(n, decay), steps=BIG_STEPS, batch=BIG_BATCH
    )
    read_only([model.W1, model.b1, model.W2, model.b2, model.losses])
    return model


PHASE_SPARSITIES = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99)
PHASE_IMPORTANCES = (0.2, 0.5, 0.8, 1.25, 2.0, 5.0)  # feature 2's, against feature 1's 1
PHASE_NAMES = ("dropped", "alone", "shared")


PHASES_FILE = Path(__file__).parents[2] / "ffn_core" / "data" / "phase_diagram.json"


@st.cache_resource(max_entries=1, ttl=3600, show_spinner=False)
def phases() -> np.ndarray:
    """(6, 6) phases of feature 2 over the grid, the same for every visitor: trained once
    ahead (1.6 s of CPU, too much for one link) by `python -m ffn_ui.parts.superposition`, and
    read here; tests/pages/test_superposition.py trains the grid again and compares."""
    grid = np.array(json.loads(PHASES_FILE.read_text("utf-8"))["phases"], dtype=int)
    read_only([grid])
    return grid


def write_phases() -> None:
    grid = phase_diagram(np.array(PHASE_SPARSITIES), np.array(PHASE_IMPORTANCES))
    payload = {
        "sparsities": PHASE_SPARSITIES,
        "importances": PHASE_IMPORTANCES,
        "phases": grid.tolist(),  # rows: importances; columns: sparsities; PHASE_NAMES
    }
    PHASES_FILE.write_text(json.dumps(payload) + "\n", "utf-8")


def write_five() -> None:
    models = []
    for sparsity in SPARSITIES:
        for decay in DECAYS:
            model = toy(5, 2, sparsity, decay)
            models.append(
                {
                    "sparsity": sparsity,
                    "decay": decay,
                    "W": model.W.tolist(),
                    "b": model.b.tolist(),
                    "losses": model.losses[-10:].tolist(),
                }
            )
    FIVE_FILE.write_text(json.dumps({"models": models}) + "\n", "utf-8")


PHASE_ASKED = 0.5  # the importance of feature 2 the question asks about
PHASE_ANSWERS = ("already at 50 % zeros", "from 80–90 % zeros", "only at 99 % zeros",
                 "never: one dimension, one feature")  # fmt: skip


def phase_question() -> Question:
    """From what sparsity two features share one dimension, the second half as important:
    intuition says only when very sparse; the trained cells share much sooner."""
    row = phases()[PHASE_IMPORTANCES.index(PHASE_ASKED)]  # (sparsities,)
    shared = [s for s, cell in zip(PHASE_SPARSITIES, row, strict=True) if cell == 2]
    first = shared[0] if shared else None
    answer = PHASE_ANSWERS[3 if first is None else 0 if first <= 0.5 else 1 if first <= 0.9 else 2]
    if first is None:
        why = "in these trained models feature 2 is never stored beside feature 1."
    else:
        together = (1 - first) ** 2
        why = (
            f"in these trained models both are stored, sharing, from {sparsity_text(first)} "
            f"zeros on. There two features are on at once only {together:.0%} of the time "
            "(each is on with probability 1 − sparsity): sharing costs interference only "
            "then, while dropping feature 2 loses it every time it is on alone"
            + (
                "; with no zeros they are always on together, and feature 2 is dropped."
                if row[0] == 0
                else "."
            )
        ).replace("%", " %")
    return Question(
        "Two features, one dimension, the second half as important. From what share of "
        "zeros does the model store both, sharing the dimension?",
        "guess_phase",
        PHASE_ANSWERS,
        answer=answer,
        why=why,
    )


def phase_section(presenter: bool) -> None:
    """The phase diagram, after a prediction: what happens to feature 2 in each cell."""
    st.caption(
        "A phase change is a sudden switch in what training settles on as a setting crosses "
        "a line, as water turns to ice at 0 °C. Here two features share one dimension, and "
        "feature 2 can be dropped, hold the dimension alone, or share it with feature 1."
    )
    if not predicted(phase_question()):
        return
    grid = phases()  # (importances, sparsities)
    st.caption(
        "Feature 1 has importance 1, feature 2 the importance on the left; one small model "
        "is trained per cell. Notice the switch: dense features give the dimension to the "
        "more important feature alone (feature 2 is dropped while its importance is below "
        "1, and holds the dimension alone above 1), while "
        f"sparse ones share it, in {int(np.sum(grid == 2))} of {grid.size} cells."
    )
    show(
        figures.phase_heatmap(
            grid,
            [sparsity_text(v) for v in PHASE_SPARSITIES],
            [f"{v:g}" for v in PHASE_IMPORTANCES],
            PHASE_NAMES,
            "what happens to feature 2",
        ),
        presenter,
    )


def dimensions_section(sparsity: float, decay: float, answered: bool, presenter: bool) -> None:
    """Section 2: n features in m < n dimensions, each feature's share of a dimension;
    it waits for the page's question, as it shows how many features a layer keeps."""
    left, right = st.columns(2)
    n = bound_slider("features n", "sp_n", 4, MAX_FEATURES, 20, 1, left)
    m = bound_slider("hidden dimensions m", "sp_m", 1, MAX_HIDDEN, 5, 1, right)
    if not answered:  # how many features a layer keeps: the question at the top
        st.caption("This section waits for the question at the top: it shows what a layer keeps.")
    elif m >= n:
        st.info(f"With m = {m} ≥ n = {n} every feature can have a dimension of its own; try m < n.")
    else:
        big = toy(n, m, sparsity, decay)
        D = feature_dimensionality(big.W)  # (n,)
        per = dimensions_per_feature(big.W)
        st.caption(
            f"Each bar is one feature's share of a dimension, D_i = ‖W_i‖⁴ / Σ_j (W_i · W_j)²: 1 "
            "for a dimension of its own, 1/2 in an antipodal pair (two features on one line, "
            "pointing opposite ways), 2/5 in a pentagon, 0 dropped. "
            f"Notice where they sit here: from {D.min():.2f} to {D.max():.2f}, median "
            f"{np.median(D):.2f}. Over all features, m / ‖W‖_F² = {per:.2f} dimensions per "
            "feature (the dashed line); ‖W‖_F², the squared Frobenius norm, is every weight of W "
            "squared and summed: the features' squared lengths added up."
        )
        show(
            figures.bars(
                labels("f", n),
                D,
                "dimensionality of each feature",
                "D",
                level=per,
                level_name="m / ‖W‖_F²",
            ),
            presenter,
        )


if __name__ == "__main__":
    write_phases()
    write_five()

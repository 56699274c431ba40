"""The learning path: the order of the pages, what each one teaches, and the way between them.

The sidebar's menu lists the pages in this order, each marked with its tier's icon (app.py
hands them to st.navigation); the home page shows the path in its tiers with each page's
objective; every page ends with a link to the next step.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

# Each page's address, pinned, and each file named after it: the files were once numbered
# (app_pages/1_Neurons.py), and every link shared since says these addresses. AppTest finds
# a page by its file's name before its first run, so a file and its address must agree.
URL_PATHS = {
    "app_pages/Home.py": "",
    "app_pages/Neurons.py": "Neurons",
    "app_pages/Key_value_memory.py": "Key_value_memory",
    "app_pages/Activations.py": "Activations",
    "app_pages/Collapse.py": "Collapse",
    "app_pages/Position-wise.py": "Position-wise",
    "app_pages/Backprop.py": "Backprop",
    "app_pages/Build_it.py": "Build_it",
    "app_pages/Traps.py": "Traps",
    "app_pages/Scale_and_cost.py": "Scale_and_cost",
    "app_pages/Mixture_of_experts.py": "Mixture_of_experts",
    "app_pages/Superposition.py": "Superposition",
    "app_pages/Memory_lab.py": "Memory_lab",
    "app_pages/Real_model.py": "Real_model",
    "app_pages/Language_model.py": "Language_model",
    "app_pages/Glossary.py": "Glossary",
}


@dataclass(frozen=True)
class Step:
    page: str  # the script, as st.page_link takes it
    label: str  # how the sidebar names it
    objective: str  # what a learner can do after it, in the lessons' words

    @property
    def url(self) -> str:
        """The page's address after the app's own ("" for the home page)."""
        return URL_PATHS[self.page]


TIERS: dict[str, list[Step]] = {
    "Core": [
        Step(
            "app_pages/Home.py",
            "Home",
            "read the FFN as two linear layers with a bend between",
        ),
        Step(
            "app_pages/Key_value_memory.py",
            "Key–value memory",
            "see each firing neuron write its value into the output",
        ),
        Step("app_pages/Neurons.py", "Neurons", "tell which hidden neurons fire for each token"),
        Step(
            "app_pages/Collapse.py",
            "Collapse",
            "explain why two linear layers without a nonlinearity collapse into one",
        ),
        Step(
            "app_pages/Position-wise.py",
            "Position-wise",
            "explain why the FFN mixes features and attention mixes positions",
        ),
        Step("app_pages/Traps.py", "Traps", "avoid three mistakes of a by-hand FFN"),
        Step(
            "app_pages/Backprop.py",
            "Backprop & gradient check",
            "derive every gradient and check it against a float64 numerical gradient",
        ),
        Step(
            "app_pages/Build_it.py",
            "Build it",
            "write the forward and backward pass yourself, and pass your own gradient check",
        ),
    ],
    "Variants and cost": [
        Step(
            "app_pages/Activations.py",
            "Activations",
            "compare ReLU, GELU and SwiGLU, and see why a smooth bend keeps neurons alive",
        ),
        Step(
            "app_pages/Scale_and_cost.py",
            "Scale & cost",
            "say where a model's parameters and FLOPs live, and why long contexts are "
            "attention's problem",
        ),
        Step(
            "app_pages/Mixture_of_experts.py",
            "Mixture of experts",
            "explain how routing buys parameters without buying compute per token",
        ),
    ],
    "Going further": [
        Step(
            "app_pages/Superposition.py",
            "Superposition",
            "explain why one neuron fires for unrelated things, and how a layer holds more "
            "features than it has dimensions",
        ),
        Step(
            "app_pages/Memory_lab.py",
            "Memory lab",
            "find where a fact lives in an FFN, break it, and rewrite it",
        ),
        Step(
            "app_pages/Real_model.py",
            "Real model",
            "find the same keys and values inside a trained transformer",
        ),
        Step(
            "app_pages/Language_model.py",
            "Language model",
            "watch SwiGLU neurons push a real model's next word, and switch them off",
        ),
    ],
    "Reference": [
        Step("app_pages/Glossary.py", "Glossary", "look up a symbol or a term"),
    ],
}
STEPS = [step for steps in TIERS.values() for step in steps]
HOME = STEPS[0].page  # the page at the app's own address
# Each tier's mark: beside its pages in the sidebar's menu, and beside its heading on Home.
# The menu is one list in the path's order, not one section per tier: Streamlit draws a
# section's heading and links inside a <ul> without <li>, which a screen reader cannot
# announce as a list (axe-core: list, listitem). A mark is decoration (hidden from a screen
# reader), so the tiers themselves are named on Home.
TIER_ICONS = {
    "Core": ":material/school:",
    "Variants and cost": ":material/tune:",
    "Going further": ":material/explore:",
    "Reference": ":material/menu_book:",
}


def next_step(page: str) -> None:
    """The link to the step after `page`, at the end of a page."""
    index = [step.page for step in STEPS].index(page)
    if index + 1 < len(STEPS) and STEPS[index + 1] not in TIERS["Reference"]:
        step = STEPS[index + 1]
        st.divider()
        st.page_link(step.page, label=f"Next: {step.label}, to {step.objective} →")

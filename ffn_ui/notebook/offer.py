"""The "Download as notebook" button at the end of a toy page.

The notebook is built only when asked for (a click), from the arrays the page already
checked and drew, so a rerun that does not ask costs nothing. In a class, the teacher's
button gives the teacher's view, and a following student's page, which draws the
teacher's settings, gives the same file.
"""

from __future__ import annotations

import nbformat
import streamlit as st

from ffn_ui.notebook.views import SECTIONS, View, notebook_of

ASK_KEY = "notebook_asked"  # the button that builds the notebook, on this rerun only
# Numbers a notebook may carry written out or packed: a few hundred kB at most. Random
# weights travel as their seed and a sentence as its words, whatever their size.
MAX_CARRIED = 32_768


def carried(toy) -> int:
    """How many numbers the notebook of the sidebar's model would carry."""
    scheme = st.session_state.get("init", "normal")
    weights = 0 if scheme in ("normal", "Xavier") else sum(a.size for a in toy.weights.values())
    return weights + (0 if toy.tokens_from == "sentence" else toy.x.size)


def view_of(page: str, toy, setting: dict) -> View:
    """What the page shows now, as the notebook's View: the sidebar's model and tokens
    (a sentence's words, when the tokens come from one), and the page's own setting."""
    state = st.session_state
    words = None
    if toy.tokens_from == "sentence":
        words = [label.split(": ", 1)[1] for label in toy.token_labels]
    return View(
        page=page,
        ffn=toy.activation,
        weights=toy.weights,
        scheme=str(state.get("init", "normal")),
        seed=int(state.get("seed", 0)),
        x=toy.x,
        labels=list(toy.token_labels),
        words=words,
        setting=setting,
    )


def file_name(page: str) -> str:
    """ "Key–value memory" -> "ffn-explorer-key-value-memory.ipynb"."""
    slug = "".join(c if c.isalnum() else "-" for c in page.lower().replace("–", "-"))
    return f"ffn-explorer-{'-'.join(p for p in slug.split('-') if p)}.ipynb"


def offer_notebook(page: str, toy, **setting) -> None:
    """The page's view as a Jupyter notebook in plain NumPy: asked for, then saved."""
    if page not in SECTIONS:
        return
    st.divider()
    if not st.button("Download as notebook", key=ASK_KEY, help=HELP):
        return
    if carried(toy) > MAX_CARRIED:
        st.info(
            f"This model's weights and tokens are {carried(toy):,} numbers, more than a "
            f"notebook carries ({MAX_CARRIED:,}). With random weights, a sentence, or a "
            "smaller d_model and d_ff, the notebook draws them again instead."
        )
        return
    book = notebook_of(view_of(page, toy, setting))
    st.download_button(
        "Save the notebook (.ipynb)",
        nbformat.writes(book),
        file_name=file_name(page),
        mime="application/x-ipynb+json",
        on_click="ignore",  # saving changes nothing on the page
        type="primary",
    )
    st.caption(
        "Built from what this page shows now: the model and tokens written out, then plain "
        "NumPy that recomputes the figure's numbers, and an exercise. Open it in Jupyter or "
        "Colab; it needs only NumPy and Plotly."
    )


HELP = "A notebook that rebuilds this view in plain NumPy, to rerun and change at home."

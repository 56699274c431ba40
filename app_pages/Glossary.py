"""Glossary: the notation the pages share, and the terms they use, one line each."""

import streamlit as st

from ffn_ui.page.setup import setup
from ffn_ui.parts.glossary import NOTATION, TERMS

LEDE = "Every symbol and term the pages use, one line each."
INTRO = (
    "The pages, the two lessons this app was built from (one computes the FFN by hand, in "
    "W @ x; one writes it and its backward pass in NumPy, in x @ W) and the papers they cite "
    "each write the FFN a little differently. Here is how the pieces match up."
)

setup("Glossary", "Glossary and notation", LEDE)

st.subheader("Notation")
st.markdown(INTRO)
for symbol, meaning in NOTATION.items():
    st.markdown(f"**{symbol}**: {meaning}")

st.subheader("Terms")
for term, meaning in sorted(TERMS.items(), key=lambda item: item[0].lower()):
    st.markdown(f"**{term}**: {meaning}")

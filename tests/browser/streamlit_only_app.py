"""The least Streamlit page that shows the two failures the accessibility tests leave out:
a sidebar menu with sections, and a disabled slider."""

import streamlit as st


def first() -> None:
    st.title("A minimal page")
    st.slider("a disabled slider", 0, 10, 3, disabled=True)


def second() -> None:
    st.title("Another")


st.navigation({"One": [st.Page(first)], "Two": [st.Page(second)]}, expanded=True).run()

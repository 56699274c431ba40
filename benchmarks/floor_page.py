"""The floor for a cold load on this machine: the least a Streamlit page with a chart can
be. One slider and one small Plotly heatmap, and nothing else. `benchmarks/cold_load.py`
serves it beside the app and compares every page's cold load with it."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

size = st.slider("size", 2, 16, 8, key="size")
grid = np.arange(size * size, dtype=float).reshape(size, size)
st.plotly_chart(go.Figure(go.Heatmap(z=grid)))

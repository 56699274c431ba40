"""FFN Explorer's shared UI: page setup, URL handling and Plotly figure builders."""

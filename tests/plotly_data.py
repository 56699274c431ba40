"""Read the numbers back out of a Plotly figure's JSON, as AppTest and figures give it."""

from __future__ import annotations

import base64
import json

import numpy as np


def decode(values) -> np.ndarray:
    """Plotly 6+ encodes NumPy arrays as {"dtype", "bdata" (base64), "shape"}; lists stay lists."""
    if isinstance(values, dict) and "bdata" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return arr.reshape(shape) if shape else arr
    return np.asarray(values)


def chart_traces(app_test) -> list[list[dict]]:
    """The traces of every Plotly chart on an AppTest page, in page order."""
    return [json.loads(chart.proto.spec)["data"] for chart in app_test.get("plotly_chart")]

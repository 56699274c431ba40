"""FFN Explorer's core: the transformer's feed-forward network in NumPy, and its analysis.

No Streamlit, Plotly or pandas here. The package re-exports the names the pages use and
the public contract (forward, backward, activations, the by-hand reference, collapse);
the rest is imported from its module.
"""

from ffn_core.activations import (
    ACTIVATIONS,
    gelu,
    gelu_tanh,
    get_activation,
    identity,
    relu,
    silu,
)
from ffn_core.analysis import (
    collapse,
    contributions,
    hidden,
)
from ffn_core.ffn import ffn_backward, ffn_backward_steps, ffn_forward
from ffn_core.gradcheck import gradient_check
from ffn_core.lessons.costs import (
    MODEL_SHAPES,
    ModelShape,
    attention_flops,
    ffn_flops,
    model_params,
    quadratic_crossover,
)
from ffn_core.lessons.mistakes import ffn_forward_flat_one_stride
from ffn_core.reference import ffn_forward_flat
from ffn_core.swiglu import swiglu_backward, swiglu_forward

__all__ = [
    "ACTIVATIONS",
    "MODEL_SHAPES",
    "ModelShape",
    "attention_flops",
    "collapse",
    "contributions",
    "ffn_backward",
    "ffn_backward_steps",
    "ffn_flops",
    "ffn_forward",
    "ffn_forward_flat",
    "ffn_forward_flat_one_stride",
    "gelu",
    "gelu_tanh",
    "get_activation",
    "gradient_check",
    "hidden",
    "identity",
    "model_params",
    "quadratic_crossover",
    "relu",
    "silu",
    "swiglu_backward",
    "swiglu_forward",
]

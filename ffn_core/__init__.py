"""FFN Explorer's core: the transformer's feed-forward network in NumPy, and its analysis.

No Streamlit, Plotly or pandas here; see DESIGN.md for the public contract.
"""

from ffn_core.activations import (
    ACTIVATIONS,
    Activation,
    gelu,
    gelu_tanh,
    get_activation,
    identity,
    relu,
    silu,
)
from ffn_core.analysis import (
    collapse,
    contribution_sizes,
    contributions,
    dead_neurons,
    firing_count,
    firing_mask,
    firing_rate,
    hidden,
    neuron_order,
    silent_neurons,
    sparsity,
)
from ffn_core.costs import (
    MODEL_SHAPES,
    ModelShape,
    attention_flops,
    attention_params,
    ffn_flops,
    ffn_params,
    model_params,
    moe_params,
    quadratic_crossover,
)
from ffn_core.ffn import FFNCache, ffn_backward, ffn_forward
from ffn_core.gradcheck import gradient_check
from ffn_core.mistakes import ffn_forward_flat_one_stride, ffn_forward_flat_relu_after_w2
from ffn_core.reference import ffn_forward_flat
from ffn_core.swiglu import SwiGLUCache, swiglu_backward, swiglu_forward

__all__ = [
    "ACTIVATIONS",
    "MODEL_SHAPES",
    "Activation",
    "FFNCache",
    "ModelShape",
    "SwiGLUCache",
    "attention_flops",
    "attention_params",
    "collapse",
    "contribution_sizes",
    "contributions",
    "dead_neurons",
    "ffn_backward",
    "ffn_flops",
    "ffn_forward",
    "ffn_forward_flat",
    "ffn_forward_flat_one_stride",
    "ffn_forward_flat_relu_after_w2",
    "ffn_params",
    "firing_count",
    "firing_mask",
    "firing_rate",
    "gelu",
    "gelu_tanh",
    "get_activation",
    "gradient_check",
    "hidden",
    "identity",
    "model_params",
    "moe_params",
    "neuron_order",
    "quadratic_crossover",
    "relu",
    "silent_neurons",
    "silu",
    "sparsity",
    "swiglu_backward",
    "swiglu_forward",
]

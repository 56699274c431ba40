"""Where the parameters and the FLOPs live: one FFN, one attention block, real models.

Conventions: a multiply-add counts as 2 FLOPs; FLOPs are for one forward pass. Attention's
score and mix terms are counted for the full T x T matrix (no causal saving).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

FFN_KINDS = ("standard", "swiglu")


def _matrices(kind: str) -> int:
    """How many d_model x d_ff matrices an FFN of this kind has."""
    if kind not in FFN_KINDS:
        raise ValueError(f"unknown FFN kind {kind!r}; expected one of {', '.join(FFN_KINDS)}")
    return 2 if kind == "standard" else 3


def ffn_params(d_model: int, d_ff: int, kind: str = "standard", bias: bool = True) -> int:
    """Parameters of one FFN: 2 d d_ff (+ d_ff + d biases), or 3 d d_ff for SwiGLU."""
    n = _matrices(kind)
    biases = (n - 1) * d_ff + d_model if bias else 0
    return n * d_model * d_ff + biases


def moe_params(
    d_model: int,
    d_ff: int,
    n_experts: int,
    top_k: int,
    kind: str = "swiglu",
    bias: bool = False,
) -> tuple[int, int]:
    """(total, active per token) of a mixture-of-experts FFN with a d_model x E router.

    Every expert is stored; each token runs only its top_k experts, plus the router.
    """
    if not 1 <= top_k <= n_experts:
        raise ValueError(f"top_k must be between 1 and n_experts = {n_experts}, got {top_k}")
    expert = ffn_params(d_model, d_ff, kind, bias)
    router = d_model * n_experts
    return n_experts * expert + router, top_k * expert + router


def attention_params(
    d_model: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = True
) -> int:
    """Q, K, V and O projections. With grouped-query attention K and V have n_kv_heads heads.

    Without grouping this is 4 d^2 (+ 4 d biases).
    """
    n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
    if d_model % n_heads or n_heads % n_kv_heads:
        raise ValueError(
            f"n_heads = {n_heads} must divide d_model = {d_model}, "
            f"and n_kv_heads = {n_kv_heads} must divide n_heads"
        )
    kv_dim = n_kv_heads * (d_model // n_heads)
    weights = 2 * d_model * d_model + 2 * d_model * kv_dim  # Q and O, then K and V
    biases = 2 * d_model + 2 * kv_dim if bias else 0
    return weights + biases


def ffn_flops(T: int, d_model: int, d_ff: int, kind: str = "standard") -> int:
    """Forward FLOPs of the FFN over T tokens: 2 T d d_ff per matrix. Linear in T."""
    return 2 * T * d_model * d_ff * _matrices(kind)


def attention_flops(
    T: int, d_model: int, n_heads: int, n_kv_heads: int | None = None
) -> dict[str, int]:
    """Forward FLOPs of attention over T tokens, split into its three parts.

    projections: Q, K, V, O (linear in T); scores: Q K^T (2 T^2 d); mix: weights @ V (2 T^2 d).
    """
    projections = 2 * T * attention_params(d_model, n_heads, n_kv_heads, bias=False)
    return {"projections": projections, "scores": 2 * T * T * d_model, "mix": 2 * T * T * d_model}


def quadratic_crossover(d_ff: int, kind: str = "standard", active_experts: int = 1) -> float:
    """The T at which attention's T^2 terms (4 T^2 d) equal the FFN's FLOPs.

    4 T^2 d = 2 T d d_ff m k gives T = d_ff m k / 2 (m matrices, k active experts):
    T = d_ff for a standard FFN.
    """
    return d_ff * _matrices(kind) * active_experts / 2


@dataclass(frozen=True)
class ModelShape:
    """One published model, with enough detail to recount its parameters exactly."""

    name: str
    d_model: int
    d_ff: int  # per expert, for a mixture of experts
    n_layers: int
    n_heads: int
    n_kv_heads: int  # fewer than n_heads means grouped-query attention
    ffn_kind: str  # "standard" (two matrices) or "swiglu" (three)
    activation: str  # label only: what sits between the matrices
    bias: bool  # linear layers carry biases
    norm: str  # "layernorm" (weight and bias) or "rmsnorm" (weight only)
    vocab_size: int
    n_positions: int  # learned position embeddings; 0 for rotary
    tied_embeddings: bool  # the output head reuses the token embedding
    published_params: int  # the released checkpoint's parameter count
    published_label: str  # how the model is usually named by size
    n_experts: int = 1
    top_k: int = 1
    extra_params: int = 0  # anything outside blocks and embeddings, see extra_note
    extra_note: str = ""
    published_active_label: str = ""  # for a mixture of experts: parameters used per token


def _norm_params(shape: ModelShape) -> int:
    return (2 if shape.norm == "layernorm" else 1) * shape.d_model


def model_params(shape: ModelShape) -> dict[str, int]:
    """Recount a model: per block (attention, FFN, norms), all blocks, embeddings, total.

    Every block has two norms; one more sits outside them (GPT-2's and Llama's final norm,
    BERT's embedding LayerNorm). `ffn_active` and `active` count the top_k experts only.
    """
    d = shape.d_model
    attention = attention_params(d, shape.n_heads, shape.n_kv_heads, shape.bias)
    if shape.n_experts > 1:
        ffn, ffn_active = moe_params(
            d, shape.d_ff, shape.n_experts, shape.top_k, shape.ffn_kind, shape.bias
        )
    else:
        ffn = ffn_active = ffn_params(d, shape.d_ff, shape.ffn_kind, shape.bias)
    norms = 2 * _norm_params(shape)
    heads = 1 if shape.tied_embeddings else 2
    embeddings = heads * shape.vocab_size * d + shape.n_positions * d
    outside = embeddings + _norm_params(shape) + shape.extra_params
    return {
        "attention": attention,
        "ffn": ffn,
        "ffn_active": ffn_active,
        "norms": norms,
        "block": attention + ffn + norms,
        "blocks": shape.n_layers * (attention + ffn + norms),
        "embeddings": embeddings,
        "total": shape.n_layers * (attention + ffn + norms) + outside,
        "active": shape.n_layers * (attention + ffn_active + norms) + outside,
    }


def default_heads(d_model: int, head_size: int = 64) -> int:
    """Heads of `head_size` numbers, as GPT-2, BERT and Llama use: d_model // 64 when 64
    divides d_model (GPT-2 small: 768 -> 12), else the divisor of d_model nearest to
    d_model / 64, and at least 1. Attention's parameter and FLOP counts do not depend on
    it, but grouped-query attention's do, through the heads it groups."""
    divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
    return min(divisors, key=lambda h: (abs(h - d_model / head_size), -h))


def gpt2_shape(
    name: str, d_model: int, n_layers: int, n_heads: int, published: int, label: str
) -> ModelShape:
    """GPT-2's four sizes share everything but width, depth and heads."""
    return ModelShape(
        name=name,
        d_model=d_model,
        d_ff=4 * d_model,
        n_layers=n_layers,
        n_heads=n_heads,
        n_kv_heads=n_heads,
        ffn_kind="standard",
        activation="GELU (tanh approx.)",
        bias=True,
        norm="layernorm",
        vocab_size=50257,
        n_positions=1024,
        tied_embeddings=True,
        published_params=published,
        published_label=label,
    )


def _llama(
    name: str,
    d_ff: int,
    n_kv_heads: int,
    vocab_size: int,
    published: int,
    label: str,
    **moe: int | str,
) -> ModelShape:
    """Llama-2-7B, Llama-3-8B and Mixtral share width 4096, 32 layers and 32 query heads."""
    return ModelShape(
        name=name,
        d_model=4096,
        d_ff=d_ff,
        n_layers=32,
        n_heads=32,
        n_kv_heads=n_kv_heads,
        ffn_kind="swiglu",
        activation="SiLU-gated (SwiGLU)",
        bias=False,
        norm="rmsnorm",
        vocab_size=vocab_size,
        n_positions=0,
        tied_embeddings=False,
        published_params=published,
        published_label=label,
        **moe,
    )


# BERT-base has GPT-2 small's blocks; it differs in its GELU, its vocabulary and positions,
# and the token-type embeddings and pooler it adds.
BERT_BASE = replace(
    gpt2_shape("BERT-base", 768, 12, 12, 109_482_240, "110M"),
    activation="GELU (exact)",
    vocab_size=30522,
    n_positions=512,
    extra_params=2 * 768 + 768 * 768 + 768,
    extra_note="token-type embeddings (2 x 768) and the pooler (768 x 768 + 768)",
)

MODEL_SHAPES: dict[str, ModelShape] = {
    m.name: m
    for m in (
        gpt2_shape("GPT-2 small", 768, 12, 12, 124_439_808, "124M"),
        gpt2_shape("GPT-2 medium", 1024, 24, 16, 354_823_168, "355M"),
        gpt2_shape("GPT-2 large", 1280, 36, 20, 774_030_080, "774M"),
        gpt2_shape("GPT-2 XL", 1600, 48, 25, 1_557_611_200, "1.5B"),
        BERT_BASE,
        _llama("Llama-2-7B", 11008, 32, 32000, 6_738_415_616, "7B"),
        _llama("Llama-3-8B", 14336, 8, 128256, 8_030_261_248, "8B"),
        _llama(
            "Mixtral-8x7B",
            14336,
            8,
            32000,
            46_702_792_704,
            "46.7B",
            n_experts=8,
            top_k=2,
            published_active_label="12.9B",
        ),
    )
}


def swiglu_d_ff(d_model: int, multiple_of: int = 1) -> int:
    """The SwiGLU width whose three matrices match a 4x FFN's two: 3 d h = 8 d^2, h = 8d/3.

    Rounded up to a multiple of `multiple_of`, as Llama does with 256 (4096 -> 11008).
    """
    return multiple_of * math.ceil(8 * d_model / 3 / multiple_of)


def moe_flops_per_token(
    d_model: int, d_ff: int, n_experts: int, top_k: int, kind: str = "swiglu"
) -> tuple[int, int]:
    """(FLOPs if every expert ran, FLOPs with the top_k that do), router included."""
    router = 2 * d_model * n_experts
    expert = ffn_flops(1, d_model, d_ff, kind)
    return n_experts * expert + router, top_k * expert + router

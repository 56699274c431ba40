"""The notation and the terms the pages use, one line each: what the Glossary page shows,
and where a page takes its one-line explanation of a term on first use."""

from __future__ import annotations

from ffn_core.activations import ACTIVATIONS

NOTATION = {
    "d_model = C = D": "the width of a token's vector. The NumPy lesson writes C, the by-hand "
    "lesson D (the two lessons this app was built from); the sidebar says d_model.",
    "d_ff = H": "the hidden width: how many neurons the FFN has, usually 4 · d_model "
    "(3072 for GPT-2's 768).",
    "B": "the batch: how many sequences go through at once.",
    "T": "the sequence length: how many tokens a sequence has.",
    "x @ W, here": "a token is a row x of d_model numbers, and FFN(x) = act(x·W1 + b1)·W2 + b2. "
    "W1 is d_model × d_ff, so neuron j's key is column j of W1; W2 is d_ff × d_model, so its "
    "value is row j of W2.",
    "W @ x, in the by-hand lesson": "that lesson writes FFN(x) = W2·relu(W1·x + b1) + b2 "
    "with x a column: there W1 is d_ff × d_model and neuron j's key is row j of W1. Same numbers, "
    "transposed (the Traps page shows what a wrong transpose does).",
    "h_pre, h, out": "the scores x·W1 + b1, the activations act(h_pre), and the output h·W2 + b2.",
}

TERMS = {
    "key and value": "neuron j's column of W1 is a pattern it matches (a key); its row of W2 is "
    "what it writes into the output when it fires (a value) (Geva et al. 2021).",
    "fires": "a neuron fires for a token when its activation is positive, so it writes its value. "
    "With ReLU a neuron that does not fire writes nothing; with GELU or SiLU it still writes a "
    "little, sign-flipped (GELU(−1) = −0.16).",
    "dead neuron": "a neuron whose gradient is zero on every token of a batch: training cannot "
    "change its key. With ReLU that happens whenever its score is at or below zero on every "
    "token.",
    "SwiGLU": "silu(x·W_gate) × (x·W_up), then ·W_down: a gated FFN with three matrices and no "
    "biases (Llama, Mistral, Qwen, Gemma's variant uses GELU); d_ff ≈ 8/3 · d_model keeps its "
    "parameters level with a 4× FFN. Choose it in the sidebar as the FFN.",
    "gate, up": "SwiGLU's two scores per neuron: the gate x·W_gate goes through SiLU and says how "
    "far the neuron opens; the up x·W_up is multiplied by it and gives the write its sign. A "
    "gate below 0 is closed, but silu of it is small and negative, not 0.",
    "bilinear map": "what is left of SwiGLU without its SiLU, (x·W_gate) ⊙ (x·W_up) · W_down: "
    "every output a sum of products of two of x's coordinates. Quadratic in x, so unlike the "
    "plain FFN without its activation it is not one matrix.",
    "fan-in, Glorot": "fan-in is how many inputs feed a neuron (d_model for W1). Initial "
    "weights of variance 1/fan-in keep scores of order 1; Glorot (Xavier) uniform scales by "
    "both fan-in and fan-out.",
    "1 × 1 convolution": "a filter one position wide slid along the sequence: the same weights "
    "at every position, no mixing between positions, which is what 'position-wise' means.",
    "singular values": "how much a matrix stretches space along each of its principal "
    "directions; the number of nonzero ones is its rank.",
    "grouped-query attention": "attention where several query heads share one key/value head, "
    "so the K and V projections are smaller (Llama 2 70B, Mixtral).",
    "FLOPs": "floating-point operations; a multiply-add counts as 2, so a (T × d) · (d × n) "
    "product costs 2 · T · d · n.",
    "load-balancing loss": "the Switch Transformer's (Fedus et al. 2021) auxiliary loss: "
    "E · Σ_e (share of token slots sent to e) × (mean router probability of e), where a token "
    "sent to k experts fills k slots; 1 when routing is even.",
    "ROME": "Rank-One Model Editing (Meng et al. 2022): rewrite one fact by adding a rank-one "
    "matrix to one FFN's W2.",
    "sentence embedding, cosine": "a sentence's vector: the mean of its tokens' final "
    "states, scaled to length 1 (all-MiniLM-L6-v2's pooling). Two sentences' cosine is the "
    "dot product of their vectors over the product of their lengths: 1 for the same "
    "direction, 0 for orthogonal ones (unrelated sentences score near 0).",
    "logit": "a next-token score before the softmax: the final state, after the final norm, "
    "dotted with each token's output vector. The softmax turns the logits into probabilities.",
    "rank, rank-one": "a matrix's rank is how many independent directions its outputs can "
    "take. A rank-one matrix is an outer product u ⊗ v: whatever the input, it writes along "
    "v, by the amount the input shares with u.",
    "WordPiece, [CLS], [SEP]": "BERT's tokenizer splits rare words into pieces (## marks a piece "
    "that continues a word); [CLS] opens every input and [SEP] closes it.",
    "activation × gradient": "a neuron's activation times the gradient of a score with respect "
    "to it: a first-order estimate of how much switching it off would change the score.",
    "R²": "1 − (squared error)/(variance of the target): 1 is a perfect fit, 0 no better than "
    "the mean. The Collapse page says a network 'fits' at R² or accuracy ≥ 0.95.",
    "residual": "the block adds the FFN's output to its input: x + FFN(x), so the output must "
    "stay signed and have the input's shape.",
    "RMSNorm": "x / √(mean(x²) + ε) · weight: LayerNorm without the mean subtracted or a bias "
    "added; Llama-style models use it before attention, before the FFN and before the output.",
    "rotary position embedding": "queries and keys are turned pair by pair by an angle "
    "proportional to their position, so a query-key score depends on how far apart the two "
    "tokens are (Su et al. 2021; Llama, SmolLM2).",
    "logit lens": "reading the residual stream after an intermediate block as if it were the "
    "last (final norm, then the output vectors), to see when the answer appears (nostalgebraist "
    "2020).",
    "direct logit attribution": "what one part of the model adds to a token's logit straight "
    "through the residual stream: its output dotted with the token's output vector, the final "
    "norm's scale held fixed. It leaves out what later blocks do with that output.",
    "GGUF": "llama.cpp's file format: typed metadata (including the tokenizer's vocabulary and "
    "merges) followed by the tensors, often quantised (Q4_1: blocks of 32 weights sharing a "
    "scale and an offset, 4 bits each).",
    "superposition": "storing more features than there are dimensions by giving some of "
    "them overlapping directions; it pays when features are sparse, because two that are "
    "rarely on together rarely interfere (Elhage et al. 2022).",
    "feature, importance": "in the Superposition toy, each of the n inputs is one feature: 0 "
    "with probability 1 − p (that share of zeros is the sparsity), else uniform in [0, 1]. "
    "The model must give every feature back; its importance is the weight of that "
    "feature's squared error in the loss, so a less important one is the first to be dropped.",
    "antipodal pair": "two features stored on one direction, pointing opposite ways (W_i = "
    "−W_j): the ReLU keeps them apart as long as they are rarely on together.",
    "polysemantic neuron": "a neuron that fires for several unrelated features, as "
    "superposition makes them: asking what it means has no single answer.",
    "feature dimensionality": "D_i = ‖W_i‖⁴ / Σ_j (W_i · W_j)²: the share of a dimension feature "
    "i has; 1 alone, 1/2 in an antipodal pair, 2/5 in a pentagon, 0 when dropped.",
    "mixture of experts": "E FFNs (experts) and a router; each token goes to its k most "
    "probable experts (Mixtral 8×7B: E = 8, k = 2).",
}

# Each activation's entry, from its record: its formula, then what it is.
TERMS.update({a.label: f"{a.formula}: {a.about}." for a in ACTIVATIONS.values() if a.bends})

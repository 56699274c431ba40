"""The values and layouts benchmarks/op_prices.py measures each operation on, chosen to be
slow: exponents far apart, subnormal operands and results, exp's and tanh's edges, NaN and
inf, integers and truth values; products and einsums of many short loops; lines of as many
tiny operations as a line may hold."""

from __future__ import annotations

import numpy as np

from ffn_core.exercise.safe_eval import MAX_ELEMENTS

N = MAX_ELEMENTS
rng = np.random.default_rng(0)


def uniform(low: float, high: float, n: int = N) -> np.ndarray:
    return rng.uniform(low, high, n)


FLOATS = {
    "ordinary numbers": rng.standard_normal(N),
    "negative numbers": -uniform(0.5, 2),
    "fractions": uniform(0.1, 0.9),
    "numbers within 1e-15 of 1": 1 + uniform(-1e-15, 1e-15),
    "tiny numbers (1e-160, their products subnormal)": uniform(1, 2) * 1e-160,
    "the smallest normal numbers": uniform(1, 2) * 2.3e-308,
    "subnormal numbers (1e-310)": uniform(1, 2) * 1e-310,
    "subnormal numbers (1e-316)": uniform(1, 2) * 1e-316,
    "the smallest subnormal (5e-324)": np.full(N, 5e-324),
    "huge numbers (1e306)": uniform(1, 2) * 1e306,
    "the largest numbers (1.7e308)": uniform(1, 1.79) * 1e308,
    "exp's subnormal edge (-745 to -708)": uniform(-745, -708),
    "large exponents (100 to 1000)": uniform(100, 1000),
    "zeros": np.zeros(N),
    "inf": np.full(N, np.inf),
    "NaN": np.full(N, np.nan),
}
INTS = {
    "small integers": rng.integers(-9, 10, N),
    "large integers (±2**62)": rng.integers(-(2**62), 2**62, N),
    "large positive integers (2**61 to 2**62)": rng.integers(2**61, 2**62, N),
    "int64's extremes": np.where(np.arange(N) % 2, -1, np.iinfo(np.int64).min),
}
BOOLS = {"truth values": rng.integers(0, 2, N).astype(bool)}
VALUES = FLOATS | INTS | BOOLS


MATMULS = {  # (left shape, right shape): each a way to make many short products
    "one large product": ((100, 250), (250, 200)),
    "50,000 products of 1 × 1": ((N, 1, 1), (N, 1, 1)),
    "25,000 products of (1 × 2) · (2 × 1)": ((N // 2, 1, 2), (N // 2, 2, 1)),
    "12,500 products of (2 × 1) · (1 × 2)": ((N // 4, 2, 1), (N // 4, 1, 2)),
    "50,000 products against one 1 × 1": ((N, 1, 1), (1, 1)),
    "a column times a row": ((N, 1), (1,)),
    "a row of 1 times 50,000 columns": ((1, 1), (1, N)),
    "two vectors": ((N,), (N,)),
    "a matrix times a vector": ((250, 200), (200,)),
    "a transposed matrix": ((250, 200), (200, 200)),
    "inner size 0": ((N, 0), (0, 1)),
}
MATMUL_VALUES = {  # (left's type and scale, right's): products of tiny numbers end subnormal
    "ordinary numbers": ((np.float64, 1.0), (np.float64, 1.0)),
    "tiny numbers (1e-160)": ((np.float64, 1e-160), (np.float64, 1e-160)),
    "subnormal numbers (1e-310)": ((np.float64, 1e-310), (np.float64, 1e-310)),
    "subnormal times ordinary numbers": ((np.float64, 1e-310), (np.float64, 1.0)),
    "small integers": ((np.int64, 9), (np.int64, 9)),
    "truth values": ((np.bool_, 1), (np.bool_, 1)),
    "numbers times integers": ((np.float64, 1.0), (np.int64, 9)),
}


def matrix(shape: tuple[int, ...], kind, scale: float) -> np.ndarray:
    return (rng.uniform(1, 2, shape) * scale).astype(kind)


EINSUMS = {  # subscripts and shapes; loops of N or so steps
    "'bti,btj->ij', the exercise's": ("bti,btj->ij", [(4, 50, 16), (4, 50, 16)]),
    "'ij,jk->ik', a product": ("ij,jk->ik", [(40, 40), (40, 40)]),
    "'ij,ij->i', rows of two": ("ij,ij->i", [(N // 2, 2), (N // 2, 2)]),
    "'i,j->ij', an outer product": ("i,j->ij", [(250,), (200,)]),
    "15 axes of 2": ("abcdefghijklmno,abcdefghijklmno->abcdefghijklmno", [(2,) * 15] * 2),
    "15 axes of 2, summed": ("abcdefghijklmno,abcdefghijklmno->", [(2,) * 15] * 2),
    "'ij->', a sum": ("ij->", [(250, 200)]),
    "'ij->ji', a transpose": ("ij->ji", [(250, 200)]),
    "'ii->i', a diagonal": ("ii->i", [(200, 200)]),
    "three operands": ("i,i,i->i", [(N,)] * 3),
    "four operands": ("i,i,i,i->i", [(N,)] * 4),
    "six operands": ("i,i,i,i,i,i->i", [(N,)] * 6),
    "six operands, summed": ("i,i,i,i,i,i->", [(N,)] * 6),
    "three operands, summed": ("i,i,i->", [(N,)] * 3),
    "three operands, a product": ("ij,jk,kl->il", [(16, 16)] * 3),
}
EINSUM_VALUES = {  # each operand's type and scale, by its place
    "ordinary numbers": lambda i: (np.float64, 1.0),
    "tiny numbers (1e-160)": lambda i: (np.float64, 1e-160),
    "two tiny numbers, then ordinary ones (products stay subnormal)": lambda i: (
        np.float64,
        1e-160 if i < 2 else 1.0,
    ),
    "a subnormal, then ordinary numbers": lambda i: (np.float64, 1e-310 if i < 1 else 1.0),
    "numbers whose products end subnormal (1e-62)": lambda i: (np.float64, 1e-62),
    "small integers": lambda i: (np.int64, 9),
    "truth values": lambda i: (np.bool_, 1),
    "numbers and integers": lambda i: (np.float64, 1.0) if i % 2 else (np.int64, 9),
}


OVERHEAD_TERMS = {  # tiny operations, as many as a line may hold, one after another
    "+ on numbers": "B",
    "+ on arrays": "b1",
    "comparisons": "(B>C)",
    "indexing": "x[0,0,0]",
    "einsum": "np.einsum('i->',b1)",
    ".sum": "b1.sum()",
    ".astype": "(b1>0).astype(float)",
    "np.where": "np.where(B>0,B,0)",
    "@": "b1@b1",
    "reshape": "b1.reshape(-1,1)",
    "transpose": "np.transpose(W1)",
    "np.maximum": "np.maximum(B,C)",
    "relu": "relu(B)",
}

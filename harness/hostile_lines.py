"""Lines a hostile visitor might type into Build it, each of which must be refused (or run
within the caps), shared by the tests and by benchmarks/hostile_lines.py; and right
answers with costly terms added, which grade right unless their work is priced."""

from __future__ import annotations

from ffn_core.exercise.build_ffn import LESSON, STEPS, names_before, reference
from ffn_core.exercise.safe_eval import MAX_CHARS

# Issue 45: 49,152 entries of % with 2,000 bits between the exponents, added as zero to a
# right answer. Five of them made a line graded right that cost 110-160 ms of CPU.
MODULO = "0*(W1[...,None,None]*1e306%(W1[:6]*1e-300))[0,0,0,0]"


def with_terms(answer: str, term: str, most: int = 5) -> str:
    """`answer` + `term` + `term` ..., as many (at most `most`) as one line may hold."""
    for copies in range(most, 0, -1):
        text = "+".join([answer, *[term] * copies])
        if len(text) <= MAX_CHARS:
            return text
    raise ValueError(f"{term!r} does not fit after {answer!r}")


ATTACK = with_terms("x @ W1 + b1", MODULO)  # the line: h_pre's answer, five terms
COSTLY = {step.name: with_terms(step.answer, MODULO) for step in STEPS}  # one per line

HOSTILE = [
    # escapes through names, attributes and calls
    "__import__('os').system('ls')",
    "x.__class__.__mro__[1].__subclasses__()",
    "().__class__.__bases__[0]",
    "np.__dict__",
    "np.load('/etc/passwd')",
    "np.lib.npyio",
    "np.fromfile",
    "x.tofile('out')",
    "x.dump('out')",
    "x.ctypes",
    "x.base",
    "x.flags",
    "W1.item",
    "open('/etc/passwd').read()",
    "eval('1')",
    "exec('1')",
    "globals()",
    "getattr(x, 'T')",
    "type(x)",
    "breakpoint()",
    "np.einsum.__globals__",
    "x.sum.__self__",
    "h_pre.astype(object)",
    "x.astype('O')",
    "x.reshape.__call__(-1)",
    # constructs that are not expressions of data
    "lambda: x",
    "[v for v in x]",
    "{v for v in x}",
    "(v for v in x)",
    "f'{x}'",
    "(y := x)",
    "x if B else W1",
    "x and W1",
    "[x, W1]",
    "{'a': x}",
    "np.maximum(*[x, 0])",
    "np.sum(**{'a': x})",
    "import os",
    "x = 1; y = 2",
    "await x",
    # too large: broadcasting, reshape, einsum, integers, powers, repetition
    "x[:, :, :, None, None, None] * x[None, None, None, :, :, :]",
    "np.ones_like(x)[None, None, None, None, None, None, None, None, None] + x[..., None]",
    "np.einsum('ij,kl,mn->ijklmn', W1, W1, W1)",
    "np.einsum('bti,btj,btk->ijk', x, h_pre, h_pre)",
    "np.einsum('i,j,k,l->', b1, b1, b1, b1)",
    "x.reshape(10**9, -1)",
    "x.reshape(-1, -1)",
    "10**10**9",
    "9**9**9**9",
    "2**64**64",
    "(2**53) * (2**53)",
    "99999999999999999999999999",
    "1e308 * 1e308 * x",
    "x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x + x" * 3,
    "-" * 290 + "x",
    "(" * 150 + "x" + ")" * 150,
    "x" * 400,
    "np.exp(np.exp(np.exp(x * 1000)))",
    "x / 0",
    "1 / 0",
    "0 ** -1",
    "x[10**9]",
    "x[::0]",
    "h_pre @ h_pre.T @ h_pre @ h_pre.T",
    "np.einsum('bti,btj,btk->ijk', h_pre, h_pre, h_pre)",  # 524,288 products, priced past the cap
    "np.einsum('bti,btj,btk->ijk', h_pre, h_pre, h_pre) * 2 + 1",
    # values that are not numbers, smuggled in through a function (found by a hostile
    # review: each once made an object or string array past every size check)
    "np.transpose((x, None))",
    "np.transpose('abc')",
    "np.transpose(('%99999999d', None))[:1] % 1",
    "np.where(h_pre > 0, np.transpose(('%999999d', None))[:1], 0) % 1",
    "(((np.transpose((2**53, None))[:1] ** 64) ** 64) ** 32 + 1) % 7",
    "np.sum(np.transpose((2**53, None))[:1] ** 64)",
    "np.swapaxes('ab', 0, 0)",
    "('<img src=x onerror=alert(1)>', '[a](javascript:alert(1))')",
    "(" + "h," * 99 + ")",
    "np.transpose('<b>x</b>').astype(float)",
    "x[:0].mean()",
    # look-alike and control characters
    "х @ W1",  # Cyrillic x
    "x @ W１",  # a full-width digit
    "x\u200b @ W1",  # a zero-width space
    "x @ W1\x00",
    "ｎｐ.maximum(h_pre, 0)",  # full-width letters: the parser would read them as np
    "x\n@ W1",
    "x @ W1 # comment\nimport os",
    "float('nan') * x",
    "np.sqrt(-x)",
    "(x > 0) - (x > 0)",
    # costly on some numbers, not for their size (issue 45): fmod over a wide exponent gap,
    # subnormal products, pow, exp and tanh near their edges, NaN in short rows, and
    # einsum's loop over products that stay subnormal
    ATTACK,
    with_terms("dh_pre @ W1.T", MODULO),
    "W1[...,None,None]*1e308//(W1[:6]*1e-310)",
    "(W1[...,None,None]*1e-160)*(W1[:6]*1e-160)",
    with_terms("x @ W1 + b1", "0*((W1[...,None,None]*1e-160)*(W1[:6]*1e-160))[0,0,0,0]"),
    "(W1[...,None,None]*1e-160)*(W1[:6]*1e-160)*(W1[:6]*1e-160)*(W1[:6]*1e-160)",
    "(W1[...,None,None]*1e-310)**(1+W1[:6]*1e-16)",
    "np.abs(x)**np.abs(x)**np.abs(x)**np.abs(x)**np.abs(x)**1e300",
    "np.exp(W1[...,None,None]*0-740+W1[:6])",
    "np.tanh(W1[...,None,None]*1e-310+W1[:6]*1e-310)",
    "np.sqrt(np.abs(W1[...,None,None]*1e-310*W1[:6]))",
    "(W1[...,None,None]*1e308*1e308*0+W1[:6]).reshape(-1,2).max(axis=1)",
    "np.einsum('i,j,k->ijk', b1*1e-160, b1*1e-160, b1)",
    "np.einsum('ij,kl->ijkl', W1[:6]*1e-160, W1[:,:8]*1e-160)",
    "np.einsum('bti,btj,btk,btl->ijkl', x, x, x*1e-160, x*1e-160)",
    "np.einsum('i,i,i,i,i,i,i,i->', b1*1e-160, b1*1e-160, b1, b1, b1, b1, b1, b1)",
    "(W1[:,:,None,None,None,None]*1e-160)@(W1[:6,:,None,None]*1e-160)",
    "np.heaviside(W1[...,None,None]>0, W1[:6]>0)",
]

# Lines that try the gradient check's helpers (ffn_core/exercise/check_lines.py), each
# graded as the line `numeric` or `L_plus`, and each refused.
HOSTILE_CHECK = [
    ("L_plus", "nudge(W1, (10**6, 10**6), eps)"),  # a huge index
    ("L_plus", "nudge(W1, i, 1e300)"),  # a huge shift
    ("L_plus", "nudge(W1[0], i, eps)"),  # a view of a parameter, not the parameter
    ("L_plus", " + ".join(["nudge(W1, i, eps)"] * 6)),  # a loop spelt out
    ("numeric", "sweep(sweep(P))"),  # recursion through the helper
    ("numeric", "sweep(x[..., None] * W1)"),  # a sweep over an array of its own making
    ("numeric", " + ".join(["sweep(P)"] * 6)),
    ("numeric", "sweep(np.zeros_like(P))"),
]


def environment() -> dict:
    """The names a backward line sees on the small batch."""
    inputs = LESSON.inputs()
    return names_before("dx", inputs, reference(inputs), LESSON.sizes)

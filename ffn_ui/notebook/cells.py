"""The cells every page's notebook starts with: NumPy, the model and the tokens as the page
has them, written for a reader, and the FFN's forward pass with its cache.

A notebook holds no code of this app: plain NumPy (and Plotly for its figure), so a learner
runs it anywhere. The arrays are the page's own: random weights and a sentence's tokens
are rebuilt from their recipe (the seed, the words) when the recipe gives exactly the
page's arrays, which keeps a notebook small at any size; small arrays are written out;
anything else (a large upload) travels as a compressed NPZ inside the notebook.
"""

from __future__ import annotations

import base64
import io
import textwrap

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell

from ffn_core.activations import get_activation
from ffn_core.init import init_weights
from ffn_core.tokens import embed_words

WRITTEN_OUT = 400  # numbers an array may have to be written out in the notebook
SILU = "def silu(z):\n    return z / (1.0 + np.exp(-z))"


def md(text: str) -> nbformat.NotebookNode:
    return new_markdown_cell(textwrap.dedent(text).strip())


def code(text: str) -> nbformat.NotebookNode:
    return new_code_cell(textwrap.dedent(text).strip())


def exercise(question: str) -> list[nbformat.NotebookNode]:
    """A section's last two cells: an exercise from the lessons, and a cell left for the
    learner's answer."""
    return [md(f"### Exercise\n{question}"), code("# your code here")]


def literal(array: np.ndarray) -> str:
    """An array as NumPy code that gives it back exactly (repr keeps every digit)."""
    return f"np.array({np.asarray(array, dtype=np.float64).tolist()!r})"


def embedded(arrays: dict[str, np.ndarray]) -> str:
    """Arrays too many to write out, as code that unpacks them from a compressed NPZ."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{n: np.asarray(a, dtype=np.float64) for n, a in arrays.items()})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    unpacked = "".join(f"{n} = packed[{n!r}]  # {a.shape}\n" for n, a in arrays.items())
    return (
        "import base64\nimport io\n\n"
        f'packed = np.load(io.BytesIO(base64.b64decode("{data}")))\n{unpacked}'
    )


def random_recipe(weights: dict[str, np.ndarray], scheme: str, seed: int) -> str | None:
    """Code that draws exactly these weights again, or None if no recipe gives them."""
    gated = "W_gate" in weights
    first = weights["W_gate" if gated else "W1"]
    d_model, d_ff = first.shape
    for name in ("normal", "xavier") if scheme not in ("normal", "xavier") else (scheme,):
        again = init_weights(d_model, d_ff, name, seed, gated)
        if all(np.array_equal(again[k], weights[k]) for k in weights):
            scheme = name
            break
    else:
        return None
    if scheme == "normal":
        matrix = "rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)"
        said = "N(0, 1/fan-in)"
    else:
        matrix = "rng.uniform(-np.sqrt(6 / (fan_in + fan_out)), np.sqrt(6 / (fan_in + fan_out)), (fan_in, fan_out))"  # noqa: E501
        said = "Glorot uniform"
    drawn = (
        "W_gate = matrix(d_model, d_ff)\nW_down = matrix(d_ff, d_model)\n"
        "W_up = matrix(d_model, d_ff)  # drawn after the others"
        if gated
        else "W1 = matrix(d_model, d_ff)\nW2 = matrix(d_ff, d_model)\n"
        "b1 = np.zeros(d_ff)\nb2 = np.zeros(d_model)"
    )
    return (
        f"# random weights, {said}, seed {seed}: the page's own, drawn again\n"
        f"rng = np.random.default_rng({seed})\n\n\n"
        f"def matrix(fan_in, fan_out):\n    return {matrix}\n\n\n{drawn}"
    )


def weights_cell(weights: dict[str, np.ndarray], scheme: str, seed: int) -> str:
    recipe = random_recipe(weights, scheme, seed) if scheme in ("normal", "Xavier") else None
    if recipe:
        return recipe
    return arrays_cell(weights, "the page's weights")


def arrays_cell(arrays: dict[str, np.ndarray], what: str) -> str:
    """Arrays as code: written out when few enough numbers, else packed inside."""
    if sum(a.size for a in arrays.values()) <= WRITTEN_OUT:
        return "\n".join(f"{n} = {literal(a)}  # {a.shape}" for n, a in arrays.items())
    return f"# {what}, packed\n" + embedded(arrays)


def tokens_cell(x: np.ndarray, labels: list[str], words: list[str] | None) -> str:
    """x (T, d_model) as the page has it: from the sentence's words, or written out."""
    if words is not None and np.array_equal(embed_words(words, x.shape[1]), x):
        return (
            "import hashlib\n\n\n"
            "def word_vector(word, d_model):\n"
            "    # one fixed vector per word: a generator seeded by the word's hash\n"
            '    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()\n'
            '    return np.random.default_rng(int.from_bytes(digest, "little"))'
            ".standard_normal(d_model)\n\n\n"
            f"words = {words!r}\n"
            "x = np.array([word_vector(w, d_model) for w in words])  # (T, d_model)\n"
            f"tokens = {labels!r}"
        )
    if x.size <= WRITTEN_OUT:
        return f"x = {literal(x)}  # (T, d_model)\ntokens = {labels!r}"
    return f"{embedded({'x': x})}tokens = {labels!r}"


def model_cells(
    ffn: str,
    weights: dict[str, np.ndarray],
    scheme: str,
    seed: int,
    x: np.ndarray,
    labels: list[str],
    words: list[str] | None,
) -> list[nbformat.NotebookNode]:
    """The model as the page has it, the tokens, and the forward pass with its cache."""
    gated = ffn in ("swiglu", "bilinear")
    first = weights["W_gate" if gated else "W1"]
    d_model, d_ff = first.shape
    cells = [
        md("## The model and the tokens\nThe page's FFN and its input, as arrays."),
        code(f"import json\n\nimport numpy as np\n\nd_model, d_ff = {d_model}, {d_ff}"),
        code(weights_cell(weights, scheme, seed)),
        code(tokens_cell(x, labels, words)),
    ]
    if gated:
        gate = "silu(z_gate)" if ffn == "swiglu" else "z_gate"
        said = (
            "silu(x W_gate) ⊙ (x W_up), then W_down"
            if ffn == "swiglu"
            else ("(x W_gate) ⊙ (x W_up), then W_down: SwiGLU without its SiLU")
        )
        cells += [
            md(f"## The forward pass\nSwiGLU: {said}. The cache keeps what the backward "
               "pass needs."),
            code(f"{SILU}\n\n\ndef ffn_forward(x):\n"
                 "    z_gate = x @ W_gate  # (T, d_ff)\n"
                 "    z_up = x @ W_up  # (T, d_ff)\n"
                 f"    h = {gate} * z_up  # (T, d_ff): what each neuron writes with\n"
                 "    out = h @ W_down  # (T, d_model)\n"
                 "    return out, (z_gate, z_up, h)\n\n\n"
                 "out, (z_gate, z_up, h) = ffn_forward(x)\n"
                 "h_pre = z_gate  # the gate's score: where each neuron opens\n"
                 "print(out.round(6))"),
        ]  # fmt: skip
        return cells
    bend = get_activation(ffn)  # its formula and its code live with the activation
    said, act = f"act(z) = {bend.formula} ({bend.label})", bend.code
    cells += [
        md(f"## The forward pass\nTwo linear layers with {said} between them; the cache "
           "keeps h_pre and h for the backward pass."),
        code(f"{act}\n\n\ndef ffn_forward(x):\n"
             "    h_pre = x @ W1 + b1  # (T, d_ff): each neuron's score\n"
             "    h = act(h_pre)  # (T, d_ff)\n"
             "    out = h @ W2 + b2  # (T, d_model)\n"
             "    return out, (h_pre, h)\n\n\n"
             "out, (h_pre, h) = ffn_forward(x)\nprint(out.round(6))"),
    ]  # fmt: skip
    return cells


def notebook(title: str, cells: list[nbformat.NotebookNode]) -> nbformat.NotebookNode:
    """A notebook: its title, then the cells; Python 3 as its kernel."""
    book = nbformat.v4.new_notebook()
    book.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    book.metadata["language_info"] = {"name": "python"}
    book.cells = [md(f"# {title}\nFrom FFN Explorer: this view, rebuilt in plain NumPy."), *cells]
    nbformat.validate(book)
    return book


def checks_cell(names: dict[str, str]) -> nbformat.NotebookNode:
    """The last cell: the numbers the page showed, printed as JSON (a test reads them)."""
    items = ", ".join(f'"{k}": {v}' for k, v in names.items())
    return code(f"checks = {{{items}}}\nprint(json.dumps(checks))")

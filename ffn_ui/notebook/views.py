"""Each toy page's view as a notebook: the page's central computation in plain NumPy, its
key figure in Plotly, an exercise from the lessons, and the numbers the page showed.

    book = notebook_of(View(page="Neurons", ffn="relu", weights=..., ...))

Every section opens with one sentence saying what it computes. The last cell prints the
page's numbers as JSON (`checks`), which tests/pages/test_notebooks.py compares with the
page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import nbformat
import numpy as np

from ffn_core.activations import ACTIVATIONS, get_activation
from ffn_ui.notebook.cells import (
    SILU,
    arrays_cell,
    checks_cell,
    code,
    exercise,
    md,
    model_cells,
    notebook,
)

Section = tuple[list[nbformat.NotebookNode], dict[str, str]]  # cells, and what `checks` holds


@dataclass(frozen=True)
class View:
    """What a page shows: the sidebar's model and tokens, and the page's own settings."""

    page: str  # the page's name in the menu
    ffn: str  # "relu", "gelu", …, "identity", or "swiglu"
    weights: dict[str, np.ndarray]
    scheme: str  # the sidebar's weights: "normal", "Xavier", "hand-edited", "uploaded"
    seed: int
    x: np.ndarray  # (T, d_model)
    labels: list[str]
    words: list[str] | None  # the sentence's words, when the tokens come from one
    setting: dict = field(default_factory=dict)  # the page's own: a token, a threshold…


def plain(view: View) -> bool:
    return view.ffn not in ("swiglu", "bilinear")


def home(view: View) -> Section:
    """The smallest FFN: two inputs, two neurons whose keys turn, W2 the identity."""
    s = view.setting
    cells = [
        md("## The smallest FFN\nTwo input numbers, two hidden neurons, no biases, W2 the "
           "identity: each neuron's key is a column of W1, at an angle, of length √2."),
        code(f"import numpy as np\nimport json\n\n"
             f"angles = np.radians([{s['k1']}, {s['k2']}])  # each key's angle\n"
             "W1 = np.round(np.sqrt(2) * np.stack([np.cos(angles), np.sin(angles)]), 12) + 0.0\n"
             "W2 = np.eye(2)\n"
             f"x = np.array([{s['x1']!r}, {s['x2']!r}])  # the token"),
        md("## Who fires, and what each writes\nEach neuron scores key · x; ReLU passes a "
           "positive score, and the neuron writes it times its row of W2."),
        code("scores = x @ W1  # (2,)\nh = np.maximum(scores, 0.0)\nfired = scores > 0\n"
             "writes = h[:, None] * W2  # (2, 2): neuron j's write is row j\n"
             "out = writes.sum(axis=0)\nprint('scores', scores, 'fired', fired, 'out', out)"),
        md("## The plane\nEach key as an arrow, the token as a cross."),
        code("import plotly.graph_objects as go\n\nfig = go.Figure()\nfor j in range(2):\n"
             "    fig.add_trace(go.Scatter(x=[0, W1[0, j]], y=[0, W1[1, j]], "
             "name=f'key {j + 1}'))\n"
             "fig.add_trace(go.Scatter(x=[x[0]], y=[x[1]], mode='markers', name='token x'))\n"
             "fig.update_layout(xaxis_range=[-3, 3], yaxis_range=[-3, 3])\nfig.show()"),
        *exercise("Where in the plane does neither neuron fire? Try x = [−2, −2]: "
           "predict the output before you run it."),
    ]  # fmt: skip
    return cells, {"output": "out.tolist()", "fired": "fired.tolist()"}


def fired_section(view: View, threshold: float) -> list[nbformat.NotebookNode]:
    strength = "np.abs(h)" if not plain(view) else "h"
    return [
        md(f"## Who fires\nA neuron fires for a token when what it passes on is above "
           f"{threshold:g}{' in size' if not plain(view) else ''}."),
        code(f"threshold = {threshold!r}\nfired = {strength} > threshold  # (T, d_ff)\n"
             "print('fired per token', fired.sum(axis=1))"),
    ]  # fmt: skip


def neurons(view: View) -> Section:
    threshold = float(view.setting.get("threshold", 0.0))
    cells = [
        *fired_section(view, threshold),
        md("## The figure\nEvery token's activation at every neuron; the cells that fired."),
        code("import plotly.graph_objects as go\n\n"
             "go.Figure(go.Heatmap(z=np.where(fired, h, np.nan), y=tokens)).show()"),
        *exercise("Double d_ff (`d_ff = 2 * d_model` in the lesson's first exercise) "
           "and draw new weights: does the share of neurons that fire change?"),
    ]  # fmt: skip
    return cells, {"fired_per_token": "fired.sum(axis=1).tolist()", "fired": "int(fired.sum())"}


def key_value(view: View) -> Section:
    t = int(view.setting.get("token", 0))
    values = "W2" if plain(view) else "W_down"
    bias = "b2" if plain(view) else "np.zeros(d_model)"
    cells = [
        md(f"## One token's writes\nToken {view.labels[t]}: each neuron writes what it "
           f"passes on times its value, its row of {values}; the output is their sum"
           f"{' plus b2' if plain(view) else ''}."),
        code(f"t = {t}\nwrites = h[t][:, None] * {values}  # (d_ff, d_model)\n"
             f"out_t = writes.sum(axis=0) + {bias}\n"
             "print('the sum of the writes', out_t.round(6))\n"
             "print('the forward pass', out[t].round(6))"),
        md("## The figure\nEach neuron's write, coordinate by coordinate."),
        code("import plotly.graph_objects as go\n\ngo.Figure(go.Heatmap(z=writes)).show()"),
        *exercise("Switch off the neuron that writes most (set its h to 0): how far "
           "does the output move?"),
    ]  # fmt: skip
    return cells, {"output": "out_t.tolist()", "writers": f"int((h[{t}] != 0).sum())"}


def collapse(view: View) -> Section:
    if not plain(view):
        return [md("## Collapse\nSwiGLU multiplies two linear maps: without its SiLU it is "
                   "bilinear, not one matrix (the page shows the best single matrix's gap).")], {}  # fmt: skip  # noqa: E501
    cells = [
        md("## Two matrices become one\nWithout the activation, x @ W1 + b1 then @ W2 + b2 "
           "is x @ W_eff + b_eff."),
        code("W_eff = W1 @ W2  # (d_model, d_model)\nb_eff = b1 @ W2 + b2  # (d_model,)\n"
             "two = (x @ W1 + b1) @ W2 + b2\none = x @ W_eff + b_eff\n"
             "gap = np.abs(two - one).max()\nrank = np.linalg.matrix_rank(W_eff)\n"
             "print('largest difference without an activation', gap, 'rank', rank)"),
        md("## With the activation back\nThe FFN's own output against the one matrix."),
        code("gap_act = np.abs(out - one).max()\nprint('with the activation', gap_act)"),
        *exercise("Check (x A) B = x (A B) for a random A and B of your own shapes."),
    ]  # fmt: skip
    return cells, {"gap": "float(gap)", "gap_act": "float(gap_act)", "rank": "int(rank)"}


def backprop(view: View) -> Section:
    if not plain(view):
        return [md("## Backprop\nThis notebook writes the plain FFN's backward pass.")], {}
    seed = int(view.setting.get("seed", 0))
    cells = [
        md("## The backward pass\nFrom dout back through W2, the activation's slope and "
           "W1: each gradient has the shape of its quantity."),
        code(f"G = np.random.default_rng({seed}).standard_normal(out.shape)  # dout\n\n\n"
             f"{get_activation(view.ffn).slope_code}\n\n\n"
             "def ffn_backward(dout, h_pre, h):\n"
             "    dW2 = h.T @ dout  # (d_ff, d_model)\n    db2 = dout.sum(axis=0)\n"
             "    dh = dout @ W2.T  # (T, d_ff)\n"
             "    dh_pre = dh * act_slope(h_pre)  # through the activation\n"
             "    dW1 = x.T @ dh_pre  # (d_model, d_ff)\n    db1 = dh_pre.sum(axis=0)\n"
             "    dx = dh_pre @ W1.T  # (T, d_model)\n    return dx, dW1, db1, dW2, db2\n\n\n"
             "dx, dW1, db1, dW2, db2 = ffn_backward(G, h_pre, h)"),
        md("## The gradient check\nEvery entry nudged by ±ε in float64, the centred "
           "difference against the backward pass: the worst relative error of each."),
        code("params = {'W1': W1, 'b1': b1, 'W2': W2, 'b2': b2, 'x': x}\n"
             "grads = {'W1': dW1, 'b1': db1, 'W2': dW2, 'b2': db2, 'x': dx}\n\n\n"
             "def loss():\n    out, _ = ffn_forward(params['x'])\n"
             "    return np.sum(out * G)\n\n\n"
             "def worst(name, eps=1e-6):\n    P = params[name]\n"
             "    numeric = np.zeros(P.size)\n"
             "    for k, i in enumerate(np.ndindex(P.shape)):\n"
             "        old = P[i]\n        P[i] = old + eps\n        plus = loss()\n"
             "        P[i] = old - eps\n        minus = loss()\n        P[i] = old\n"
             "        numeric[k] = (plus - minus) / (2 * eps)\n"
             "    a = grads[name].reshape(-1)\n"
             "    return float((np.abs(a - numeric) / np.maximum(np.abs(a) + "
             "np.abs(numeric), 1e-12)).max())\n\n\n"
             "errors = {name: worst(name) for name in params}  # each nudged and restored\n"
             "print(errors)"),
        *exercise("Run the check in float32 (`astype(np.float32)` on every array): "
           "how large do the errors grow, and which ε works best then?"),
    ]  # fmt: skip
    return cells, {"errors": "errors"}


def position_wise(view: View) -> Section:
    cells = [
        md("## The same FFN at every token\nEach token run through the FFN alone gives "
           "its row of the whole batch's output."),
        code("alone = np.stack([ffn_forward(x[t : t + 1])[0][0] for t in range(len(x))])\n"
             "moved = np.abs(alone - out).max()\nprint('largest difference', moved)"),
        *exercise("Change one token's vector: which rows of the output move?"),
    ]  # fmt: skip
    return cells, {"moved": "float(moved)"}


def renamed(name: str) -> str:
    """An activation's notebook code with its two functions named for it: act_relu, slope_relu."""
    bend = get_activation(name)
    return f"{bend.code}\n\n\n{bend.slope_code}".replace("def act(", f"def act_{name}(").replace(
        "def act_slope(", f"def slope_{name}("
    )


def activations(view: View) -> Section:
    """Every activation on the page's scores: what each passes on, and its dead neurons."""
    scores = "x @ W1 + b1" if plain(view) else "x @ W_gate  # the gate's scores"
    bends = ", ".join(f"{a.label!r}: (act_{a.name}, slope_{a.name})" for a in ACTIVATIONS.values())
    cells = [
        md("## Every activation on the same scores\nThe page's scores through each "
           "activation: the share of hidden values above 0, exactly 0 and below 0, and the "
           "dead neurons, whose slope is 0 at every token, so no gradient reaches their key."),
        code("\n\n\n".join(renamed(name) for name in ACTIVATIONS) + "\n\n\n"
             f"bends = {{{bends}}}\nscores = {scores}  # (T, d_ff)\ndead = {{}}\n"
             "for name, (act, slope) in bends.items():\n    h = act(scores)\n"
             "    dead[name] = int(np.all(slope(scores) == 0, axis=0).sum())\n"
             "    print(f'{name:13} above 0 {np.mean(h > 0):4.0%}, exactly 0 "
             "{np.mean(h == 0):4.0%}, below 0 {np.mean(h < 0):4.0%}, dead {dead[name]}')"),
        md("## The figure\nEach activation's curve over z from −4 to 4."),
        code("import plotly.graph_objects as go\n\nz = np.linspace(-4, 4, 401)\n"
             "go.Figure([go.Scatter(x=z, y=act(z), name=name) "
             "for name, (act, _) in bends.items()]).show()"),
        *exercise("With one token and d_ff = 64, how many neurons are dead under ReLU, "
           "and under GELU? Why does GELU leave almost none?"),
    ]  # fmt: skip
    return cells, {"dead": "dead"}


def traps(view: View) -> Section:
    """The by-hand FFN on flat lists, with the right strides and with W1's stride for W2."""
    s = view.setting
    lists = "\n".join(f"{name} = {s['case'][name]!r}" for name in ("x", "W1", "b1", "W2", "b2"))
    cells = [
        md("## The FFN by hand, on flat lists\nIn the W @ x convention W1 is H × D and W2 "
           "is D × H, each stored flat, one row after another: row i of W1 starts at i·D, "
           "row i of W2 at i·H."),
        code(f"import json\n\nD, H = {s['D']}, {s['H']}\n{lists}\n\n\n"
             "def ffn(x, W1, b1, W2, b2, stride2):\n"
             "    h = [max(0.0, sum(W1[i * D + j] * x[j] for j in range(D)) + b1[i]) "
             "for i in range(H)]\n"
             "    return [sum(W2[i * stride2 + j] * h[j] for j in range(H)) + b2[i] "
             "for i in range(D)]\n\n\n"
             "right = ffn(x, W1, b1, W2, b2, H)  # W2's own stride\n"
             "try:\n    wrong = ffn(x, W1, b1, W2, b2, D)  # W1's stride, by mistake\n"
             "except IndexError as error:\n    wrong = f'IndexError: {error}'\n"
             "print('right', right, 'one stride', wrong)"),
        *exercise("Find a D and H where the one-stride version gives the right answer "
           "by luck, and one where it crashes. What does a square test (D = H) tell you?"),
    ]  # fmt: skip
    return cells, {"right": "right", "wrong": "wrong"}


def mixture_of_experts(view: View) -> Section:
    """The router's top-k choice per token, and the layer's output as the gated sum of the
    chosen experts' outputs."""
    s = view.setting
    experts, gated = s["experts"], not plain(view)
    arrays = {"x": s["x"], "W_router": s["router"], "b_router": s["bias"]}
    for e, weights in enumerate(experts):
        arrays |= {f"{name}_{e}": array for name, array in weights.items()}
    names = ("W_gate", "W_up", "W_down") if gated else ("W1", "b1", "W2", "b2")
    listed = ", ".join(f"{n}_{{e}}" for n in names)
    if gated:
        expert = (
            f"{SILU}\n\n\ndef expert(e, x):\n"
            "    W_gate, W_up, W_down = (globals()[f'{n}_{e}'] for n in "
            "('W_gate', 'W_up', 'W_down'))\n"
            "    return (silu(x @ W_gate) * (x @ W_up)) @ W_down"
        )
    else:
        expert = (
            f"{get_activation(view.ffn).code}\n\n\ndef expert(e, x):\n"
            "    W1, b1, W2, b2 = (globals()[f'{n}_{e}'] for n in ('W1', 'b1', 'W2', 'b2'))\n"
            "    return act(x @ W1 + b1) @ W2 + b2"
        )
    cells = [
        md(f"## The router and the experts\n{len(experts)} experts, each a whole FFN "
           f"({listed}), and a router, a linear map from a token to one score per expert."),
        code(f"import json\n\nimport numpy as np\n\nk = {s['k']}\n"
             + arrays_cell(arrays, "the page's router and experts")),
        md("## Routing\nEach token's scores through a softmax; it goes to its k likeliest "
           "experts, whose outputs are summed, weighted by their probabilities rescaled to "
           "add up to 1."),
        code(f"{expert}\n\n\nscores = x @ W_router + b_router  # (T, E)\n"
             "probs = np.exp(scores - scores.max(axis=1, keepdims=True))\n"
             "probs /= probs.sum(axis=1, keepdims=True)\n"
             "chosen = np.argsort(-probs, axis=1, kind='stable')[:, :k]  # (T, k)\n"
             "gates = np.take_along_axis(probs, chosen, axis=1)\n"
             "gates /= gates.sum(axis=1, keepdims=True)\n"
             "out = np.zeros_like(x)\nfor t in range(len(x)):\n"
             "    for slot, e in enumerate(chosen[t]):\n"
             "        out[t] += gates[t, slot] * expert(e, x[t : t + 1])[0]\n"
             "print('experts per token', (chosen + 1).tolist())"),
        md("## The figure\nEach token's router probabilities."),
        code("import plotly.graph_objects as go\n\ngo.Figure(go.Heatmap(z=probs)).show()"),
        *exercise("Raise expert 1's router bias (b_router[0]) until it gets every "
           "token: what happens to the load on the others?"),
    ]  # fmt: skip
    return cells, {"chosen": "chosen.tolist()", "out": "out.tolist()"}


def build_it(view: View) -> Section:
    """The learner's own lines, those the page graded right, run in order on the page's
    arrays; a line not yet right is left for the learner, named by what it computes."""
    s = view.setting
    arrays, sizes, lines = s["arrays"], s["sizes"], s["lines"]  # lines: every step, in order
    written = "\n".join(
        f"{name} = {text}" if right else f"# {name} = ...  # yours to write: {about}"
        for name, (text, right, about) in lines.items()
    )
    done = [name for name, (_, right, _) in lines.items() if right]
    cells = [
        md("## The arrays\nThe page's batch and weights: B sequences of T tokens, each C "
           "numbers wide, and H hidden neurons; dout is the loss's gradient at the output."),
        code("import json\n\nimport numpy as np\n\n"
             + ", ".join(sizes) + " = " + ", ".join(str(v) for v in sizes.values()) + "\n"
             + arrays_cell(arrays, "the page's arrays") + "\n\n\n"
             "def relu(a):\n    return np.maximum(a, 0)"),
        md("## Your lines\nEach line you wrote on the page and it graded right, as you typed "
           "it; the others are left for you."),
        code(written),
        *exercise("Write the lines still left, then check your dW1 against centred "
           "differences of the loss L = (out * dout).sum()."),
    ]  # fmt: skip
    each = f"for n in {done!r}}}"
    return cells, {"shapes": "{n: list(np.shape(globals()[n])) " + each,
                   "sums": "{n: float(np.sum(globals()[n])) " + each}  # fmt: skip


def memory_lab(view: View) -> Section:
    """The trained fact store: each subject's output read out against every word, the
    facts it recalls, and one fact's score split neuron by neuron."""
    s = view.setting
    arrays = {**s["weights"], "E": s["E"], "X": s["X"], "objects": s["objects"]}
    facts = [f"{a} → {b}" for a, b in s["facts"]]
    cells = [
        md("## The fact store, as the page trained it\nE holds one unit vector per word "
           "of the vocabulary, X the subjects' vectors; FFN(subject) read out against E "
           "scores every word, and a fact is recalled when its object scores highest."),
        code("import json\n\nimport numpy as np\n\n"
             + arrays_cell(arrays, "the page's trained weights and word vectors")
             + f"\nobjects = objects.astype(int)\nfacts = {facts!r}"),
        code(f"{get_activation(s['act']).code}\n\n\n"
             "h = act(X @ W1 + b1)  # (F, d_ff)\nout = h @ W2 + b2  # (F, d_model)\n"
             "scores = out @ E.T  # (F, V): every subject against every word\n"
             "recalled = scores.argmax(axis=1) == objects\n"
             "print(f'facts recalled: {recalled.sum()} of {len(recalled)}')"),
        md("## Where the first fact lives\nIts object's score is b2 · e_object plus one "
           "share per neuron: h_j times neuron j's value row W2[j] against e_object."),
        code("shares = h[0] * (W2 @ E[objects[0]])  # (d_ff,)\n"
             "print(facts[0], 'score', scores[0, objects[0]].round(6), '=', "
             "(shares.sum() + b2 @ E[objects[0]]).round(6))\n"
             "print('largest shares', np.sort(shares)[::-1][:5].round(4))"),
        md("## The figure\nEach neuron's share of the first fact's score."),
        code("import plotly.graph_objects as go\n\ngo.Figure(go.Bar(y=shares)).show()"),
        *exercise("Switch off the five neurons with the largest shares (set their h "
           "to 0): is the first fact still recalled? And the others?"),
    ]  # fmt: skip
    return cells, {"recalled": "int(recalled.sum())", "shares": "shares.tolist()"}


SECTIONS: dict[str, Callable[[View], Section]] = {
    "Home": home,
    "Neurons": neurons,
    "Key–value memory": key_value,
    "Collapse": collapse,
    "Backprop": backprop,
    "Position-wise": position_wise,
    "Activations": activations,
    "Traps": traps,
    "Mixture of experts": mixture_of_experts,
    "Build it": build_it,
    "Memory lab": memory_lab,
}
OWN_EXAMPLE = (
    "Home",
    "Traps",
    "Mixture of experts",
)  # pages whose example is their own, not the sidebar's model


def notebook_of(view: View) -> nbformat.NotebookNode:
    """The page's view as a notebook."""
    section = SECTIONS[view.page]
    cells, checks = section(view)
    if view.page not in OWN_EXAMPLE:
        cells = [
            *model_cells(view.ffn, view.weights, view.scheme, view.seed, view.x,
                         view.labels, view.words),
            *cells,
        ]  # fmt: skip
    checks = checks if view.page in OWN_EXAMPLE else {"output_all": "out.tolist()", **checks}
    return notebook(f"{view.page}, as the page showed it", [*cells, checks_cell(checks)])

"""Write smollm_reference.npz: SmolLM2-135M-Instruct as Hugging Face transformers runs it.

The tests compare our NumPy decoder with these figures, computed by an independent
implementation: transformers' LlamaForCausalLM in PyTorch, which reads the same GGUF file
with `gguf_file=` (it dequantises the weights itself and undoes llama.cpp's row order for
the rotary embedding). None of this is a dependency of the project; run it by hand in a
separate environment:

    python -m venv --system-site-packages /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 transformers==5.24.0 accelerate==1.15.0 gguf==0.19.0
    PYTHONPATH=. /tmp/refvenv/bin/python tests/data/make_smollm_reference.py
"""

import json
from pathlib import Path

import numpy as np
import torch
from transformers import AutoTokenizer, LlamaForCausalLM

from ffn_core.models.smollm.files import find_smollm_file

# Token ids only: digits, accents, emoji, code, white space and chat markup.
TOKEN_TEXTS = [
    "In 2024, 3.14159 and 1,000,000 are numbers.",
    "Café, naïve, Ångström and Zürich.",
    "Emoji: 🙂🚀 and ☕!",
    "def f(x):\n    return x**2  # square\n",
    "  two leading spaces,\ttab,\n\nand blank lines  ",
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
]
# The whole forward pass: every block's numbers at the last position.
RUN_TEXT = "The capital of France is"
EDIT = {"layer": 20, "neurons": [3, 77, 1000], "scale": 0.0}  # switched off everywhere
TOP = 5


def main() -> None:
    path = find_smollm_file()
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = LlamaForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, torch_dtype=torch.float32
    ).eval()
    ids = {text: tokenizer(text, add_special_tokens=False)["input_ids"] for text in TOKEN_TEXTS}

    captured: dict[str, list] = {"gate": [], "up": [], "act": []}
    for layer in model.model.layers:
        mlp = layer.mlp
        mlp.gate_proj.register_forward_hook(lambda _m, _i, out: captured["gate"].append(out[0, -1]))
        mlp.up_proj.register_forward_hook(lambda _m, _i, out: captured["up"].append(out[0, -1]))
        mlp.down_proj.register_forward_pre_hook(lambda _m, i: captured["act"].append(i[0][0, -1]))

    batch = tokenizer(RUN_TEXT, return_tensors="pt", add_special_tokens=False)
    with torch.no_grad():
        out = model(**batch, output_hidden_states=True)
    # transformers' last hidden state is after the final norm; ours is before it.
    states = torch.stack(out.hidden_states[:-1])[
        :, 0
    ]  # (30, T, 576): embeddings .. block 29's input

    def switch_off(_module, inputs):
        x = inputs[0].clone()
        x[..., EDIT["neurons"]] *= EDIT["scale"]
        return (x,)

    handle = model.model.layers[EDIT["layer"]].mlp.down_proj.register_forward_pre_hook(switch_off)
    with torch.no_grad():
        edited = model(**batch).logits[0, -1]
    handle.remove()

    logits = out.logits[0, -1]
    target = Path(__file__).with_name("smollm_reference.npz")
    np.savez_compressed(
        target,
        token_texts=np.array(json.dumps(ids)),
        run_ids=batch["input_ids"][0].numpy(),
        hidden_states=states.numpy().astype(np.float32),
        gate=torch.stack(captured["gate"][:30]).numpy(),
        up=torch.stack(captured["up"][:30]).numpy(),
        act=torch.stack(captured["act"][:30]).numpy(),
        logits=logits.numpy(),
        top=torch.topk(logits, TOP).indices.numpy(),
        edit=np.array(json.dumps(EDIT)),
        edited_logits=edited.numpy(),
        edited_top=torch.topk(edited, TOP).indices.numpy(),
    )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()

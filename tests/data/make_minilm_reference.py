"""Write minilm_reference.json: all-MiniLM-L6-v2 as Hugging Face transformers runs it.

The tests compare our NumPy encoder with these figures, computed by an independent
implementation: transformers' BertModel in PyTorch, with its pure-Python BertTokenizer.
Neither is a dependency of the project; run this by hand where both are installed:

    python -m pip install torch transformers
    PYTHONPATH=. python tests/data/make_minilm_reference.py
"""

import json
from pathlib import Path

import torch
from transformers import BertModel, BertTokenizer

from ffn_core.models.minilm.files import find_model_dir

SENTENCES = [
    "The cat sat on the mat.",
    "A man is playing a guitar on a quiet street corner at night.",
    "Unbelievably, the photosynthesis experiment worked on Tuesday!",
    "Paris is the capital of France.",
]
TOKEN = 2  # the position whose FFN activations are pinned, in every layer
TOP = 8


def main() -> None:
    folder = find_model_dir()
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), do_lower_case=True)
    model = BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    captured = []
    for layer in model.encoder.layer:
        layer.intermediate.register_forward_hook(lambda _m, _i, out: captured.append(out[0]))
    cases = []
    for text in SENTENCES:
        captured.clear()
        batch = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            out = model(**batch, output_hidden_states=True)
        states = torch.stack(out.hidden_states)[:, 0]  # (7, T, 384)
        pooled = states[-1].mean(dim=0)
        embedding = pooled / pooled.norm()
        top = [torch.topk(act[TOKEN], TOP) for act in captured]  # per layer, (T, 1536) each
        cases.append(
            {
                "text": text,
                "tokens": tokenizer.convert_ids_to_tokens(batch["input_ids"][0]),
                "embedding": [round(v, 7) for v in embedding.tolist()],
                "state_norms": [[round(v, 5) for v in row] for row in states.norm(dim=-1).tolist()],
                "top_neurons": [t.indices.tolist() for t in top],
                "top_values": [[round(v, 6) for v in t.values.tolist()] for t in top],
            }
        )
    target = Path(__file__).with_name("minilm_reference.json")
    target.write_text(json.dumps({"token": TOKEN, "cases": cases}, indent=1) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()

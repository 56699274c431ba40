"""The two real models, run by this project's own NumPy code.

minilm/    all-MiniLM-L6-v2, a BERT-style encoder with GELU FFNs (the Real model page)
smollm/    SmolLM2-135M, a Llama-style decoder with SwiGLU FFNs (the Language model page)
edits.py   one Edit (scale a neuron) and one RankOneEdit (rewrite a fact), for both
sources.py the PyPI wheel each model comes in, pinned
limits.py  how much text a visitor's run may hold
"""

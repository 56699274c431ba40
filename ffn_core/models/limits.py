"""What one visitor's text may cost a real model: the caps both models' pages share.

A run's numbers grow with the tokens (a MiniLM trace keeps about 0.1 MB a token, a SmolLM
trace about 0.75 MB), and pages cache a few runs, so the text is capped twice: in
characters as it is typed, then in tokens, since 200 characters of punctuation would be
200 tokens.
"""

MAX_TOKENS = 64  # MiniLM keeps the first 64 ([CLS] and [SEP] included), SmolLM the last 64
MINILM_MAX_CHARS = 200  # a sentence or two: about 50 tokens, every figure stays readable
SMOLLM_MAX_CHARS = 300  # a prompt, not a document

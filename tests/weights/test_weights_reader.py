"""symrmt.weights.read_weights: both layouts, the zip, and every refusal of a bad or hostile file."""
from __future__ import annotations

import json
import pickle
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("safetensors")

from symrmt.errors import ParameterError, SymrmtInputError
from symrmt.weights import read_weights
from symrmt.weights.header import MAX_HEADER_BYTES

from .files import bert_tensors, gpt2_tensors, write, write_raw, write_zip

BERT_CONFIG = {"num_attention_heads": 2, "hidden_size": 8}


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_bert_file_reads_query_and_key_as_written(tmp_path, rng):
    tensors = bert_tensors(rng, prefix="bert.encoder.")
    w = read_weights(write(tmp_path / "m.safetensors", tensors, BERT_CONFIG))
    assert (w.layout, w.p, w.num_heads, w.head_dim, len(w.layers)) == ("bert", 8, 2, 4, 2)
    for layer in w.layers:
        key = f"bert.encoder.layer.{layer.layer}.attention.self."
        np.testing.assert_array_equal(layer.query_weight, tensors[key + "query.weight"])
        np.testing.assert_array_equal(layer.key_bias, tensors[key + "key.bias"])
        assert layer.query_weight.dtype == np.float64


def test_gpt2_conv1d_is_transposed_and_split(tmp_path, rng):
    """The model computes q = x @ W[:, :p] + b[:p]: the reader's W_Q x + b_Q must give the same scores."""
    tensors = gpt2_tensors(rng)
    w = read_weights(write(tmp_path / "g.safetensors", tensors, {"n_head": 2, "n_embd": 8}), layers=[1])
    assert (w.layout, w.p, w.num_heads, [l.layer for l in w.layers]) == ("gpt2", 8, 2, [1])
    W, b = tensors["h.1.attn.c_attn.weight"].astype(float), tensors["h.1.attn.c_attn.bias"].astype(float)
    x, x_key = rng.standard_normal(8), rng.standard_normal(8)
    qkv_query, qkv_key = x @ W + b, x_key @ W + b                 # what GPT-2's Conv1D computes
    layer = w.layers[0]
    np.testing.assert_allclose(layer.query_weight @ x + layer.query_bias, qkv_query[:8], rtol=1e-12)
    np.testing.assert_allclose(layer.key_weight @ x_key + layer.key_bias, qkv_key[8:16], rtol=1e-12)


def test_zip_member_matches_the_plain_file(tmp_path, rng):
    tensors = bert_tensors(rng)
    plain = write(tmp_path / "model.safetensors", tensors, BERT_CONFIG)
    archive = write_zip(tmp_path / "model.zip", {"model.safetensors": plain.read_bytes(),
                                                 "config.json": json.dumps(BERT_CONFIG).encode()})
    a, b = read_weights(plain), read_weights(archive)
    assert b.source.endswith("model.zip") and b.num_heads == 2
    for la, lb in zip(a.layers, b.layers):
        np.testing.assert_array_equal(la.key_weight, lb.key_weight)
        np.testing.assert_array_equal(la.query_bias, lb.query_bias)


def test_heads_given_without_config(tmp_path, rng):
    path = write(tmp_path / "m.safetensors", bert_tensors(rng))
    with pytest.raises(ParameterError, match="num_heads"):
        read_weights(path)
    assert read_weights(path, num_heads=4).head_dim == 2
    with pytest.raises(ParameterError, match="dividing p = 8"):
        read_weights(path, num_heads=3)


def test_float16_is_read(tmp_path, rng):
    tensors = {k: v.astype(np.float16) for k, v in bert_tensors(rng).items()}
    w = read_weights(write(tmp_path / "m.safetensors", tensors), num_heads=2)
    np.testing.assert_array_equal(w.layers[0].query_weight, tensors["encoder.layer.0.attention.self.query.weight"])


# ------------------------------------------------------------------------------------------ refusals

def _refused(path, match, **kwargs):
    """The refusal is a SymrmtInputError with a one-line message matching ``match``."""
    with pytest.raises(SymrmtInputError, match=match) as info:
        read_weights(path, **kwargs)
    assert "\n" not in str(info.value)
    return info.value


def _valid_bytes(rng, tensors=None) -> bytes:
    import safetensors.numpy

    return safetensors.numpy.save(tensors or bert_tensors(rng))


def test_truncated_data(tmp_path, rng):
    data = _valid_bytes(rng)
    path = tmp_path / "cut.safetensors"
    path.write_bytes(data[:-100])
    _refused(path, "truncated", num_heads=2)


def test_truncated_inside_the_length(tmp_path):
    path = tmp_path / "tiny.safetensors"
    path.write_bytes(b"\x10\x00\x00")
    _refused(path, "too short")


def test_header_length_beyond_the_file(tmp_path, rng):
    data = _valid_bytes(rng)
    n = int.from_bytes(data[:8], "little")
    path = tmp_path / "long.safetensors"
    path.write_bytes((len(data) - 8 + 1).to_bytes(8, "little") + data[8:])
    _refused(path, "runs past the end")
    path.write_bytes((MAX_HEADER_BYTES + 1).to_bytes(8, "little") + data[8:])
    _refused(path, "outside 2..")
    assert n < MAX_HEADER_BYTES


def test_wrong_dtype(tmp_path, rng):
    tensors = bert_tensors(rng)
    tensors["encoder.layer.1.attention.self.key.weight"] = np.ones((8, 8), dtype=np.int32)
    _refused(write(tmp_path / "int.safetensors", tensors), "key.weight' has dtype I32", num_heads=2)


def test_bfloat16_says_how_to_convert(tmp_path, rng):
    tensors = bert_tensors(rng, layers=1)
    header, offset, chunks = {}, 0, []
    for name, array in tensors.items():
        raw = array.astype(np.float32).view(np.uint16)[..., 1::2].tobytes()   # the high halves: bfloat16
        header[name] = {"dtype": "BF16", "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    _refused(write_raw(tmp_path / "bf16.safetensors", header, b"".join(chunks)), "bfloat16", num_heads=2)


def test_missing_key(tmp_path, rng):
    tensors = bert_tensors(rng, layers=3)
    del tensors["encoder.layer.1.attention.self.key.weight"]
    _refused(write(tmp_path / "m.safetensors", tensors), "missing key 'encoder.layer.1.attention.self.key.weight'",
             num_heads=2)


def test_wrong_shape(tmp_path, rng):
    tensors = bert_tensors(rng)
    tensors["encoder.layer.0.attention.self.key.weight"] = np.ones((8, 4), dtype=np.float32)
    _refused(write(tmp_path / "m.safetensors", tensors), r"has shape \[8, 4\]", num_heads=2)


def test_huge_claimed_shape_is_refused_before_allocation(tmp_path):
    """A header claiming 2^62 floats: refused from the header, with a small peak of memory."""
    big = 2**31
    header = {"encoder.layer.0.attention.self.query.weight": {"dtype": "F32", "shape": [big, big],
                                                              "data_offsets": [0, 64]},
              "encoder.layer.0.attention.self.key.weight": {"dtype": "F32", "shape": [4, 4],
                                                            "data_offsets": [64, 128]}}
    path = write_raw(tmp_path / "huge.safetensors", header, bytes(128))
    tracemalloc.start()
    _refused(path, "claims shape", num_heads=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**22                                     # far below the 2^64 bytes claimed
    # the consistent claim: offsets that span the huge shape run past the end of the file
    header["encoder.layer.0.attention.self.query.weight"]["data_offsets"] = [0, 4 * big * big]
    header["encoder.layer.0.attention.self.key.weight"]["data_offsets"] = [4 * big * big, 4 * big * big + 64]
    _refused(write_raw(tmp_path / "huge2.safetensors", header, bytes(128)), "truncated", num_heads=1)


def test_deeply_nested_json(tmp_path):
    header = b'{"a": ' + b"[" * 100000 + b"]" * 100000 + b"}"
    with pytest.raises(RecursionError):                       # what an unchecked json.loads does with it
        json.loads(header)
    _refused(write_raw(tmp_path / "deep.safetensors", header), "nests 100001 levels")


def test_duplicate_keys_and_nan(tmp_path):
    entry = '{"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}'
    _refused(write_raw(tmp_path / "dup.safetensors", f'{{"x": {entry}, "x": {entry}}}'.encode(), bytes(4)),
             "repeated key 'x'")
    _refused(write_raw(tmp_path / "nan.safetensors", b'{"x": NaN}'), "not valid JSON")


def test_overlapping_tensors(tmp_path):
    entry = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    _refused(write_raw(tmp_path / "overlap.safetensors", {"a": entry, "b": entry}, bytes(8)), "overlaps")


def test_unknown_layout_lists_the_keys(tmp_path, rng):
    tensors = {"encoder.block.0.attn.q.weight": np.ones((2, 2), np.float32),
               "encoder.block.0.attn.k.weight": np.ones((2, 2), np.float32)}
    error = _refused(write(tmp_path / "t5.safetensors", tensors), "neither the BERT")
    assert "encoder.block.0.attn.k.weight" in str(error) and "encoder.block.0.attn.q.weight" in str(error)


def test_non_finite_weights(tmp_path, rng):
    tensors = bert_tensors(rng)
    tensors["encoder.layer.0.attention.self.query.weight"][2, 3] = np.nan
    _refused(write(tmp_path / "nan.safetensors", tensors), "non-finite", num_heads=2)


def test_config_of_another_model(tmp_path, rng):
    path = write(tmp_path / "m.safetensors", bert_tensors(rng), {"num_attention_heads": 2, "hidden_size": 16})
    _refused(path, "hidden_size = 16")


def test_zip_with_two_safetensors_and_truncated_zip(tmp_path, rng):
    data = _valid_bytes(rng)
    _refused(write_zip(tmp_path / "two.zip", {"a.safetensors": data, "b.safetensors": data}), "exactly one")
    whole = write_zip(tmp_path / "one.zip", {"model.safetensors": data}).read_bytes()
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole[: len(whole) // 2])                  # no central directory left: not a zip any more
    _refused(cut, "not a safetensors file")
    damaged = bytearray(whole)
    start = whole.index(b"model.safetensors") + len("model.safetensors") + 40
    damaged[start:start + 16] = bytes(16)                      # the deflated data, after its header's first bytes
    bad = tmp_path / "damaged.zip"
    bad.write_bytes(bytes(damaged))
    _refused(bad, "cannot be read", num_heads=2)


def test_a_pickle_is_data_not_code(tmp_path):
    """A pickle whose loading would write a file: refused as not safetensors, and the file never appears."""
    marker = tmp_path / "executed"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "pytorch_model.bin"
    path.write_bytes(pickle.dumps(Payload()))
    _refused(path, "not a safetensors file|truncated|not safetensors")
    assert not marker.exists()


def test_missing_file(tmp_path):
    _refused(tmp_path / "nope.safetensors", "no such file")


def test_layers_out_of_range(tmp_path, rng):
    path = write(tmp_path / "m.safetensors", bert_tensors(rng), BERT_CONFIG)
    with pytest.raises(ParameterError, match=r"layer 2: the file has 2 layers \(0-1\)"):
        read_weights(path, layers=[2])

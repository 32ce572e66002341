"""Hostile weight files: escaped names, zips that cannot be read, a safetensors file holding a zip, huge entries,
small models and many layers (category "weight files" of the hostile-input suite).

Each file is built in the test's folder by its case's setup; every case asserts the exit status, the one
stderr line (printable: no raw escape sequence or control character reaches the terminal) and the files.
"""
from __future__ import annotations

import io
import json
import pathlib
import zipfile

import numpy as np
import pytest

pytest.importorskip("safetensors")

from symrmt.weights import read_weights
from symrmt.weights.reader import MAX_ENTRY

from weights.files import bert_tensors, gpt2_tensors, write, write_raw, write_zip
from .harness import Case, run_case


def _bert(folder: pathlib.Path, name: str = "m.safetensors", p: int = 8, layers: int = 2,
          dtype=np.float32, **extra) -> pathlib.Path:
    tensors = {k: v.astype(dtype) for k, v in bert_tensors(np.random.default_rng(0), p, layers).items()}
    return write(folder / name, {**tensors, **extra})


def _bert_bytes(p: int = 8, layers: int = 2) -> bytes:
    from safetensors.numpy import save

    return save(bert_tensors(np.random.default_rng(1), p, layers))


def _escaped_keys(folder):
    write_raw(folder / "m.safetensors", {"\x1b[31mred": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                                         "a\u202eb\x07": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}},
              b"\0\0")


def _escaped_member(folder):
    write_zip(folder / "m.zip", {"model\x1b[2J.safetensors": b"\x05\0\0\0\0\0\0\0{}"})


def _patched_zip(folder, method: int | None = None, encrypted: bool = False):
    """A stored zip of a valid safetensors file, its member's compression method or encryption flag patched."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("model.safetensors", _bert_bytes())
    data = bytearray(buffer.getvalue())
    for signature, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):   # local header, central directory
        at = data.index(signature)
        if encrypted:
            data[at + flag_at] |= 0x1
        if method is not None:
            data[at + flag_at + 2:at + flag_at + 4] = method.to_bytes(2, "little")
    (folder / "m.zip").write_bytes(bytes(data))


def _huge(value: float):
    def setup(folder):
        tensors = bert_tensors(np.random.default_rng(0), 8, 1)
        tensors = {k: v.astype(np.float64) for k, v in tensors.items()}
        tensors["encoder.layer.0.attention.self.query.weight"][3, 4] = value
        write(folder / "m.safetensors", tensors, {"num_attention_heads": 2, "hidden_size": 8})
    return setup


def _gpt2_huge(folder, value: float):
    tensors = {k: v.astype(np.float64) for k, v in gpt2_tensors(np.random.default_rng(0), 8, 1).items()}
    tensors["h.0.attn.c_attn.weight"][0, 9] = value           # a key column
    write(folder / "m.safetensors", tensors)


def _many_layers(folder):
    _bert(folder, p=4, layers=60)


CASES = [
    Case("keys-with-escape-sequences", ["weights", "{tmp}/m.safetensors"], r"\x1b[31mred", setup=_escaped_keys,
         kept=["m.safetensors"]),
    Case("zip-member-with-escape-sequence", ["weights", "{tmp}/m.zip"], r"model\x1b[2J.safetensors",
         setup=_escaped_member, kept=["m.zip"]),
    Case("zip-encrypted", ["weights", "{tmp}/m.zip"], "encrypted", setup=lambda f: _patched_zip(f, encrypted=True),
         kept=["m.zip"]),
    Case("zip-method-9-deflate64", ["weights", "{tmp}/m.zip"], "method 9 (deflate64)",
         setup=lambda f: _patched_zip(f, method=9), kept=["m.zip"]),
    Case("zip-method-99-aes", ["weights", "{tmp}/m.zip"], "method 99", setup=lambda f: _patched_zip(f, method=99),
         kept=["m.zip"]),
    Case("entries-1e200", ["weights", "{tmp}/m.safetensors"], "entries up to 1e+200", setup=_huge(1e200),
         kept=["m.safetensors"]),
    Case("entries-1e300", ["weights", "{tmp}/m.safetensors"], "entries up to 1e+300", setup=_huge(-1e300),
         kept=["m.safetensors"]),
    Case("plot-of-60-layers", ["weights", "{tmp}/m.safetensors", "--heads", "1", "--plot", "{tmp}/spectra.png"],
         "60 layers", setup=_many_layers, kept=["m.safetensors", "spectra.png"]),
    Case("gpt2-entries-1e300", ["weights", "{tmp}/m.safetensors", "--heads", "2"], "entries up to 1e+300",
         setup=lambda f: _gpt2_huge(f, 1e300), kept=["m.safetensors"]),
    Case("file-name-with-escape-sequence", ["weights", "{tmp}/m\x1b[2J.safetensors"], r"m\x1b[2J.safetensors",
         setup=lambda f: (f / "m\x1b[2J.safetensors").write_bytes(b"\x05\0\0\0"),
         kept=["m\x1b[2J.safetensors"]),
    # small models work with the defaults (the default rank is min(32, p - 1))
    Case("p-8-defaults", ["weights", "{tmp}/m.safetensors", "--heads", "2"], "", setup=_bert, status=0,
         kept=["m.safetensors"]),
    Case("p-32-defaults", ["weights", "{tmp}/m.safetensors", "--heads", "4", "--json"], "",
         setup=lambda f: _bert(f, p=32, layers=1), status=0, kept=["m.safetensors"]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_weight_file_case(case, tmp_path, capsys):
    line = run_case(case, tmp_path, capsys)
    assert line.isprintable(), repr(line)


def test_the_escaped_names_are_the_files_own(tmp_path, capsys):
    """The escaped text stands for the control characters of the file, not for something else (no raw ESC)."""
    line = run_case(CASES[0], tmp_path, capsys)
    assert "\x1b" not in line and "\u202e" not in line and r"a\u202eb\x07" in line


def test_small_models_fit_up_to_p_minus_1(tmp_path):
    from symrmt.weights import analyze

    analysis = analyze(_bert(tmp_path, p=8), num_heads=2)
    assert len(analysis.layers[0].matrix.fits) == 8          # ranks 0..7: min(32, p - 1)
    assert len(analyze(_bert(tmp_path, "big.safetensors", p=40, layers=1), num_heads=2).layers[0].matrix.fits) == 33


def test_huge_entries_just_under_the_bound_are_analysed(tmp_path):
    """The bound refuses only what would overflow: entries at MAX_ENTRY give finite fits, never a LinAlgError."""
    from symrmt.weights import analyze

    _huge(MAX_ENTRY)(tmp_path)
    fits = analyze(tmp_path / "m.safetensors").layers[0].matrix.fits
    assert all(np.isfinite(f.s) and np.isfinite(f.residual_fraction) for f in fits)


def test_a_safetensors_file_holding_a_zip_is_read_as_safetensors(tmp_path):
    """The zip in the last tensor's bytes (a GPT-2-less BERT of width 4 inside) is data, not the file's format."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as archive:
        archive.writestr("model.safetensors", _bert_bytes(p=4, layers=1))
    blob = np.frombuffer(inner.getvalue(), dtype=np.uint8)
    path = _bert(tmp_path, p=8, layers=2, **{"zz.blob": blob})
    assert zipfile.is_zipfile(path)                          # the trap: it parses as a zip too
    weights = read_weights(path, num_heads=2)
    assert (weights.layout, weights.p, len(weights.layers)) == ("bert", 8, 2)


def test_a_zip_is_still_read_as_a_zip(tmp_path):
    path = write_zip(tmp_path / "m.zip", {"model.safetensors": _bert_bytes(p=4, layers=3),
                                          "config.json": json.dumps({"num_attention_heads": 2,
                                                                     "hidden_size": 4}).encode()})
    weights = read_weights(path)
    assert (weights.p, weights.num_heads, len(weights.layers)) == (4, 2, 3)


def test_the_plot_refusal_comes_before_the_analysis(tmp_path, monkeypatch, capsys):
    """Refused from the layer count, before any SVD (the analysis of 1000 layers is the long part)."""
    from symrmt.cli import main
    from symrmt.weights import command

    _many_layers(tmp_path)
    monkeypatch.setattr(command, "analyze", lambda *a, **k: pytest.fail("analysed before refusing"))
    assert main(["weights", str(tmp_path / "m.safetensors"), "--heads", "1", "--plot", str(tmp_path / "s.png")]) == 2
    assert "60 layers" in capsys.readouterr().err

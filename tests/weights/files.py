"""Small safetensors files for the tests: valid ones through safetensors itself, hostile ones byte by byte."""
from __future__ import annotations

import json
import pathlib
import zipfile

import numpy as np
from safetensors.numpy import save_file


def bert_tensors(rng, p: int = 8, layers: int = 2, prefix: str = "encoder.") -> dict[str, np.ndarray]:
    """Query and key weights and biases (plus an unrelated value weight) of a BERT-style checkpoint, float32."""
    tensors = {}
    for i in range(layers):
        for part in ("query", "key", "value"):
            tensors[f"{prefix}layer.{i}.attention.self.{part}.weight"] = rng.standard_normal((p, p)).astype(np.float32)
            tensors[f"{prefix}layer.{i}.attention.self.{part}.bias"] = rng.standard_normal(p).astype(np.float32)
    return tensors


def gpt2_tensors(rng, p: int = 8, layers: int = 2) -> dict[str, np.ndarray]:
    """GPT-2 ``c_attn`` Conv1D weights ``(p, 3p)`` and biases ``(3p,)``, plus the causal-mask buffer."""
    tensors = {}
    for i in range(layers):
        tensors[f"h.{i}.attn.c_attn.weight"] = rng.standard_normal((p, 3 * p)).astype(np.float32)
        tensors[f"h.{i}.attn.c_attn.bias"] = rng.standard_normal(3 * p).astype(np.float32)
        tensors[f"h.{i}.attn.bias"] = np.ones((1, 1, 4, 4), dtype=np.float32)
    return tensors


def write(path: pathlib.Path, tensors: dict[str, np.ndarray], config: dict | None = None) -> pathlib.Path:
    """A valid safetensors file written by safetensors, with a ``config.json`` beside it if given.

    safetensors writes an array's buffer as it lies in memory: a transposed view would be read
    back transposed, so every array is made C-contiguous first.
    """
    save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(path))
    if config is not None:
        path.with_name("config.json").write_text(json.dumps(config))
    return path


def write_raw(path: pathlib.Path, header: dict | bytes, data: bytes = b"", length: int | None = None) -> pathlib.Path:
    """A file from a header (dict or raw bytes), data bytes, and optionally a forged header length."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    size = len(text) if length is None else length
    path.write_bytes(size.to_bytes(8, "little") + text + data)
    return path


def write_zip(path: pathlib.Path, members: dict[str, bytes]) -> pathlib.Path:
    """A deflated zip with the given members (name -> bytes)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path

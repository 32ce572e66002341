r"""Gaussian equivalent of the attention matrix: noise kernel plus low rank.

With :math:`X = Z + \mu y^\top` and :math:`M = I + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}`, the scores are

.. math::

    \sqrt p\, S = X^\top M X = Z^\top Z + \Delta,

where :math:`\Delta` is a sum of outer products of the :math:`n`-vectors
:math:`y`, :math:`s = Z^\top\mu`, :math:`k_i = Z^\top w_K^{(i)}`, :math:`q_i = Z^\top w_Q^{(i)}`.
A first-order Hermite expansion of :math:`f` off the diagonal (docs/theory.md,
"Gaussian equivalent") gives

.. math::

    K \simeq K_N + L,\qquad K_N = a_1 A + (d - a_1) I + b\,W/\sqrt p,\qquad
    L = \frac{a_1}{p}\,\Delta = \frac{a_1}{p}\, U_L \Sigma V_L^\top,

and the data Gram matrix is :math:`X^\top X / n = c A + P/n` with :math:`P`
the same expansion for :math:`M = I`.

This module does not type :math:`\Sigma` or :math:`P` in: it multiplies the
words of :math:`X^\top`, :math:`M` and :math:`X` and contracts each word with
the rules :math:`Z^\top v \mapsto` projection vector, :math:`u^\top v \mapsto`
Gram entry.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import sympy as sp

from .symbols import geometry_vectors, gram_symbol, projection_name, weight_vectors

__all__ = ["LowRank", "expand_quadratic_form", "score_low_rank", "data_low_rank", "x_words", "xt_words", "m_words"]

# A factor is a sum of words; a word is a tuple of letters: "Z", "Zt", "y", "yt", a deterministic
# vector ("mu", "wK", "wQ1", ...) or its transpose (the name followed by "t").
IDENTITY_WORDS = ((),)


def x_words() -> tuple[tuple[str, ...], ...]:
    r""":math:`X = Z + \mu y^\top`."""
    return (("Z",), ("mu", "yt"))


def xt_words() -> tuple[tuple[str, ...], ...]:
    r""":math:`X^\top = Z^\top + y \mu^\top`."""
    return (("Zt",), ("y", "mut"))


def m_words(rank: int) -> tuple[tuple[str, ...], ...]:
    r""":math:`M = I + \sum_k w_K^{(k)} w_Q^{(k)\top}`."""
    keys, queries = weight_vectors(rank)
    return ((), *((k, q + "t") for k, q in zip(keys, queries)))


@dataclass(frozen=True)
class LowRank:
    r""":math:`U\,\mathrm{core}\,V^\top` with named :math:`n`-vectors as the columns of U and V."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    core: sp.Matrix

    def terms(self) -> dict[tuple[str, str], sp.Expr]:
        """The nonzero outer products ``{(u, v): coefficient}`` of :math:`u v^\top`."""
        return {
            (u, v): self.core[i, j]
            for i, u in enumerate(self.left) for j, v in enumerate(self.right) if self.core[i, j] != 0
        }

    def transpose(self) -> "LowRank":
        return LowRank(self.right, self.left, self.core.T)


def _contract(word: tuple[str, ...], deterministic: set[str]) -> tuple[sp.Expr, str, str] | None:
    """Contract one word to (scalar, column n-vector, row n-vector); None for the noise word Z^T Z."""
    if word == ("Zt", "Z"):
        return None
    scalar, column, row, i = sp.Integer(1), None, None, 0
    while i < len(word):
        letter, nxt = word[i], word[i + 1] if i + 1 < len(word) else None
        if letter == "Zt":                      # Z^T v: an n-column
            column, i = projection_name(nxt), i + 2
        elif letter == "y":
            column, i = "y", i + 1
        elif letter == "yt":
            row, i = "y", i + 1
        elif letter.endswith("t") and letter[:-1] in deterministic:
            if nxt == "Z":                      # v^T Z: an n-row
                row, i = projection_name(letter[:-1]), i + 2
            else:                               # v^T w: a Gram entry
                scalar, i = scalar * gram_symbol(letter[:-1], nxt), i + 2
        else:
            raise ValueError(f"cannot contract word {word} at {letter!r}")
    if column is None or row is None:
        raise ValueError(f"word {word} is not an n x n outer product")
    return scalar, column, row


def expand_quadratic_form(*factors: tuple[tuple[str, ...], ...], rank: int = 1) -> LowRank:
    r"""Expand a product of sums of words, drop :math:`Z^\top Z`, collect outer products.

    Examples
    --------
    >>> lr = expand_quadratic_form(xt_words(), IDENTITY_WORDS, x_words())
    >>> sorted(lr.terms().items())
    [(('s', 'y'), 1), (('y', 's'), 1), (('y', 'y'), theta)]
    """
    vectors = geometry_vectors(rank)
    deterministic = set(vectors)
    order = ("y", *(projection_name(v) for v in vectors))
    collected: dict[tuple[str, str], sp.Expr] = {}
    for words in product(*factors):
        contracted = _contract(sum(words, ()), deterministic)
        if contracted is not None:
            scalar, column, row = contracted
            collected[(column, row)] = collected.get((column, row), 0) + scalar
    left = tuple(v for v in order if any(u == v for u, _ in collected))
    right = tuple(v for v in order if any(w == v for _, w in collected))
    core = sp.Matrix(len(left), len(right), lambda i, j: collected.get((left[i], right[j]), 0))
    return LowRank(left, right, core)


def score_low_rank(rank: int = 1) -> LowRank:
    r""":math:`\Delta = X^\top M X - Z^\top Z = U_L \Sigma V_L^\top` (then :math:`L = a_1 \Delta / p`)."""
    return expand_quadratic_form(xt_words(), m_words(rank), x_words(), rank=rank)


def data_low_rank(rank: int = 1) -> LowRank:
    r""":math:`P = X^\top X - Z^\top Z` (then :math:`X^\top X / n = cA + P/n`)."""
    return expand_quadratic_form(xt_words(), IDENTITY_WORDS, x_words(), rank=rank)

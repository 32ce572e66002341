r"""Gaussian equivalent of the attention matrix: noise kernel plus low rank.

With :math:`X = Z + \mu y^\top` and :math:`M = I + w_K w_Q^\top`, the scores are

.. math::

    \sqrt p\, S = X^\top M X = Z^\top Z + \Delta,

where :math:`\Delta` is a sum of outer products of the :math:`n`-vectors
:math:`y`, :math:`s = Z^\top\mu`, :math:`k = Z^\top w_K`, :math:`q = Z^\top w_Q`.
A first-order Hermite expansion of :math:`f` off the diagonal (THEORY.md
section 2) gives

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

from .symbols import gram_entry

__all__ = ["LowRank", "expand_quadratic_form", "score_low_rank", "data_low_rank", "PROJECTION"]

#: The n-vectors that appear: y itself and the projections Z^T v of the deterministic vectors.
PROJECTION = {"mu": "s", "wK": "k", "wQ": "q"}
_ORDER = ("y", "s", "k", "q")
_DETERMINISTIC = set(PROJECTION)

# A factor is a word: a tuple of letters. Letters: "Z", "Zt", "y", "yt", "mu", "mut", ...
X_WORDS = (("Z",), ("mu", "yt"))                 # X   = Z + mu y^T
XT_WORDS = (("Zt",), ("y", "mut"))               # X^T = Z^T + y mu^T
M_WORDS = ((), ("wK", "wQt"))                    # M   = I + w_K w_Q^T
IDENTITY_WORDS = ((),)


@dataclass(frozen=True)
class LowRank:
    r""":math:`U\,\mathrm{core}\,V^\top` with named :math:`n`-vectors as the columns of U and V."""

    left: tuple[str, ...]
    right: tuple[str, ...]
    core: sp.Matrix

    def terms(self) -> dict[tuple[str, str], sp.Expr]:
        """The nonzero outer products ``{(u, v): coefficient}`` of :math:`u v^\\top`."""
        return {
            (u, v): self.core[i, j]
            for i, u in enumerate(self.left) for j, v in enumerate(self.right) if self.core[i, j] != 0
        }


def _contract(word: tuple[str, ...]) -> tuple[sp.Expr, str, str] | None:
    """Contract one word to (scalar, column n-vector, row n-vector); None for the noise word Z^T Z."""
    if word == ("Zt", "Z"):
        return None
    scalar, column, row, i = sp.Integer(1), None, None, 0
    while i < len(word):
        letter, nxt = word[i], word[i + 1] if i + 1 < len(word) else None
        if letter == "Zt":                      # Z^T v: an n-column
            column, i = PROJECTION[nxt], i + 2
        elif letter == "y":
            column, i = "y", i + 1
        elif letter == "yt":
            row, i = "y", i + 1
        elif letter.endswith("t") and letter[:-1] in _DETERMINISTIC:
            if nxt == "Z":                      # v^T Z: an n-row
                row, i = PROJECTION[letter[:-1]], i + 2
            else:                               # v^T w: a Gram entry
                scalar, i = scalar * gram_entry(letter[:-1], nxt), i + 2
        else:
            raise ValueError(f"cannot contract word {word} at {letter!r}")
    if column is None or row is None:
        raise ValueError(f"word {word} is not an n x n outer product")
    return scalar, column, row


def expand_quadratic_form(*factors: tuple[tuple[str, ...], ...]) -> LowRank:
    r"""Expand a product of sums of words, drop :math:`Z^\top Z`, collect outer products.

    Examples
    --------
    >>> lr = expand_quadratic_form(XT_WORDS, IDENTITY_WORDS, X_WORDS)
    >>> sorted(lr.terms().items())
    [(('s', 'y'), 1), (('y', 's'), 1), (('y', 'y'), theta)]
    """
    collected: dict[tuple[str, str], sp.Expr] = {}
    for words in product(*factors):
        contracted = _contract(sum(words, ()))
        if contracted is not None:
            scalar, column, row = contracted
            collected[(column, row)] = collected.get((column, row), 0) + scalar
    left = tuple(v for v in _ORDER if any(u == v for u, _ in collected))
    right = tuple(v for v in _ORDER if any(w == v for _, w in collected))
    core = sp.Matrix(len(left), len(right), lambda i, j: collected.get((left[i], right[j]), 0))
    return LowRank(left, right, core)


def score_low_rank() -> LowRank:
    r""":math:`\Delta = X^\top M X - Z^\top Z = U_L \Sigma V_L^\top` (then :math:`L = a_1 \Delta / p`)."""
    return expand_quadratic_form(XT_WORDS, M_WORDS, X_WORDS)


def data_low_rank() -> LowRank:
    r""":math:`P = X^\top X - Z^\top Z` (then :math:`X^\top X / n = cA + P/n`)."""
    return expand_quadratic_form(XT_WORDS, IDENTITY_WORDS, X_WORDS)

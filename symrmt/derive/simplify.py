r"""The simplest form SymPy proves equal: what every printed expression of a system goes through.

:func:`simplest` picks, among the forms SymPy proves equal to an expression (factored, or collected in the
unknowns with factored coefficients), the shortest; :func:`common_factor` pulls a factor shared by a matrix's
entries out of it; a :class:`Ledger` records each printed expression next to the system's own, so that a test
can prove them equal (``tests/derive/test_paper.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

import sympy as sp

__all__ = ["simplest", "common_factor", "Ledger"]

#: Expressions larger than this (operations) are only factored: collecting every symbol would take seconds.
_LARGE = 300
#: Expressions in more symbols than this are not factored or collected symbol by symbol (seconds each at rank 8+).
_FEW = 8
#: Matrices with more nonzero entries than this (rank 16 and above) are printed without a common factor pulled out.
_ENTRIES = 300


def _leaves(expr: sp.Basic) -> int:
    """Symbols and numbers a reader reads (a sign is not counted)."""
    return sum(1 for a in sp.preorder_traversal(expr) if a.is_Atom and a is not sp.S.NegativeOne)


def _cost(expr: sp.Basic) -> tuple[int, int]:
    return _leaves(expr), len(sp.srepr(expr))


def _symbols_of(expr: sp.Expr) -> list[sp.Symbol]:
    return sorted((s for s in expr.free_symbols if isinstance(s, sp.Symbol)), key=str)


def _factored(expr: sp.Expr) -> sp.Expr:
    if len(expr.free_symbols) > _FEW:          # multivariate factoring grows fast: rank-r sums stay as they are
        return expr
    try:
        return sp.factor(expr)
    except (sp.PolynomialError, TypeError, ValueError):         # MatrixElement, Float powers: keep as is
        return expr


def _tidy(expr: sp.Expr, depth: int = 0) -> sp.Expr:
    """The shortest of ``expr``, its factored form and its collections in one symbol (coefficients tidied)."""
    if expr.is_Atom or not isinstance(expr, sp.Expr):
        return expr
    candidates = [expr, _factored(expr)]
    expanded = sp.expand(expr)
    if depth < 1 and isinstance(expanded, sp.Add) and sp.count_ops(expanded) <= _LARGE and \
            len(expanded.free_symbols) <= _FEW:
        for symbol in _symbols_of(expanded):
            try:
                parts = sp.collect(expanded, symbol, evaluate=False)
            except (TypeError, ValueError):
                continue
            if len(parts) > 1:
                candidates.append(sp.Add(*(_tidy(v, depth + 1) * k for k, v in parts.items())))
    return min(candidates, key=_cost)


@lru_cache(maxsize=4096)
def _simplest(expr: sp.Expr, unknowns: tuple) -> sp.Expr:
    expanded = sp.expand(expr)
    present = [u for u in unknowns if u in expanded.free_symbols]
    if not present or not isinstance(expanded, sp.Add):
        candidates = [expr, _tidy(expr)]
    else:                                   # in the unknowns: collected in them, or factored, never in a parameter
        candidates = [expr, _factored(expr)]
        if sp.count_ops(expanded) <= 4 * _LARGE:
            try:
                parts = sp.collect(expanded, present, evaluate=False)
                candidates.append(sp.Add(*(_tidy(v) * k for k, v in parts.items())))
            except (TypeError, ValueError):
                pass
    proven = [c for c in candidates if c is expr or sp.expand(c - expr) == 0]
    return min(proven, key=_cost)


def simplest(expr: Any, unknowns: Sequence[sp.Symbol] = ()) -> Any:
    r"""The shortest form of ``expr`` that SymPy proves equal: factored, or collected in ``unknowns``.

    Candidates are ``expr`` itself, :func:`sympy.factor`, and collections: in the ``unknowns``
    (the fixed point's :math:`t_{ij}`, :math:`\zeta_k`, ...) with each coefficient in its own
    shortest form, and in each symbol. The shortest is the one with the fewest symbols and
    numbers (signs not counted), e.g. :math:`a_1\lambda - a_1 + d` becomes
    :math:`a_1(\lambda - 1) + d`. Only a candidate whose difference from ``expr`` expands to 0
    is taken. Matrices are simplified entry by entry; anything else is returned as is.

    Examples
    --------
    >>> from symrmt.derive import symbols as S
    >>> simplest(S.a1 * S.lam - S.a1 + S.d)
    a_1*(lambda - 1) + d
    """
    if isinstance(expr, sp.MatrixBase):
        return sp.ImmutableMatrix(expr).applyfunc(lambda e: simplest(e, unknowns))
    if not isinstance(expr, sp.Expr) or _is_monomial(expr) or isinstance(expr, sp.MatrixExpr):
        return expr
    floats = {f: sp.Dummy() for f in expr.atoms(sp.Float)}     # factor() would round them through rationals
    if floats:
        return _simplest(expr.xreplace(floats), tuple(unknowns)).xreplace({v: k for k, v in floats.items()})
    return _simplest(expr, tuple(unknowns))


def _is_monomial(expr: sp.Expr) -> bool:
    """A symbol, a number, or a product of their powers: nothing to simplify (most entries of a rank-r system)."""
    factors = sp.Mul.make_args(expr)
    return all(f.is_Atom or (f.is_Pow and f.base.is_Atom and f.exp.is_Atom) for f in factors)


@dataclass
class Ledger:
    """Each expression a printer printed: ``(source, printed)``, the system's expression and its printed form.

    Matrices are recorded entry by entry. A test proves ``printed - source == 0`` for every pair.
    """

    pairs: list[tuple[sp.Expr, sp.Expr]] = field(default_factory=list)

    def record(self, source: Any, printed: Any) -> None:
        if isinstance(source, sp.MatrixBase):
            self.pairs.extend(zip(source, printed))
        elif isinstance(source, sp.Expr) and not isinstance(source, sp.MatrixExpr):
            self.pairs.append((source, printed))

    def sources(self) -> set:
        return {source for source, _ in self.pairs}


# --------------------------------------------------------------------------- Hermite data


def common_factor(matrix: sp.MatrixBase, unknowns: Sequence[sp.Symbol] = ()) -> tuple[sp.Expr, sp.ImmutableMatrix]:
    r"""``(k, B)`` with ``matrix = k * B``: k the factor common to every nonzero entry, B in :func:`simplest` form.

    ``k = 1`` when the entries share nothing (or fewer than two are nonzero, or more than :data:`_ENTRIES`).
    """
    matrix = sp.ImmutableMatrix(matrix)
    nonzero = [e for e in matrix if e != 0]
    if not 2 <= len(nonzero) <= _ENTRIES or any(not isinstance(e, sp.Expr) or e.has(sp.MatrixExpr) for e in nonzero):
        return sp.Integer(1), matrix
    marks = sp.symbols(f"_mark0:{len(nonzero)}", cls=sp.Dummy)
    pulled = sp.factor_terms(sp.Add(*(e * m for e, m in zip(nonzero, marks))))
    common = sp.Mul(*(part for part in sp.Mul.make_args(pulled) if not part.has(*marks)))
    if common == 1 or common.is_Number:
        return sp.Integer(1), matrix
    reduced = matrix.applyfunc(lambda e: simplest(sp.cancel(e / common), unknowns) if e != 0 else e)
    if any(sp.expand(common * r - e) != 0 for r, e in zip(reduced, matrix)):
        return sp.Integer(1), matrix
    return common, sp.ImmutableMatrix(reduced)

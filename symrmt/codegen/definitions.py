r"""The chain rule through a system's definitions: placeholders, derivatives, and the inverse of a matrix.

A :class:`~symrmt.derive.FixedPointSystem` writes its integrands in defined symbols
(the Dyson matrix :math:`M(\lambda)` and :math:`R = M^{-1}`; in an algebraic form, matrix expressions
such as :math:`N = M_1^{-1} M_0`, :math:`\operatorname{tr} N^2` or :math:`\det N`). :class:`Definitions`
keeps them as placeholders while derivatives are taken, so that

.. math::

    \partial R = -R\,(\partial M)\,R

stays one matrix product instead of the derivative of an explicit inverse, and writes
everything in the system's own symbols at the end. SymPy only; nothing here knows which
back end evaluates the result.
"""
from __future__ import annotations

from typing import Mapping

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

__all__ = ["inverse_entries", "expand_definitions", "Definitions"]


def inverse_entries(matrix: sp.Matrix) -> sp.Matrix:
    r"""The inverse of a small matrix, entrywise, as :math:`\operatorname{adj} M / \det M`.

    Written as the generic inverse in placeholder entries, then filled in with the
    entries of :math:`M` without expanding, so that the generated code evaluates
    :math:`M` once and inverts it in a handful of operations.
    """
    k = matrix.shape[0]
    placeholders = sp.Matrix(k, k, lambda i, j: 0 if matrix[i, j] == 0 else sp.Dummy(f"m_{i}{j}"))
    inverse = placeholders.adjugate() / placeholders.det(method="berkowitz")
    fill = {placeholders[i, j]: matrix[i, j] for i in range(k) for j in range(k) if matrix[i, j] != 0}
    return inverse.applyfunc(lambda e: e.xreplace(fill))


def expand_definitions(definitions: Mapping) -> dict:
    """Substitution taking every defined symbol (and matrix element) to its explicit expression."""
    local = Definitions(definitions)
    return {symbol: local.expand(dummy) for symbol, dummy in local.elements.items()}


class Definitions:
    r"""A system's definitions as intermediate symbols, differentiated by the chain rule, then expanded.

    Each defined symbol (each element of a defined matrix) becomes a placeholder whose
    value is its definition in the earlier placeholders. Derivatives go through the
    placeholders by the chain rule, and through the inverse of a matrix by
    :math:`\partial R = -R\,(\partial M)\,R` -- which keeps the generated code as compact as
    the definitions themselves -- and :meth:`expand` finally writes everything in the
    system's own symbols.
    """

    def __init__(self, definitions: Mapping) -> None:
        self.elements: dict = {}          # defined symbol or matrix element -> placeholder
        self.values: dict = {}            # placeholder -> its definition in earlier placeholders
        self.matrices: dict = {}          # matrix symbol -> matrix of placeholders (0 where defined as 0)
        self.inverses: dict = {}          # placeholder of an inverse's entry -> (inverse, inner, i, j)
        self._rates: dict = {}
        for symbol, definition in definitions.items():
            if isinstance(symbol, sp.MatrixSymbol):
                self._matrix(symbol, definition)
            else:
                dummy = sp.Dummy(symbol.name)
                self.values[dummy] = self._scalar(sp.sympify(definition))
                self.elements[symbol] = dummy
        explicit: dict = {}
        for dummy, value in self.values.items():       # definition order: earlier placeholders first
            explicit[dummy] = value.xreplace(explicit)
        self._explicit = explicit

    def _matrix(self, symbol, definition) -> None:
        rows, cols = symbol.shape
        if isinstance(definition, sp.Inverse) and definition.arg in self.matrices:
            inner = self.matrices[definition.arg]
            value = inverse_entries(inner)
            dummies = sp.Matrix(rows, cols, lambda i, j: sp.Dummy(f"{symbol.name}_{i}{j}"))
        else:
            value = self._explicit_matrix(definition)
            dummies = sp.Matrix(rows, cols, lambda i, j: 0 if value[i, j] == 0 else sp.Dummy(f"{symbol.name}_{i}{j}"))
        self.matrices[symbol] = dummies
        for i in range(rows):
            for j in range(cols):
                self.elements[symbol[i, j]] = dummies[i, j]
                if dummies[i, j] != 0:
                    self.values[dummies[i, j]] = value[i, j]
                    if isinstance(definition, sp.Inverse):
                        self.inverses[dummies[i, j]] = (dummies, self.matrices[definition.arg], i, j)

    def _explicit_matrix(self, expr) -> sp.Matrix:
        """A matrix, or a matrix expression in earlier matrix symbols, as an explicit matrix of placeholders."""
        if isinstance(expr, sp.MatrixSymbol):
            return self.matrices[expr]
        if isinstance(expr, sp.MatrixBase):
            return sp.Matrix(expr).applyfunc(lambda e: self._scalar(sp.sympify(e)))
        if isinstance(expr, sp.Identity):
            return sp.eye(expr.rows)
        if isinstance(expr, sp.ZeroMatrix):
            return sp.zeros(expr.rows, expr.cols)
        if isinstance(expr, sp.Inverse):
            return inverse_entries(self._explicit_matrix(expr.arg))
        if isinstance(expr, sp.Transpose):
            return self._explicit_matrix(expr.arg).T
        if isinstance(expr, sp.MatPow) and expr.exp.is_Integer and expr.exp > 0:
            return self._explicit_matrix(expr.base) ** int(expr.exp)
        if isinstance(expr, sp.MatAdd):
            return sum((self._explicit_matrix(a) for a in expr.args[1:]), self._explicit_matrix(expr.args[0]))
        if isinstance(expr, sp.MatMul):
            scalar, factors = expr.as_coeff_matrices()
            product = self._explicit_matrix(factors[0])
            for factor in factors[1:]:
                product = product * self._explicit_matrix(factor)
            return product * self._scalar(sp.sympify(scalar))
        raise ValueError(f"cannot generate code for the matrix expression {expr} ({type(expr).__name__})")

    def _scalar(self, expr: sp.Basic) -> sp.Basic:
        """A scalar in placeholders: traces, determinants and entries of matrix expressions made explicit."""
        def explicit(e):
            if isinstance(e, sp.Trace):
                return self._explicit_matrix(e.arg).trace()
            if isinstance(e, sp.Determinant):
                return self._explicit_matrix(e.arg).det(method="berkowitz")
            return self._explicit_matrix(e.parent)[int(e.i), int(e.j)]
        compound = lambda e: (isinstance(e, (sp.Trace, sp.Determinant)) or
                              (isinstance(e, MatrixElement) and e not in self.elements))
        if self.matrices:
            expr = expr.replace(compound, explicit)
        return expr.xreplace(self.elements) if self.elements else expr

    def local(self, expr) -> sp.Basic:
        """``expr`` written in the placeholders."""
        return sp.sympify(expr).xreplace(self.elements) if self.elements else sp.sympify(expr)

    def diff(self, expr: sp.Basic, x: sp.Symbol) -> sp.Expr:
        """Total derivative of a local expression in the system symbol ``x``, through the definitions."""
        return self.directional(expr, ((x, sp.Integer(1)),))

    def directional(self, expr: sp.Basic, direction: tuple) -> sp.Expr:
        r"""Derivative of a local expression along ``direction`` = ((symbol, rate), ...): :math:`\sum_x \dot x\,\partial_x`.

        One direction for a total derivative keeps :math:`-R\,\dot M R` a single product.
        """
        out = sum((sp.diff(expr, x) * rate for x, rate in direction), sp.Integer(0))
        for dummy in expr.free_symbols & set(self.values):
            rate = self._rate(dummy, direction)
            if rate != 0:
                out += sp.diff(expr, dummy) * rate
        return out

    def _rate(self, dummy, direction):
        key = (dummy, direction)
        if key not in self._rates:
            if dummy in self.inverses:
                inverse, inner, i, j = self.inverses[dummy]
                d_inner = inner.applyfunc(lambda m: self._rate(m, direction) if m != 0 else 0)
                self._rates[key] = -(inverse[i, :] * d_inner * inverse[:, j])[0, 0]
            else:
                self._rates[key] = self.directional(self.values[dummy], direction)
        return self._rates[key]

    def expand(self, expr: sp.Basic) -> sp.Basic:
        """A local expression in the system's own symbols."""
        return expr.xreplace(self._explicit) if self._explicit else expr

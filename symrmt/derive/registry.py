r"""A nonlinearity's Hermite data put into a derived system: the substitution, exact where closed forms exist.

Every system is derived for general :math:`(a_1, b)`; a nonlinearity f enters only through
:func:`hermite_substitution` of its Hermite data, with :math:`b^2 = \nu - a_1^2` by the one symbolic rule
:func:`nonlinear_share` (the numeric one is :func:`symrmt.nonlinearity.nonlinear_share`). The models
themselves are registered in :mod:`symrmt.models`.
"""
from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from . import symbols as S

__all__ = ["nonlinear_share", "hermite_substitution", "substitution_of", "hermite_values"]


def nonlinear_share(a1: sp.Expr, nu: sp.Expr) -> sp.Expr:
    r""":math:`b^2 = \nu - a_1^2`, simplified (left as it is where a datum is an unknown function of the parameters)."""
    b2 = nu - a1**2
    return b2 if (a1.has(AppliedUndef) or nu.has(AppliedUndef)) else sp.simplify(b2)


def hermite_substitution(a1: sp.Expr, nu: sp.Expr) -> dict[sp.Symbol, sp.Expr]:
    r"""``{a_1: a1, b: sqrt(nu - a1^2)}`` with exact arithmetic when the inputs are exact."""
    a1, nu = sp.sympify(a1), sp.sympify(nu)
    return {S.a1: a1, S.b: sp.sqrt(nonlinear_share(a1, nu))}


def substitution_of(hermite_data: Any) -> dict[sp.Symbol, sp.Expr]:
    r"""The :func:`hermite_substitution` of a :class:`~symrmt.nonlinearity.HermiteCoefficients`.

    Closed forms are used where known, numbers otherwise; for an f with symbolic parameters,
    a datum without a closed form stays a named function of the parameters
    (:math:`a_1(s)`, :math:`\nu(s)`).
    """
    a1, nu = hermite_values(hermite_data)
    return hermite_substitution(a1, nu)


def hermite_values(hermite_data: Any) -> tuple[sp.Expr, sp.Expr]:
    """``(a1, nu)``: closed forms where known, numbers otherwise, named functions of the parameters without either."""
    exact, symbols = hermite_data.exact, tuple(hermite_data.parameters or ())
    values = []
    for key, name in (("a1", "a_1"), ("nu", "nu")):
        if exact.get(key) is not None:
            values.append(sp.sympify(exact[key]))
        else:
            values.append(sp.Function(name)(*symbols) if symbols else sp.Float(getattr(hermite_data, key)))
    return values[0], values[1]

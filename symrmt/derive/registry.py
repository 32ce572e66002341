r"""The derived systems by kind, and the substitution that puts a nonlinearity's Hermite data into them.

============================  =============================================================
kind                          system
============================  =============================================================
``"attention"``               :func:`~.attention.attention_system` (weights of any ``rank``)
``"linear"``                  :func:`~.attention.linear_system`
``"kernel_ridge"``            :func:`~.kernel_ridge.kernel_ridge_system` (ridge on :math:`K` alone)
``"gram_density"``            :func:`~.density.density_system` of the attention Gram matrix
``"kernel_density"``          :func:`~.density.density_system` of the kernel matrix :math:`K`
============================  =============================================================

Every system is derived for general :math:`(a_1, b)`; a nonlinearity f enters only through
:func:`hermite_substitution` of its Hermite data.
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from . import symbols as S
from .attention import attention_system, linear_system
from .density import density_system
from .fixed_point import FixedPointSystem
from .kernel_ridge import kernel_ridge_system

__all__ = ["KINDS", "system_for", "hermite_substitution", "substitution_of"]

KINDS = ("attention", "linear", "gram_density", "kernel_density", "kernel_ridge")


def system_for(kind: str = "attention", rank: int = 1) -> FixedPointSystem:
    """The derived system of ``kind``: one of :data:`KINDS` (``rank`` for attention and kernel ridge); each is
    derived once."""
    if kind == "attention":
        return attention_system(rank)
    if kind == "linear":
        return linear_system()
    if kind in ("gram_density", "kernel_density"):
        return density_system(kind.split("_")[0])
    if kind == "kernel_ridge":
        return kernel_ridge_system(rank)
    raise ValueError(f"kind = {kind!r}: use one of {KINDS}")


def hermite_substitution(a1: sp.Expr, nu: sp.Expr) -> dict[sp.Symbol, sp.Expr]:
    r"""``{a_1: a1, b: sqrt(nu - a1^2)}`` with exact arithmetic when the inputs are exact."""
    a1, nu = sp.sympify(a1), sp.sympify(nu)
    return {S.a1: a1, S.b: sp.sqrt(sp.simplify(nu - a1**2))}


def substitution_of(hermite_data: Any) -> dict[sp.Symbol, sp.Expr]:
    r"""The :func:`hermite_substitution` of a :class:`~symrmt.nonlinearity.HermiteCoefficients`.

    Closed forms are used where known, numbers otherwise; for an f with symbolic parameters,
    a datum without a closed form stays a named function of the parameters
    (:math:`a_1(s)`, :math:`\nu(s)`).
    """
    exact, symbols = hermite_data.exact, tuple(hermite_data.parameters or ())
    values = {}
    for key, name in (("a1", "a_1"), ("nu", "nu")):
        if exact.get(key) is not None:
            values[key] = exact[key]
        else:
            values[key] = sp.Function(name)(*symbols) if symbols else getattr(hermite_data, key)
    return hermite_substitution(values["a1"], values["nu"])


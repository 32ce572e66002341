r"""The one place where SymPy expressions become NumPy functions.

Every numeric function symrmt evaluates from a derived expression (the
nonlinearity f in the simulator, the Dyson integrands and the Woodbury
correction in the solver) is produced here by :func:`sympy.lambdify`, with
explicit modules and common-subexpression elimination, once per expression
(cached in memory by the expression's ``srepr``).

Generated functions do not pickle: send expressions to worker processes and
call :func:`numpy_function` there.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
import sympy as sp
from sympy.printing.numpy import SciPyPrinter

__all__ = ["numpy_function", "compile_derivation", "CompiledDerivation", "MODULES"]

#: scipy.special first so that erf, gamma, ... are vectorized ufuncs; then NumPy.
#: ``Heaviside`` at 0 is 1/2, SymPy's default.
MODULES = [{"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0)}, "scipy", "numpy"]


def numpy_function(
    expr: sp.Basic | Sequence[sp.Basic], args: Sequence[sp.Symbol], name: str = "f"
) -> Callable[..., np.ndarray]:
    """Turn ``expr`` (an expression or a sequence of them) into a NumPy function of ``args``.

    Raises
    ------
    ValueError
        If ``expr`` has a free symbol that is not in ``args`` (the generated code
        would otherwise fail later with a bare ``NameError``).
    """
    args = tuple(args)
    exprs = tuple(expr) if isinstance(expr, (list, tuple)) else (expr,)
    missing = set().union(*(sp.sympify(e).free_symbols for e in exprs)) - set(args)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(f"cannot generate {name}: symbols {names} are not among its arguments {args}")
    key = (sp.srepr(sp.Tuple(*exprs)), sp.srepr(sp.Tuple(*args)), isinstance(expr, (list, tuple)))
    return _lambdify_cached(key, exprs if key[2] else exprs[0], args)


class _Printer(SciPyPrinter):
    """SciPy printer that writes small integer powers as products.

    NumPy fast-paths ``x**2`` and ``x**-1`` but sends ``x**-2.0`` to the generic
    ``pow``, measured 20x slower than ``1/(x*x)`` on the (N, nodes) arrays of the solver.
    """

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.as_base_exp()
        if exponent.is_Integer and 2 <= abs(int(exponent)) <= 4:
            product = "*".join([f"({self._print(base)})"] * abs(int(exponent)))
            return f"({product})" if exponent > 0 else f"(1/({product}))"
        return super()._print_Pow(expr, rational=rational)


@lru_cache(maxsize=256)
def _lambdify_cached(key: tuple, expr, args):  # noqa: ARG001 - key carries the identity
    target = list(expr) if isinstance(expr, tuple) else expr
    printer = _Printer({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                        "user_functions": {}})
    return sp.lambdify(args, target, modules=MODULES, cse=True, docstring_limit=200, printer=printer)


class CompiledDerivation:
    r"""Numeric functions generated from one :class:`~symrmt.derive.Derivation`.

    Built once per derivation (see :func:`compile_derivation`). Every function
    broadcasts NumPy arrays; entries that do not depend on :math:`\lambda` come back
    with a smaller shape (or as scalars), which the solver uses to skip work. With :math:`U`
    unknowns :math:`t` and :math:`T` spectral averages :math:`\tau`:

    ``fixed_point(lam, t, params)``
        a list of ``U + U*U + U`` arrays: the integrands of the :math:`\tau` that
        define the unknowns, their derivatives in each unknown and in
        :math:`\gamma` (from :math:`\partial R = -R\,\partial M\,R`).
    ``averages(lam, t, dt, params)``
        a list of ``2T`` arrays: every integrand, then its total
        :math:`\gamma`-derivative given :math:`\mathrm dt/\mathrm d\gamma` = ``dt``.
    ``woodbury(taus, params)``
        the core, Gram matrix and source vector of the Woodbury correction.
    """

    def __init__(self, derivation) -> None:
        from .derive import symbols as S

        self.derivation = derivation
        self.unknowns = derivation.unknowns
        self.taus = derivation.taus
        self.parameters = derivation.parameters
        self.fixed_point_taus = [derivation.tau_of_unknown(t) for t in self.unknowns]
        rates = [sp.Symbol(f"d{t.name}") for t in self.unknowns]
        R, M = derivation.resolvent, derivation.dyson

        def integrand(tau, matrix):
            i, j = int(tau.name[-2]) - 1, int(tau.name[-1]) - 1
            return (S.lam if tau.name.startswith("tauA") else 1) * matrix[i, j]

        partial = {x: -R * M.diff(x) * R for x in (*self.unknowns, S.gamma)}
        total = -R * (M.diff(S.gamma) + sum((M.diff(t) * r for t, r in zip(self.unknowns, rates)), sp.zeros(*M.shape))) * R
        fixed = [integrand(tau, R) for tau in self.fixed_point_taus]
        fixed += [integrand(tau, partial[x]) for tau in self.fixed_point_taus for x in self.unknowns]
        fixed += [integrand(tau, partial[S.gamma]) for tau in self.fixed_point_taus]
        every = [integrand(tau, R) for tau in self.taus] + [integrand(tau, total) for tau in self.taus]
        base = (S.lam, *self.unknowns)
        self._fixed_point = numpy_function(fixed, (*base, *self.parameters), name=f"{derivation.name} Dyson integrands")
        self._averages = numpy_function(every, (*base, *rates, *self.parameters), name=f"{derivation.name} averages")
        w = derivation.woodbury
        self.size = len(w.vectors)
        self._woodbury = numpy_function(
            [*w.core, *w.gram, *w.source], (*self.taus, *self.parameters), name=f"{derivation.name} Woodbury"
        ) if self.size else None

    @staticmethod
    def _stack(values, *arrays) -> np.ndarray:
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
        out = np.empty((len(values), *shape))
        for k, v in enumerate(values):
            out[k] = v                              # assignment broadcasts constants
        return out

    def fixed_point(self, lam, t, params) -> list:
        """The fixed-point integrands as a list (entries constant in lambda may not be full-shape)."""
        return self._fixed_point(lam, *t, *params)

    def averages(self, lam, t, dt, params) -> list:
        """Every integrand, then its total gamma-derivative, as a list."""
        return self._averages(lam, *t, *dt, *params)

    def woodbury(self, taus: np.ndarray, params):
        """``(core, gram, source)`` with shapes ``(..., k, k)``, ``(..., k, k)``, ``(..., k)``; ``taus`` is ``(T, ...)``."""
        k = self.size
        flat = self._stack(self._woodbury(*taus, *params), *taus, *params)
        shape = flat.shape[1:]
        core = np.moveaxis(flat[: k * k].reshape(k, k, *shape), (0, 1), (-2, -1))
        gram = np.moveaxis(flat[k * k: 2 * k * k].reshape(k, k, *shape), (0, 1), (-2, -1))
        source = np.moveaxis(flat[2 * k * k:], 0, -1)
        return core, gram, source


@lru_cache(maxsize=None)
def compile_derivation(derivation) -> CompiledDerivation:
    """Generate the numeric functions of a derivation, once (cached per derivation object)."""
    return CompiledDerivation(derivation)

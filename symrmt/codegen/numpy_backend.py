r"""The NumPy back end: the one place where SymPy expressions become NumPy functions.

Every numeric function symrmt evaluates from a derived expression (the nonlinearity f
in the simulator, and everything the solver evaluates of a
:class:`~symrmt.derive.FixedPointSystem`) is produced here by :func:`sympy.lambdify`,
with explicit modules and common-subexpression elimination, once per expression (cached
in memory by the expression's ``srepr``).

:func:`compile_system` generates the functions that :mod:`.calculus` writes for a system
and assembles them into the :class:`~symrmt.solve.CompiledSystem` the solver consumes. A
back end for another target (C, JAX, ...) would take the same
:class:`~.calculus.SystemCalculus`.

Generated functions do not pickle: send expressions to worker processes and
call :func:`numpy_function` there.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import sympy as sp
from sympy.printing.numpy import SciPyPrinter

from ..solve.compiled import CompiledObservable, CompiledSystem
from .numba_backend import PointwiseKernel, pointwise_kernel

if TYPE_CHECKING:      # the derivation is imported by compile_system only: lambdifying f needs none of it
    from ..derive.fixed_point import FixedPointSystem
    from .calculus import ObservableCalculus, SymbolicFunction, SystemCalculus

__all__ = ["numpy_function", "compile_system", "compile_calculus", "MODULES"]

#: scipy.special first so that erf, gamma, ... are vectorized ufuncs; then NumPy.
#: ``Heaviside`` at 0 is 1/2, SymPy's default.
MODULES = [{"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0), "im": np.imag, "re": np.real},
           "scipy", "numpy"]


def numpy_function(
    expr: sp.Basic | Sequence[sp.Basic], args: Sequence[sp.Symbol], name: str = "f"
) -> Callable[..., np.ndarray]:
    """Turn ``expr`` (an expression or a sequence of them) into a NumPy function of ``args``.

    Raises
    ------
    ValueError
        If ``expr`` has a free symbol that is not in ``args`` (the generated code
        would otherwise fail later with a bare ``NameError``).

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> from symrmt.codegen import numpy_function
    >>> x, y = sp.symbols("x y")
    >>> numpy_function(x**2 + y, (x, y))(np.array([1.0, 2.0]), 1.0).tolist()
    [2.0, 5.0]
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


def _generate(function: SymbolicFunction | None) -> Callable | None:
    """The NumPy function of a :class:`~.calculus.SymbolicFunction` (None stays None)."""
    if function is None:
        return None
    outputs = function.outputs[0] if function.single else list(function.outputs)
    return numpy_function(outputs, function.arguments, name=function.name)


def _kernel(function: SymbolicFunction | None, generated: Callable | None) -> PointwiseKernel | None:
    """The kernel compiled point by point from the ``generated`` NumPy function of ``function`` (or None)."""
    return None if function is None else pointwise_kernel(generated, len(function.outputs))


def _observable(calculus: ObservableCalculus, kernels: bool) -> CompiledObservable:
    value, rate = _generate(calculus.value), _generate(calculus.rate)
    return CompiledObservable(calculus.symbol, calculus.kind, calculus.size, calculus.real, value, rate,
                              _kernel(calculus.value, value) if kernels else None,
                              _kernel(calculus.rate, rate) if kernels else None)


def compile_calculus(calculus: SystemCalculus) -> CompiledSystem:
    """Generate every function of a :class:`~.calculus.SystemCalculus` and assemble the compiled system.

    An exact real system (no spectral law) also gets kernels for its residuals and observables, the same
    statements compiled point by point (:mod:`.numba_backend`, when Numba is installed; compiled only once they
    pay for themselves, :mod:`symrmt.runtime.jit`).
    """
    kernels = calculus.law is None and not calculus.complex
    residual = _generate(calculus.residual)
    branch = _generate(calculus.branch_sides)
    return CompiledSystem(
        name=calculus.name,
        parameters=calculus.parameters,
        domains=calculus.domains,
        unknowns=calculus.unknowns,
        complex=calculus.complex,
        variable=calculus.variable,
        predictor=calculus.predictor,
        law=calculus.law,
        law_function=_generate(calculus.law_parameters),
        law_keywords=calculus.law_keywords,
        averages_count=calculus.averages_count,
        fixed_point_averages_count=calculus.fixed_point_averages_count,
        fixed_point_function=_generate(calculus.fixed_point),
        residual_function=residual,
        averages_function=_generate(calculus.averages),
        observables=tuple(_observable(o, kernels) for o in calculus.observables),
        start_function=_generate(calculus.start),
        initial_function=_generate(calculus.initial),
        branch=calculus.branch,
        branch_function=branch,
        admissible={o: (_generate(bounds), accuracy) for o, (bounds, accuracy) in calculus.admissible.items()},
        residual_native=_kernel(calculus.residual, residual) if kernels else None,
        branch_native=_kernel(calculus.branch_sides, branch) if kernels else None,
    )


@lru_cache(maxsize=32)
def compile_system(system: FixedPointSystem) -> CompiledSystem:
    """Generate the numeric functions of a :class:`~symrmt.derive.FixedPointSystem`, once per system object.

    Examples
    --------
    >>> from symrmt.derive import linear_system
    >>> from symrmt.derive import symbols as S
    >>> from symrmt.derive.attention import ERROR
    >>> from symrmt.solve import solve
    >>> result = solve(compile_system(linear_system()), {S.c: 1.0, S.gamma: 1.0, S.theta: 0.0})
    >>> round(float(result[ERROR]), 6)       # noise only: 1/sqrt(5)
    0.447214
    """
    from .calculus import system_calculus

    return compile_calculus(system_calculus(system))

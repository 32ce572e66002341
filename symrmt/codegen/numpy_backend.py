r"""The NumPy back end: the functions of a derived system, each made by the one lambdify.

Every numeric function symrmt evaluates from a derived expression (the nonlinearity f
in the simulator, and everything the solver evaluates of a
:class:`~symrmt.derive.FixedPointSystem`) is produced by :func:`symrmt.lambdify.numpy_function`
(:func:`sympy.lambdify` with explicit modules and common-subexpression elimination, once per
expression, cached in memory by the expression's ``srepr``), re-exported here.

:func:`compile_system` generates the functions that :mod:`.calculus` writes for a system
and assembles them into the :class:`~symrmt.solve.CompiledSystem` the solver consumes. A
back end for another target (C, JAX, ...) would take the same
:class:`~.calculus.SystemCalculus`.

Generated functions do not pickle: send expressions to worker processes and
call :func:`numpy_function` there.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from ..lambdify import MODULES, numpy_function
from ..solve.compiled import CompiledObservable, CompiledSystem
from .numba_backend import PointwiseKernel, pointwise_kernel

if TYPE_CHECKING:      # the derivation is imported by compile_system only: lambdifying f needs none of it
    from ..derive.fixed_point import FixedPointSystem
    from .calculus import ObservableCalculus, SymbolicFunction, SystemCalculus

__all__ = ["numpy_function", "compile_system", "compile_calculus", "MODULES"]


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

    Parameters
    ----------
    system : FixedPointSystem
        A derived system (:mod:`symrmt.derive`: e.g. ``symrmt.derive.linear_system()``), quadrature or algebraic
        form. The 32 most recent systems are cached, so that a system is compiled once.

    Returns
    -------
    CompiledSystem
        The residual, the fixed-point map, the averages, the observables and their derivatives, the continuation
        start, the initial guess and the branch test as NumPy functions of the parameter arrays, with the
        parameter domains: what :func:`symrmt.solve.solve` takes.

    Raises
    ------
    TypeError
        ``system`` is not a :class:`~symrmt.derive.FixedPointSystem`.
    ValueError
        A system the solver cannot evaluate: averages over several spectral laws, a parameter domain that is not
        an interval, an observable whose derivative cannot be written, or a matrix expression the code
        generator does not know.

    See Also
    --------
    symrmt.codegen.system_cache : The compiled systems kept on disk, so that a process need not derive them.
    symrmt.solve.solve : Solves the compiled system along its continuation path.
    symrmt.derive.algebraic_form : The system with its spectral averages in closed form, compiled the same way.

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
    from .calculus import system_calculus  # heavy: SymPy

    return compile_calculus(system_calculus(system))

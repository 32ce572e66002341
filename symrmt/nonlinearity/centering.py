r"""Centering: any f has Hermite data, but the attention theory and the simulator need :math:`a_0 = 0`.

:func:`require_centered` is the one place that refuses an f that is not centered, and its
message says how to center: ``hermite(f, center=True)`` in Python (pass the result as f),
``--center`` on the command line, ``center = true`` in a sweep spec, or subtracting
:math:`a_0` in the formula. :func:`centered_for_simulation` applies it to whatever the
simulator is given; for a Python callable it needs NumPy and SciPy only.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from symrmt.errors import NonlinearityError, ParameterError

__all__ = ["A0_TOL", "require_centered", "centered_for_simulation"]

#: |a_0| above this (times max(1, sqrt(nu))) is not centered.
A0_TOL = 1e-12


def require_centered(h: Any, values: Mapping[str, np.ndarray] | None = None,
                     params: Mapping[str, Any] | None = None) -> None:
    """The body of :meth:`~symrmt.nonlinearity.HermiteCoefficients.require_centered` (its docstring is the contract)."""
    if values is None and h.parameters:     # only a known a_0(s): numeric ones are checked per point, with values
        if h.exact.get("a0") is not None and h.exact["a0"] != 0:
            raise _not_centered(h.f, float("nan"), "", h.exact["a0"])
        return
    if values is None:
        _check(h.a0, h.nu, (h.error or {}).get("a0", 0.0), h.f, h.exact.get("a0"))
        return
    a0, nu = np.asarray(values["a0"], float), np.asarray(values["nu"], float)
    bad = np.abs(a0) > A0_TOL * np.maximum(1.0, np.sqrt(np.abs(nu)))
    if np.any(bad):
        index = np.unravel_index(np.argmax(bad), bad.shape) if bad.ndim else ()
        point = {k: float(np.broadcast_to(np.asarray(v, float), bad.shape)[index]) for k, v in (params or {}).items()}
        where = " at " + ", ".join(f"{k} = {v:.6g}" for k, v in point.items()) if point else ""
        raise _not_centered(h.f, float(a0[index]), where, h.exact.get("a0"))


def centered_for_simulation(f: Any, params: Mapping[str, float] | None = None) -> Any:
    """What the simulator draws with: f (at the values ``params`` of its parameters), refused unless centered.

    A :class:`~symrmt.nonlinearity.HermiteCoefficients` gives its own f (already centered when it was
    made with ``center=True``); a formula or a SymPy expression is checked by its quadrature
    (:func:`~symrmt.nonlinearity.hermite` with ``method="numeric"``, cached); a Python callable by its
    float64 Hermite data (:mod:`symrmt.nonlinearity.callables`, no SymPy), and it takes no ``params``.
    """
    if _is_hermite_data(f):
        h = f.at(**params) if params else f
        h.require_centered()
        return h.f
    if callable(f) and not isinstance(f, str) and not _is_sympy(f):
        if params:
            raise ParameterError(f"params = {params!r}: a Python callable has no symbolic parameters; bind their "
                                 "values in it (lambda x: np.tanh(s * x)) or give f as a formula")
        _check_callable(f)
        return f
    from .api import hermite

    h = hermite(f, method="numeric", params=params)
    h.require_centered()
    return h.f


def _check_callable(f: Callable) -> None:
    from .adapter import label_of
    from .callables import callable_coefficients

    values, errors = callable_coefficients(f, label_of(f))
    _check(values["a0"], values["nu"], errors["a0"], label_of(f), None)


def _is_hermite_data(obj: Any) -> bool:
    """A :class:`~symrmt.nonlinearity.HermiteCoefficients`, told without importing SymPy (its module does)."""
    import sys

    api = sys.modules.get("symrmt.nonlinearity.api")     # an instance exists only once its module is loaded
    return api is not None and isinstance(obj, api.HermiteCoefficients)


def _is_sympy(obj: Any) -> bool:
    import sys

    sympy = sys.modules.get("sympy")          # SymPy objects exist only if SymPy was imported
    return sympy is not None and isinstance(obj, (sympy.Basic, sympy.FunctionClass))


def _check(a0: float, nu: float, error: float, f: Any, exact: Any) -> None:
    if abs(a0) > max(A0_TOL * max(1.0, math.sqrt(nu)), 10 * error):
        raise _not_centered(f, a0, "", exact)


def _not_centered(f: Any, a0: float, where: str, exact: Any) -> NonlinearityError:
    closed = f" = {exact}" if exact is not None and not getattr(exact, "is_Float", False) else ""
    subtract = f"{f} - ({exact})" if closed else f"f minus {a0:.15g}"
    number = "" if math.isnan(a0) else f" = {a0:.6g}"
    return NonlinearityError(
        f"f = {f} is not centered{where}: a_0 = E f(xi){closed}{number}, and the attention theory and the "
        "simulator need a_0 = 0. Center it with hermite(f, center=True) in Python (pass the result as f), "
        f"--center on the command line or center = true in a sweep spec, or subtract a_0 in the formula ({subtract})"
    )

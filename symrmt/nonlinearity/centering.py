r"""Centering: any f has Hermite data, but the attention theory and the simulator need :math:`a_0 = 0`.

:func:`require_centered` is the one place that refuses an f that is not centered (:func:`check_a0`
for one value), and its message (:func:`not_centered`) says how to center: ``hermite(f, center=True)``
in Python (pass the result as f), ``--center`` on the command line, ``center = true`` in a sweep spec,
or subtracting :math:`a_0` in the formula. :func:`~.simulated.centered_for_simulation` applies it to
whatever the simulator is given.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Mapping

import numpy as np

from symrmt.errors import NonlinearityError

__all__ = ["A0_TOL", "require_centered", "check_a0", "not_centered"]

#: |a_0| above this (times max(1, sqrt(nu))) is not centered.
A0_TOL = 1e-12


def require_centered(h: Any, values: Mapping[str, np.ndarray] | None = None,
                     params: Mapping[str, Any] | None = None) -> None:
    """The body of :meth:`~symrmt.nonlinearity.HermiteCoefficients.require_centered` (its docstring is the contract)."""
    if values is None and h.parameters:     # only a known a_0(s): numeric ones are checked per point, with values
        if h.exact.get("a0") is not None and h.exact["a0"] != 0:
            raise not_centered(h.f, float("nan"), "", h.exact["a0"])
        return
    if values is None:
        check_a0(h.a0, h.nu, (h.error or {}).get("a0", 0.0), h.f, h.exact.get("a0"))
        return
    a0, nu = np.asarray(values["a0"], float), np.asarray(values["nu"], float)
    bad = np.abs(a0) > A0_TOL * np.maximum(1.0, np.sqrt(np.abs(nu)))
    if np.any(bad):
        index = np.unravel_index(np.argmax(bad), bad.shape) if bad.ndim else ()
        point = {k: float(np.broadcast_to(np.asarray(v, float), bad.shape)[index]) for k, v in (params or {}).items()}
        where = " at " + ", ".join(f"{k} = {v:.6g}" for k, v in point.items()) if point else ""
        raise not_centered(h.f, float(a0[index]), where, h.exact.get("a0"))


def check_a0(a0: float, nu: float, error: float, f: Any, exact: Any) -> None:
    r"""Refuse ``a0`` above :data:`A0_TOL` times :math:`\max(1, \sqrt\nu)` or ten times its numerical ``error``."""
    if abs(a0) > max(A0_TOL * max(1.0, math.sqrt(nu)), 10 * error):
        raise not_centered(f, a0, "", exact)


def not_centered(f: Any, a0: float, where: str, exact: Any) -> NonlinearityError:
    """The error for an f that is not centered, which says how to center it."""
    closed = f" = {exact}" if exact is not None and not getattr(exact, "is_Float", False) else ""
    sympy = sys.modules.get("sympy")          # an f that is a SymPy object has imported it; a callable needs none
    if closed and sympy is not None and isinstance(f, sympy.Basic):
        subtract = str(f - exact)                # SymPy's own difference: x**2 - 1, not x**2 - (1)
    else:
        subtract = f"{f} - ({exact})" if closed else f"{f} - {a0:.15g}" if a0 >= 0 else f"{f} + {-a0:.15g}"
    # The value once: its float only where that reads differently from the closed form (3/10 = 0.3, not 1 = 1).
    number = "" if math.isnan(a0) or (closed and f"{a0:.6g}" == str(exact)) else f" = {a0:.6g}"
    return NonlinearityError(
        f"f = {f} is not centered{where}: a_0 = E f(xi){closed}{number}, and the attention theory and the "
        "simulator need a_0 = 0. Center it with hermite(f, center=True) in Python (pass the result as f), "
        f"--center on the command line or center = true in a sweep spec, or subtract a_0 in the formula, which gives {subtract}"
    )

r"""What the simulator draws with: f checked to be centered, without SymPy for a Python callable.

:func:`centered_for_simulation` applies the rule of :mod:`.centering` to whatever the simulator is
given. A formula or a SymPy expression goes through :func:`~symrmt.nonlinearity.hermite`, whose
module imports SymPy, so that module is imported only then: ``import symrmt.simulation`` and a
simulation of a Python callable load NumPy and SciPy only.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Mapping

from symrmt.errors import ParameterError

from .adapter import label_of
from .callables import callable_coefficients
from .centering import check_a0

__all__ = ["centered_for_simulation"]


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
    from .api import hermite  # heavy: SymPy (only a formula or an expression needs it)

    h = hermite(f, method="numeric", params=params)
    h.require_centered()
    return h.f


def _check_callable(f: Callable) -> None:
    values, errors = callable_coefficients(f, label_of(f))
    check_a0(values["a0"], values["nu"], errors["a0"], label_of(f), None)


def _is_hermite_data(obj: Any) -> bool:
    """A :class:`~symrmt.nonlinearity.HermiteCoefficients`, told without importing SymPy (its module does)."""
    api = sys.modules.get("symrmt.nonlinearity.api")     # an instance exists only once its module is loaded
    return api is not None and isinstance(obj, api.HermiteCoefficients)


def _is_sympy(obj: Any) -> bool:
    sympy = sys.modules.get("sympy")          # SymPy objects exist only if SymPy was imported
    return sympy is not None and isinstance(obj, (sympy.Basic, sympy.FunctionClass))

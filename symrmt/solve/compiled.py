r"""What the solver consumes: a fixed-point system as NumPy functions and the data that say how to use them.

:func:`symrmt.codegen.compile_system` produces a :class:`CompiledSystem` from a
:class:`~symrmt.derive.FixedPointSystem`; this module only holds it (NumPy, no SymPy).
Parameters, unknowns and observables are identified by the system's own objects (its
SymPy symbols), which the solver treats as opaque keys: :func:`~symrmt.solve.solve` takes
one array per parameter symbol and returns the observables by their symbols.

Every function broadcasts NumPy arrays; entries that do not depend on :math:`\lambda` may
come back with a smaller shape (or as scalars), which the solver uses to skip work. With
:math:`U` unknowns :math:`t`, :math:`P` averages :math:`\tau` used by the residuals (of
:math:`A` in all) and the continuation variable :math:`v`:

``fixed_point(lam, t, params)``
    ``P + P*U + P`` arrays: the integrands :math:`g_k` of the residuals' averages,
    :math:`\partial g_k/\partial t_u` and :math:`\partial g_k/\partial v`.
``residual(t, tau, params)``
    ``U + U*U + U*P + U`` arrays: :math:`F`, :math:`\partial F/\partial t`,
    :math:`\partial F/\partial\tau`, :math:`\partial F/\partial v`.
``averages(lam, t, dt, params)``
    ``A`` integrands, then (if the observables need derivatives) their total
    :math:`v`-derivatives given :math:`\mathrm dt/\mathrm dv` = ``dt``.
``observables``
    one :class:`CompiledObservable` per observable, in order.

``params`` are arrays in the order of :attr:`CompiledSystem.parameters`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable, Mapping

import numpy as np

__all__ = ["CompiledSystem", "CompiledObservable"]


@dataclass(frozen=True)
class CompiledObservable:
    r"""One observable: ``value(*taus, *t, *earlier, *params)`` and, if defined, ``rate(...)`` along the variable.

    ``kind = "woodbury"``: ``value`` returns the entries of a Woodbury form, evaluated by the solver as
    :math:`\text{offset} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g` (``size`` vectors);
    ``kind = "expression"``: one array. ``rate`` takes ``(*taus, *dtaus, *t, *dt, *earlier, *params)``.
    ``earlier`` holds the value and rate of each observable before this one. ``real`` says whether the
    values are real (always, unless the system's unknowns are complex and that could not be proved).
    ``value_native`` and ``rate_native``: the same functions as machine code, as
    :attr:`CompiledSystem.residual_native` (exact real systems), or None.

    Examples
    --------
    >>> from symrmt import models
    >>> phi, error = models.LINEAR.compiled(1).observables
    >>> str(error.key), error.kind, error.real
    ('E', 'expression', True)
    """

    key: Hashable
    kind: str
    size: int
    real: bool
    value: Callable
    rate: Callable | None
    value_native: Callable | None = None
    rate_native: Callable | None = None

    @property
    def name(self) -> str:
        return str(self.key)


@dataclass(frozen=True, eq=False)
class CompiledSystem:
    """A fixed-point system as NumPy functions (see the module docstring); built by :mod:`symrmt.codegen`.

    Attributes
    ----------
    name : str
    parameters : tuple
        The parameter keys (the system's symbols), in the order the functions take them.
    domains : dict
        Parameter key -> ``(lower, upper, lower_open, upper_open)``.
    unknowns : tuple
        The unknowns' keys.
    complex : bool
        Whether the unknowns are complex.
    variable : object
        The continuation variable (one of ``parameters``).
    predictor : {"reciprocal", "linear"}
        Extrapolation of the unknowns along the path: in :math:`1/v` or in :math:`v`.
    law : str or None
        The spectral law (a key of :data:`symrmt.solve.RULES`); its parameters are
        ``law_parameters(params)``.
    averages_count, fixed_point_averages_count : int
        How many averages there are, and how many of them the residuals use.
    branch : tuple of str
        The comparison (``">"``, ``">="``, ``"<"``, ``"<="``) of each branch condition, whose sides
        ``branch_sides(t, params)`` returns as ``[lhs_1, rhs_1, lhs_2, ...]``.
    admissible : dict
        Observable key -> ``(bounds(*params) -> [lower, upper], accuracy)``.
    residual_native : callable or None
        For an exact system (no law), the residual function as machine code, one loop over the points
        (:mod:`symrmt.codegen.numba_backend`): ``residual_native([*t, *params], N)``
        returns what :meth:`residual` returns, as one ``(outputs, N)`` array, or None while it is not
        compiled (then ``residual_native.spend(seconds)`` records the time of the NumPy function). None
        when there is none.
    branch_native : callable or None
        The branch conditions' function as machine code likewise (exact systems with branch conditions); the
        compiled path of :mod:`~symrmt.solve.native_path` calls both.

    Examples
    --------
    >>> from symrmt import models
    >>> compiled = models.LINEAR.compiled(1)
    >>> compiled.name, len(compiled.parameters), compiled.unknowns
    ('linear', 3, ())
    """

    name: str
    parameters: tuple
    domains: Mapping
    unknowns: tuple
    complex: bool
    variable: Hashable
    predictor: str
    law: str | None
    law_function: Callable | None
    law_keywords: tuple[str, ...]
    averages_count: int
    fixed_point_averages_count: int
    fixed_point_function: Callable | None
    residual_function: Callable | None
    averages_function: Callable | None
    observables: tuple[CompiledObservable, ...]
    start_function: Callable
    initial_function: Callable | None
    branch: tuple[str, ...]
    branch_function: Callable | None
    admissible: Mapping
    residual_native: Callable | None = None
    branch_native: Callable | None = None
    variable_index: int = field(init=False)

    def __post_init__(self) -> None:
        if self.variable not in self.parameters:
            raise ValueError(f"{self.name}: the continuation variable {self.variable} is not a parameter")
        object.__setattr__(self, "variable_index", self.parameters.index(self.variable))

    def law_parameters(self, params) -> dict[str, np.ndarray]:
        """The spectral law's parameters at ``params``, by the keywords of its quadrature rule."""
        if self.law_function is None:
            return {}
        return dict(zip(self.law_keywords, self.law_function(*params)))

    def fixed_point(self, lam, t, params) -> list:
        """Integrands of the residuals' averages and their partials (see the module docstring)."""
        return _present(self.fixed_point_function, self.name, "fixed-point integrands")(lam, *t, *params)

    def residual(self, t, tau, params) -> list:
        """Residuals and their partials (see the module docstring)."""
        return _present(self.residual_function, self.name, "residuals")(*t, *tau, *params)

    def averages(self, lam, t, dt, params) -> list:
        """Every integrand, then (if needed) its total derivative along the continuation variable."""
        return _present(self.averages_function, self.name, "integrands")(lam, *t, *dt, *params)

    def branch_sides(self, t, params) -> list:
        """``[lhs_1, rhs_1, lhs_2, rhs_2, ...]`` of the branch conditions at ``t``."""
        return _present(self.branch_function, self.name, "branch conditions")(*t, *params)

    def start(self, params) -> np.ndarray:
        """The continuation variable's start value at each point."""
        return np.asarray(self.start_function(*params), dtype=float)

    def initial(self, params) -> list:
        """The initial guess of the unknowns at the start."""
        return _present(self.initial_function, self.name, "initial guess")(*params)


def _present(function: Callable | None, system: str, what: str) -> Callable:
    """``function``, which a system without that part (no averages, no branch conditions) does not have."""
    if function is None:
        raise ValueError(f"{system}: the compiled system has no {what}")
    return function

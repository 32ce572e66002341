r"""The ridgeless limit :math:`E(0^+)` and the rate of its approach, from a ladder of ridges."""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import ConvergenceError
from ..geometry import Geometry
from ..models import ATTENTION
from ..models import get as get_model
from ..models import names
from ..validate import choice, positive_scalar, within
from .forms import DEFAULT_FORM
from .ridge import solve_model

__all__ = ["RIDGELESS_GAMMAS", "RIDGELESS_SIGNIFICANT", "RidgelessLimit", "ridgeless_error"]


#: The ridge ladder of the ridgeless limit: half-decade steps from 1e-2 down to 1e-9 (the points the
#: quadrature cannot resolve, e.g. below about 3e-9 at c = 1, are left out).
RIDGELESS_GAMMAS = 10.0 ** -np.arange(2.0, 9.01, 0.5)
#: Differences of E between two steps of the ladder below this are at the level of the solver's accuracy
#: (about 1e-10 on E), not the approach to the limit, and do not measure its rate.
RIDGELESS_SIGNIFICANT = 1e-9


@dataclass(frozen=True)
class RidgelessLimit:
    r"""The ridgeless limit and how it is approached: :math:`E(\gamma) \approx E(0^+) + C\gamma^\alpha`.

    Attributes
    ----------
    limit : float
        :math:`E(0^+)`; ``float(result)`` is this number.
    exponent : float
        :math:`\alpha`, measured between the three smallest :math:`\gamma` of the ladder where
        :math:`E` still moves (see :func:`ridgeless_error` for the values the theory predicts).
    coefficient : float
        :math:`C`.
    gamma, error : numpy.ndarray
        The ladder of :math:`\gamma` down to where :math:`E` stops approaching the limit measurably,
        and :math:`E` there; the exponent is measured at its last three points.

    Examples
    --------
    >>> from symrmt.theory import ridgeless_error
    >>> limit = ridgeless_error("tanh(x)", c=2.0)             # p > n: interpolation, E(0+) = 0
    >>> limit.limit, round(limit.exponent, 3)
    (0.0, 0.5)
    """

    limit: float
    exponent: float
    coefficient: float
    gamma: np.ndarray
    error: np.ndarray

    def __float__(self) -> float:
        return self.limit

    def __str__(self) -> str:
        return (f"E(0+) = {self.limit:.6g}; E(gamma) - E(0+) ~ {self.coefficient:.3g} gamma^{self.exponent:.3f} "
                f"(measured at gamma = {self.gamma[-1]:.2g})")


def ridgeless_error(f, c: float, geometry: Geometry | None = None, d: float = 0.0, kind: str = ATTENTION.name,
                    tolerance: float = 1e-5, gram: Any = None,
                    params: Mapping[str, float] | None = None, form: str = DEFAULT_FORM) -> RidgelessLimit:
    r"""The ridgeless limit :math:`\lim_{\gamma \to 0^+} E(\gamma)` and the rate at which it is approached.

    :math:`E(\gamma) = \gamma^2 \int \mathrm d\mu_y(\lambda)/(\lambda + \gamma)^2`, with
    :math:`\mu_y` the spectral measure of :math:`K^\top C K` seen by :math:`y` (its mass is
    :math:`\|y\|^2/n = 1`). :math:`E` increases with :math:`\gamma`, so the limit always exists:
    it is the mass :math:`\mu_y(\{0\})`, the share of :math:`y` in the null space of
    :math:`K^\top C K`, and a density :math:`\propto \lambda^\beta` of :math:`\mu_y` at 0 gives
    :math:`E(\gamma) - E(0^+) \propto \gamma^{1+\beta}` (:math:`\gamma^2` when the spectrum has a
    gap at 0). Hence (docs/theory.md, "Ridgeless limit"):

    * :math:`c < 1`: :math:`C = X^\top X/n` has rank :math:`p < n`, the limit is positive
      (:math:`1 - c` without signal), and it is approached like :math:`\gamma^2`;
    * :math:`c \ge 1`: :math:`K^\top C K` has no null space (:math:`C` has full rank and the
      Gaussian equivalent of :math:`K` has no atom), so the limit is 0, approached like
      :math:`\sqrt\gamma` when the spectrum of :math:`K` reaches 0 (:math:`c > 1`) or :math:`C`'s
      does (the hard edge at :math:`c = 1`), like :math:`\gamma^{1/3}` when both do (a product of
      two such matrices, as for two Ginibre factors), and like :math:`\gamma^2` when neither does.

    The theory is solved on :data:`RIDGELESS_GAMMAS`; the exponent and coefficient come from
    the three smallest :math:`\gamma` where :math:`E` still approaches its limit measurably
    (steps above :data:`RIDGELESS_SIGNIFICANT`, each smaller than the one before), and for :math:`c < 1` the limit
    is their Aitken extrapolation (exact for :math:`E_0 + C\gamma^\alpha`), which must agree with
    that of the three points before within ``tolerance``.

    Returns
    -------
    RidgelessLimit
        ``limit``, ``exponent``, ``coefficient`` and the ladder.

    Raises
    ------
    ConvergenceError
        Fewer than three :math:`\gamma` of the ladder could be solved (e.g. :math:`|d|` so large that
        the quadrature needs :math:`\gamma \gtrsim 10^{-6} d^2`), or for :math:`c < 1` the
        extrapolations disagree by more than ``tolerance``.

    ``params`` gives one value per symbolic parameter of f, as in :func:`attention_error`; ``form`` as there.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity (centred), or its Hermite data; ignored for ``kind="linear"``.
    c : float
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    geometry, gram : optional
        The signal and the weights, as in :func:`attention_error`.
    d : float
        The diagonal :math:`K_{ii}`, :math:`|d| \le 100`; default 0.
    kind : {"attention", "linear"}
        Which error.
    tolerance : float
        How closely two extrapolations must agree for :math:`c < 1` (default 1e-5).
    params : dict, optional
        One value per symbolic parameter of f.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it.

    See Also
    --------
    attention_error, linear_error : The error at a given ridge.

    Examples
    --------
    >>> r = ridgeless_error("tanh(x)", 0.5)          # noise only: the null space holds 1 - c of y
    >>> round(r.limit, 6), round(r.exponent, 2)
    (0.5, 2.0)
    >>> r = ridgeless_error("tanh(x)", 1.0, kind="linear")   # E_lin = sqrt(gamma)/2 + O(gamma) at c = 1
    >>> r.limit, round(r.exponent, 3), round(r.coefficient, 3)
    (0.0, 0.5, 0.5)
    """
    c = positive_scalar("c", c)
    ridge_models = names(lambda m: m.derived and "E" in m.observables)     # a derived ridge system
    model = get_model(choice("kind", kind, ridge_models))
    tolerance = within("tolerance", positive_scalar("tolerance", tolerance), 0.0, 1.0, "(E lies in [0, 1])")
    arguments = dict(f=f, c=c, gamma=RIDGELESS_GAMMAS, geometry=geometry, d=d, gram=gram, params=params)
    taken = inspect.signature(model.read).parameters
    values = solve_model(model, form, True, **{k: v for k, v in arguments.items() if k in taken}).error
    gamma, error = _approach(values)
    last = error.size - 1
    if last < 2:
        raise ConvergenceError(f"the ridgeless limit needs E at three or more gamma of the ladder "
                               f"{RIDGELESS_GAMMAS[0]:g}..{RIDGELESS_GAMMAS[-1]:g} where it still moves towards "
                               f"its limit; only {gamma.tolist()} (values {np.round(error, 8).tolist()}).")
    limit, exponent, coefficient = _aitken(gamma[-3:], error[-3:])
    if c < 1:
        limit = _settled_limit(gamma, error, last, limit, tolerance)
    else:
        limit = 0.0                                  # no null space: derived, not extrapolated
        coefficient = float(error[last] / gamma[last] ** exponent)
    return RidgelessLimit(limit, exponent, coefficient, gamma, error)


def _approach(values: np.ma.MaskedArray) -> tuple[np.ndarray, np.ndarray]:
    """The ladder down to where E stops approaching its limit measurably.

    That is where a point could not be solved, or where the step of E is no longer positive,
    above :data:`RIDGELESS_SIGNIFICANT` and smaller than the step before (the solver's accuracy).
    """
    failed = np.ma.getmaskarray(values)
    stop = int(np.argmax(failed)) if failed.any() else failed.size
    error = np.asarray(values[:stop], float)
    steps = error[:-1] - error[1:]
    measurable = steps > RIDGELESS_SIGNIFICANT
    measurable[1:] &= steps[1:] < steps[:-1]
    count = int(np.argmin(measurable)) if not measurable.all() else measurable.size
    return RIDGELESS_GAMMAS[:count + 1], error[:count + 1]


def _aitken(gamma: np.ndarray, error: np.ndarray) -> tuple[float, float, float]:
    r"""``(E_0, alpha, C)`` of :math:`E = E_0 + C\gamma^\alpha` through three points of a geometric ladder."""
    step = np.log(gamma[1] / gamma[0])
    first, second = error[0] - error[1], error[1] - error[2]     # both > RIDGELESS_SIGNIFICANT
    exponent = float(np.log(second / first) / step)
    limit = float(error[2] - second**2 / (first - second))
    coefficient = float((error[2] - limit) / gamma[2] ** exponent)
    return limit, exponent, coefficient


def _settled_limit(gamma: np.ndarray, error: np.ndarray, last: int, limit: float, tolerance: float) -> float:
    """The extrapolated limit for c < 1, checked against the extrapolation one step up the ladder."""
    if last >= 3:
        previous = _aitken(gamma[last - 3: last], error[last - 3: last])[0]
        if abs(previous - limit) > tolerance:
            raise ConvergenceError(
                f"the ridgeless limit did not settle: extrapolations {previous:.8g} and {limit:.8g} from "
                f"gamma down to {gamma[last - 1]:.2g} and {gamma[last]:.2g} differ by more than {tolerance:g}.")
    return float(np.clip(limit, 0.0, 1.0))



r"""Hermite data of :math:`f(\sigma\,\cdot)`: f at the scale of the scores, and the correlation of a pair of scores.

For a general :math:`p \times p` weight matrix :math:`M` the off-diagonal scores
:math:`S_{ij} = z_i^\top M z_j/\sqrt p` are, to leading order, centred Gaussians of variance
:math:`\sigma^2 = \|M\|_F^2/p`, and the pair :math:`(S_{ij}, S_{ji})` has the correlation
:math:`\rho = \operatorname{tr}(M^2)/\|M\|_F^2 \in [-1, 1]`; softmax attention at temperature :math:`\tau` is
:math:`e^{x/\tau}`, that is :math:`f = e^x` at :math:`\sigma = 1/\tau`. So f enters through the Hermite data of
:math:`f_\sigma = f(\sigma\,\cdot)`,

.. math::

    a_\ell(\sigma) = \frac{\mathbb E[f(\sigma\xi)\mathrm{He}_\ell(\xi)]}{\sqrt{\ell!}},\quad
    \alpha = \frac{a_1(\sigma)}{\sigma} = \mathbb E[f'(\sigma\xi)],\quad
    \nu(\sigma) = \mathbb E f(\sigma\xi)^2,\quad
    b^2 = \nu(\sigma) - a_0(\sigma)^2 - a_1(\sigma)^2 ,

and, for the pair, through the cross-covariance of the part of order :math:`\ell \ge 2`,
:math:`g(x) = f_\sigma(x) - a_0 - a_1 x`: by Mehler's formula
:math:`\beta = \mathbb E[g(\xi) g(\xi')] = \sum_{\ell\ge2} a_\ell(\sigma)^2 \rho^\ell` at
:math:`\operatorname{corr}(\xi, \xi') = \rho`, and the elliptic parameter is :math:`\tau_e = \beta/b^2 \in [-1, 1]`.

The numbers come from :func:`~symrmt.nonlinearity.hermite`, by its rules, and nowhere else. A formula f
becomes :math:`f(\sigma x)` with :math:`\sigma` a positive symbolic parameter (a negative scale is the mirrored
:math:`f(-x)` at :math:`|\sigma|`): its data are closed forms in :math:`\sigma` where
:func:`~symrmt.nonlinearity.hermite` finds them (found once per f, kept in memory and on disk), otherwise the
float64 Gauss--Hermite rules of :meth:`~symrmt.nonlinearity.HermiteCoefficients.numeric`, kept where three rules
agree to :math:`10^{-11}` of the scale, and the verified 30-digit quadrature where they do not. A Python
callable gets :func:`~symrmt.nonlinearity.hermite`'s numeric data of ``lambda x: f(sigma * x)`` (error
estimates below :math:`10^{-6}` of the scale). Centring is :func:`~symrmt.nonlinearity.hermite`'s: ``center=True``
subtracts :math:`a_0(\sigma)` (exactly where its closed form is known), and otherwise an f with
:math:`|a_0(\sigma)| > 10^{-12}\max(1, \sqrt\nu)` is refused with the message that says how to centre it.

:math:`\beta` is the one datum outside :func:`~symrmt.nonlinearity.hermite`: a two-dimensional integral, by the
tensor Gauss--Hermite rule of :data:`PAIR_ORDERS` [1]_ nodes in each variable (:math:`\beta = b^2` exactly at
:math:`\rho = 1`, 0 at :math:`\rho = 0`), with the difference of the two rules as its error estimate
(``beta_error``).

References
----------
.. [1] G. H. Golub and J. H. Welsch, "Calculation of Gauss quadrature rules", Math. Comp. 23 (1969).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np
import sympy as sp
from numpy.polynomial.hermite_e import hermegauss

from symrmt.errors import ParameterError

from .adapter import numpy_callable
from .api import HermiteCoefficients, hermite
from .constants import X
from .parse import formula_parameters, parse_nonlinearity

__all__ = ["ScaledHermite", "scaled_hermite", "scaled_data", "PAIR_ORDERS", "SIGMA"]

#: The scale as a parameter of :math:`f(\sigma x)` (positive: a negative scale mirrors f).
SIGMA = sp.Symbol("sigma", positive=True)
#: Nodes per variable of the two tensor Gauss--Hermite rules of :math:`\beta` (the larger one's value is kept).
PAIR_ORDERS = (96, 128)


@dataclass(frozen=True)
class ScaledHermite:
    r"""Hermite data of :math:`f(\sigma\,\cdot)` and the elliptic correlation of its nonlinear part (module docstring).

    Attributes
    ----------
    sigma, rho : float
        The scale :math:`\sigma` and the correlation :math:`\rho` of the pair of scores.
    a0, a1, nu : float
        :math:`a_0(\sigma)` (0 once centred), :math:`a_1(\sigma)`, :math:`\nu(\sigma)`.
    alpha : float
        :math:`a_1(\sigma)/\sigma = \mathbb E f'(\sigma\xi)`, the coefficient of :math:`X^\top M X/p` in K.
    b2 : float
        :math:`\nu - a_0^2 - a_1^2`, the variance of the order-:math:`\ge 2` part.
    beta : float
        :math:`\sum_{\ell \ge 2} a_\ell^2\rho^\ell`, its cross-covariance between (i, j) and (j, i).
    beta_error : float
        The error estimate of ``beta`` (0 where it is exact: :math:`\rho \in \{0, 1\}` or :math:`b = 0`).

    Examples
    --------
    >>> h = ScaledHermite(1.0, 0.5, 0.0, 0.6, 0.5, 0.6, 0.14, 0.07)
    >>> h.tau_e
    0.5
    """

    sigma: float
    rho: float
    a0: float
    a1: float
    nu: float
    alpha: float
    b2: float
    beta: float
    beta_error: float = 0.0

    @property
    def tau_e(self) -> float:
        r"""The elliptic parameter :math:`\beta/b^2` (0 when :math:`b = 0`)."""
        return self.beta / self.b2 if self.b2 > 0 else 0.0


def scaled_data(f: Any, sigma: Any, center: bool = False) -> dict[str, np.ndarray]:
    r"""``a0, a1, a2, nu`` of :math:`f(\sigma\,\cdot)` as float64 arrays of the shape of ``sigma``.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or callable
        The nonlinearity, without parameters (a :class:`HermiteCoefficients` stands for the f it holds).
    sigma : float or array_like
        The scales: real, finite and nonzero (a negative one is :math:`f(-x)` at :math:`|\sigma|`).
    center : bool
        Subtract :math:`a_0(\sigma)`, as :func:`~symrmt.nonlinearity.hermite` does; otherwise a non-centred
        :math:`f(\sigma\,\cdot)` is refused (:class:`~symrmt.errors.NonlinearityError`, saying how to centre).

    Returns
    -------
    dict of str to numpy.ndarray
        ``"a0"``, ``"a1"``, ``"a2"`` and ``"nu"``: :math:`a_\ell(\sigma) = \mathbb E[f(\sigma\xi)\mathrm{He}_\ell(\xi)]/
        \sqrt{\ell!}` and :math:`\nu(\sigma) = \mathbb E f(\sigma\xi)^2`, float64 of the shape of ``sigma`` (a 0-d
        value for a scalar); :math:`a_0 = 0` with ``center``.

    Raises
    ------
    ParameterError
        A ``sigma`` that is not real, not finite or zero (:math:`f(0\cdot)` is a constant), or an f with symbolic
        parameters (give their values in the formula: the scale is set by the weights).
    NonlinearityError
        Without ``center``, an f whose :math:`f(\sigma\,\cdot)` is not centred (:math:`a_0(\sigma) \ne 0`); an f whose
        Hermite data cannot be computed.
    ParseError
        A formula f that cannot be read.

    See Also
    --------
    scaled_hermite : The data at one scale, with the correlation :math:`\beta` of a pair of scores.
    symrmt.nonlinearity.hermite : The Hermite data of f itself (:math:`\sigma = 1`), by the same rules.

    Examples
    --------
    >>> data = scaled_data("x**3 - 3*x", [1.0, 0.5])          # He_3(s x) = s^3 He_3(x) + 3 s (s^2 - 1) x
    >>> data["a1"].tolist(), data["nu"].tolist()
    ([0.0, -1.125], [6.0, 1.359375])
    >>> round(float(scaled_data("exp(x)", 0.5, center=True)["a1"]), 12)   # softmax at tau = 2: e^{1/8}/2
    0.566574226533
    """
    scales = _scales(sigma)
    if callable(f) and not isinstance(f, (str, sp.Basic, sp.FunctionClass, HermiteCoefficients)):
        rows = [_callable_data(f, float(s), bool(center)) for s in scales.ravel()]
        return {k: np.array([r[k] for r in rows], dtype=float).reshape(scales.shape) for k in ("a0", "a1", "a2", "nu")}
    expr = _expression(f)
    out = {k: np.empty(scales.shape) for k in ("a0", "a1", "a2", "nu")}
    for sign in (1.0, -1.0):
        chosen = (scales > 0) if sign > 0 else (scales < 0)
        if not np.any(chosen):
            continue
        h = _parametric(expr if sign > 0 else expr.xreplace({X: -X}), bool(center))
        size = np.abs(scales[chosen])
        values = h.numeric(sigma=size)
        if not center:
            h.require_centered(values, {"sigma": size})
        for key in out:
            out[key][chosen] = values[key]
    return {k: v if v.ndim else v[()] for k, v in out.items()}


def scaled_hermite(f: Any, sigma: float, rho: float = 1.0, center: bool = False) -> ScaledHermite:
    r"""The :class:`ScaledHermite` data of f at the scale ``sigma`` and the correlation ``rho`` of a pair of scores.

    The Hermite data are :func:`scaled_data`'s; :math:`\beta` the tensor rule of the module docstring.
    Refuses (one line) a ``sigma`` that is zero or not finite (:math:`f(0\cdot)` is a constant: for weights,
    :math:`M = 0`), and a non-centred :math:`f(\sigma\,\cdot)` unless ``center``.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or callable
        The nonlinearity, without parameters (as in :func:`scaled_data`).
    sigma : float
        One scale: real, finite and nonzero (for weights :math:`M`, :math:`\sigma = \|M\|_F/\sqrt p`).
    rho : float
        The correlation of the pair :math:`(S_{ij}, S_{ji})`, finite; clipped to :math:`[-1, 1]` (for weights,
        :math:`\operatorname{tr}(M^2)/\|M\|_F^2`); default 1.
    center : bool
        Subtract :math:`a_0(\sigma)`; otherwise a non-centred :math:`f(\sigma\,\cdot)` is refused.

    Returns
    -------
    ScaledHermite
        :math:`\sigma`, :math:`\rho`, :math:`a_0, a_1, \nu` at :math:`\sigma`, :math:`\alpha = a_1/\sigma`,
        :math:`b^2 = \nu - a_0^2 - a_1^2 \ge 0`, :math:`\beta = \sum_{\ell \ge 2} a_\ell^2 \rho^\ell` (with
        :math:`|\beta| \le b^2`) and the error estimate of :math:`\beta`.

    Raises
    ------
    ParameterError
        A ``sigma`` that is an array, not finite or zero, a ``rho`` that is not finite, or an f with symbolic
        parameters.
    NonlinearityError
        Without ``center``, a non-centred :math:`f(\sigma\,\cdot)`; an f whose Hermite data cannot be computed.
    ParseError
        A formula f that cannot be read.

    See Also
    --------
    scaled_data : The Hermite data alone, at an array of scales.
    ScaledHermite : The fields returned, and the elliptic parameter :math:`\tau_e = \beta/b^2`.

    Examples
    --------
    >>> h = scaled_hermite("erf(x)", 1.0, rho=0.5)
    >>> exact = 2 / math.pi * math.asin(0.5 * 2 / 3) - h.a1**2 * 0.5      # erf's arcsine kernel, less a_1^2 rho
    >>> round(h.a1, 12), round(h.nu, 12), round(h.beta, 12), abs(h.beta - exact) < 1e-14
    (0.651470015871, 0.464559054398, 0.00414030515, True)
    """
    sigma = _scales(sigma)
    if sigma.ndim:
        raise ParameterError(f"sigma has shape {sigma.shape}: scaled_hermite takes one scale (scaled_data takes arrays).")
    sigma = float(sigma)
    rho = float(np.clip(float(rho), -1.0, 1.0)) if np.isfinite(rho) else float("nan")
    if not np.isfinite(rho):
        raise ParameterError("rho: the correlation of the pair of scores must be a finite number in [-1, 1].")
    data = {k: float(v) for k, v in scaled_data(f, sigma, center).items()}
    a0, a1, nu = data["a0"], data["a1"], data["nu"]
    b2 = max(nu - a0 * a0 - a1 * a1, 0.0)
    beta, error = _pair(f, sigma, rho, b2)
    return ScaledHermite(sigma, rho, a0, a1, nu, a1 / sigma, b2, beta, error)


def _scales(sigma: Any) -> np.ndarray:
    try:
        scales = np.asarray(sigma, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"sigma = {sigma!r}: the scale must be a real number or an array of them.") from None
    if not np.all(np.isfinite(scales)) or np.any(scales == 0):
        bad = float(scales.ravel()[np.flatnonzero(~np.isfinite(scales) | (scales == 0))[0]])
        raise ParameterError(f"the scale sigma = {bad:.6g} of f(sigma x) must be finite and nonzero: f(0 x) is a "
                             "constant, with no Hermite data to use (for weights: M = 0 or M not finite; rescale M).")
    return scales


def _expression(f: Any) -> sp.Expr:
    """f as a SymPy expression in x without parameters (a HermiteCoefficients: the f it holds)."""
    if isinstance(f, HermiteCoefficients):
        f = f.f
    if isinstance(f, sp.FunctionClass):
        f = f(X)
    names = formula_parameters(f)
    if names:
        raise ParameterError(f"f = {f} has the parameter{'s' if len(names) > 1 else ''} {', '.join(names)}: give "
                             "their values in the formula, the scale sigma is set by the weights.")
    return parse_nonlinearity(f)


@lru_cache(maxsize=64)
def _parametric(expr: sp.Expr, center: bool) -> HermiteCoefficients:
    """:func:`hermite` of :math:`f(\\sigma x)`, sigma symbolic: closed forms in sigma found once per f."""
    return hermite(expr.xreplace({X: SIGMA * X}), center=center)


def _callable_data(f: Callable, sigma: float, center: bool) -> dict[str, float]:
    h = hermite(lambda x: f(sigma * np.asarray(x, dtype=float)), center=center)
    if not center:
        h.require_centered()
    return {"a0": h.a0, "a1": h.a1, "a2": h.a2, "nu": h.nu}


@lru_cache(maxsize=None)
def _rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    nodes, weights = hermegauss(n)
    return nodes, weights / math.sqrt(2 * math.pi)


def _pair(f: Any, sigma: float, rho: float, b2: float) -> tuple[float, float]:
    r"""``(beta, error)``: :math:`\mathbb E[g(\xi)g(\rho\xi + \sqrt{1-\rho^2}\eta)]` for the order-:math:`\ge 2` part g.

    g is :math:`f(\sigma\,\cdot)` less its projections on 1 and x by the same rule, so that each rule sees a g
    orthogonal to both (whether or not f was centred)."""
    if b2 == 0 or rho == 0:
        return 0.0, 0.0
    if rho == 1:
        return b2, 0.0
    g = numpy_callable(f.f if isinstance(f, HermiteCoefficients) else f)
    s = math.sqrt(max(1.0 - rho * rho, 0.0))
    values = []
    with np.errstate(all="ignore"):
        for n in PAIR_ORDERS:
            x, w = _rule(n)
            on_nodes = np.asarray(g(sigma * x), dtype=float)
            a0, a1 = float(w @ on_nodes), float(w @ (x * on_nodes))
            inner = (np.asarray(g(sigma * (rho * x[:, None] + s * x[None, :])), dtype=float) - a0
                     - a1 * (rho * x[:, None] + s * x[None, :])) @ w
            values.append(float(w @ ((on_nodes - a0 - a1 * x) * inner)))
    beta, error = values[-1], abs(values[-1] - values[0])
    if not np.isfinite(beta):
        raise ParameterError(f"f(sigma x) is not finite on the quadrature nodes at sigma = {sigma:.4g}: the "
                             "correlation of its nonlinear part is undefined; rescale M.")
    return float(np.clip(beta, -b2, b2)), error

r"""Float64 Gauss-Hermite quadrature of the Hermite data of an f with parameters, with an error estimate.

For an f(x; s) without closed forms, :meth:`~symrmt.nonlinearity.HermiteCoefficients.numeric`
first tries this route at every point of the parameters at once: f is compiled to NumPy
once (:func:`~symrmt.lambdify.numpy_function`), evaluated on the nodes of three
Gauss-Hermite rules (probabilists' weight :math:`e^{-x^2/2}`, :func:`numpy.polynomial.hermite_e.hermegauss`)
for all points in one vectorized call, and

.. math::

    a_k \approx \sum_i w_i f(x_i)\,\frac{\mathrm{He}_k(x_i)}{\sqrt{k!}}, \qquad
    \nu \approx \sum_i w_i f(x_i)^2 \quad (\textstyle\sum_i w_i = 1)

by each rule. The error estimate of a datum is the largest difference between the rule
of the highest order and the two others. A point is accepted only when every datum's
estimate is at most :data:`RTOL` of its scale :math:`\max(|a_k|, \sqrt\nu)` and f is
finite on all nodes. An n-point rule is exact for polynomials of degree :math:`2n - 1` and
converges geometrically for an f analytic in a wide strip around the real line (tanh, erf,
softplus(x/T) at moderate T), but slowly when the strip is narrow (softplus(x/T) at small T:
poles at distance :math:`\pi T`).

The points it leaves get a second stage: composite 10-point Gauss-Legendre on
:math:`[-20, 20]` at two resolutions (:data:`PANEL_WIDTHS`), judged the same way, where
:math:`|x| f(x)^2 \varphi(x)` at :math:`\pm 20` must be below :math:`10^{-16}\nu` (the tail
left out). x = 0 is a panel boundary of both, so a kink there (ReLU) costs nothing; a kink
elsewhere (:math:`\operatorname{relu}(x - s)`, :math:`|x - s|`) makes both stages converge only
algebraically, the rules disagree by far more than :data:`RTOL`, and the point goes to the
verified 30-digit mpmath quadrature (:mod:`.tanh_sinh`): the estimate, not a list of kinky
functions, decides.

With ``center=True`` (and no closed-form :math:`a_0`), each point is centered by its own
:math:`a_0`, :math:`\nu` is computed as :math:`\mathbb E(f - a_0)^2` (not :math:`\nu - a_0^2`,
which would cancel digits), and :math:`a_0` is reported as 0.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

import numpy as np
import sympy as sp
from numpy.polynomial.hermite_e import hermegauss

from .constants import KEYS, X

__all__ = ["RTOL", "ORDERS", "HALF_WIDTH", "PANEL_WIDTHS", "gauss_hermite_data"]

#: The orders of the three rules (the highest one's value is reported).
ORDERS = (48, 80, 128)
#: The half-width of the interval of the composite rules, and their panel widths (two resolutions).
HALF_WIDTH = 20.0
PANEL_WIDTHS = (0.25, 0.2)
#: A datum is accepted when the rules agree to this fraction of its scale. The rules' own
#: round-off is about 1e-15 of the scale; 1e-11 leaves room for it and for the
#: tails of a softplus-like f, and is 100 times tighter than the disk cache's check.
RTOL = 1e-11


@lru_cache(maxsize=None)
def _rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the n-point rule for the standard Gaussian (weights summing to 1)."""
    nodes, weights = hermegauss(n)
    return nodes, weights / math.sqrt(2 * math.pi)


def _basis(nodes: np.ndarray) -> dict[str, np.ndarray]:
    return {"a0": np.ones_like(nodes), "a1": nodes, "a2": (nodes * nodes - 1) / math.sqrt(2)}


def _one_rule(values: np.ndarray, nodes: np.ndarray, weights: np.ndarray, center: bool) -> dict[str, np.ndarray]:
    """The data by one rule; ``values`` is f on its nodes, shape (nodes, points); weights include the density."""
    out = {k: weights @ (values * b[:, None]) for k, b in _basis(nodes).items()}
    if center:     # the shift is kept so that its own error estimate is checked too
        out["nu"] = weights @ np.square(values - out["a0"][None, :])
        out["shift"], out["a0"] = out["a0"], np.zeros_like(out["a0"])
    else:
        out["nu"] = weights @ np.square(values)
    return out


@lru_cache(maxsize=None)
def _panels(width: float) -> tuple[np.ndarray, np.ndarray]:
    """Composite 10-point Gauss-Legendre on [-HALF_WIDTH, HALF_WIDTH], weights times the Gaussian density.

    The panel count is even, so x = 0 (the kink of relu, abs, ...) is a panel boundary of both resolutions."""
    count = 2 * int(round(HALF_WIDTH / width))
    edges = np.linspace(-HALF_WIDTH, HALF_WIDTH, count + 1)
    t, w = np.polynomial.legendre.leggauss(10)
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    nodes = (mid[:, None] + half[:, None] * t[None, :]).ravel()
    weights = (half[:, None] * w[None, :]).ravel() * np.exp(-nodes * nodes / 2) / math.sqrt(2 * math.pi)
    return nodes, weights


def _on_nodes(fn, nodes: np.ndarray, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f on ``nodes`` for each point: (values with non-finite entries zeroed, finite-everywhere mask per point)."""
    n, size = len(nodes), len(points)
    grid = np.broadcast_to(nodes[:, None], (n, size))
    columns = [np.broadcast_to(points[None, :, j], (n, size)) for j in range(points.shape[1])]
    with np.errstate(all="ignore"):
        raw = np.asarray(fn(grid, *columns))
    finite = np.ones(size, bool)
    if raw.dtype.kind == "c":
        finite &= np.all(np.abs(raw.imag) <= 1e-14 * (1 + np.abs(raw.real)), axis=0)
        raw = raw.real
    values = np.broadcast_to(raw.astype(np.float64, copy=False), (n, size))
    ok = np.isfinite(values)
    return np.where(ok, values, 0.0), finite & np.all(ok, axis=0)


def _judged(rules: list[dict], finite: np.ndarray) -> tuple[dict, np.ndarray, dict]:
    """The last rule's data, where every datum agrees with the other rules to RTOL of its scale, and the estimates."""
    best = rules[-1]
    errors = {k: np.max([np.abs(r[k] - best[k]) for r in rules[:-1]], axis=0) for k in best}
    root_nu = np.sqrt(np.abs(best["nu"]))
    accepted = finite & np.isfinite(root_nu)
    for key in best:
        accepted &= errors[key] <= RTOL * np.maximum(np.abs(best[key]), root_nu)
        errors[key] = np.where(finite, errors[key], np.inf)
    return best, accepted, errors


def gauss_hermite_data(
    expr: sp.Expr, symbols: Sequence[sp.Symbol], points: np.ndarray, center: bool
) -> tuple[dict[str, np.ndarray], np.ndarray, dict[str, np.ndarray]]:
    r"""``(values, accepted, errors)``: the Hermite data of f at each point of its parameters.

    Parameters
    ----------
    expr : sympy.Expr
        f, in x and ``symbols``.
    symbols : sequence of sympy.Symbol
        The parameters, in the column order of ``points``.
    points : ndarray, shape (P, len(symbols))
        The parameter values.
    center : bool
        Center each point by its own :math:`a_0` (see the module docstring).

    Returns
    -------
    values : dict
        ``a0, a1, a2, nu``, each of shape (P,), by the rule of the highest order.
    accepted : ndarray of bool, shape (P,)
        True where f is finite on every node and each datum's error estimate is at most
        :data:`RTOL` of its scale :math:`\max(|a_k|, \sqrt\nu)`. Only these values may be used.
    errors : dict
        The error estimate of each datum (inf where f is not finite on the nodes).

    Notes
    -----
    An f that NumPy cannot evaluate (a function without a NumPy counterpart) is accepted
    nowhere, so every point goes to the mpmath quadrature.
    """
    from symrmt.lambdify import numpy_function  # heavy: SymPy

    points = np.asarray(points, dtype=float).reshape(len(points), len(symbols))
    size = len(points)
    rejected = ({k: np.full(size, np.nan) for k in KEYS}, np.zeros(size, bool), {k: np.full(size, np.inf) for k in KEYS})
    if size == 0:
        return rejected
    try:
        fn = numpy_function(expr, [X, *symbols], name="f")
    except Exception:  # noqa: BLE001 - anything NumPy cannot express goes to mpmath
        return rejected
    try:
        rules, finite = [], np.ones(size, bool)
        for n in ORDERS:
            nodes, weights = _rule(n)
            values, ok = _on_nodes(fn, nodes, points)
            finite &= ok
            rules.append(_one_rule(values, nodes, weights, center))
        best, accepted, errors = _judged(rules, finite)
        rest = np.flatnonzero(~accepted)
        if len(rest):
            best, accepted, errors = _composite(fn, points, rest, center, best, accepted, errors)
    except Exception:  # noqa: BLE001 - e.g. a lambdified Max on broadcast shapes: mpmath instead
        return rejected
    return {k: best[k] for k in KEYS}, accepted, {k: errors[k] for k in KEYS}


def _composite(fn, points, rest, center, best, accepted, errors):
    """The second stage at the points the Gauss-Hermite rules left: composite Gauss-Legendre at two resolutions
    (an f analytic only in a narrow strip, like softplus(x/T) at small T), truncated at +-HALF_WIDTH where
    :math:`|x| f(x)^2 \varphi(x)` must be below 1e-16 of :math:`\nu`."""
    sub = points[rest]
    edge, edge_ok = _on_nodes(fn, np.array([-HALF_WIDTH, HALF_WIDTH]), sub)
    rules, finite = [], edge_ok.copy()
    for width in PANEL_WIDTHS:
        nodes, weights = _panels(width)
        values, ok = _on_nodes(fn, nodes, sub)
        finite &= ok
        rules.append(_one_rule(values, nodes, weights, center))
    second, ok, errs = _judged(rules, finite)
    tail = HALF_WIDTH * np.max(edge * edge, axis=0) * math.exp(-HALF_WIDTH**2 / 2) / math.sqrt(2 * math.pi)
    ok &= tail <= 1e-16 * np.abs(second["nu"])
    for key in best:
        best[key][rest] = second[key]
        errors[key][rest] = errs[key]
    accepted[rest] = ok
    return best, accepted, errors

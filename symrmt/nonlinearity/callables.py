r"""Numeric Hermite data of a Python callable f (``np.tanh``, a lambda), with an error estimate.

A callable has no formula, so neither closed forms nor the 30-digit quadrature apply.
Each datum is computed in float64 by two independent rules, and their difference
(or QUADPACK's own estimate, if larger) is reported as its error:

1. adaptive QUADPACK (:func:`scipy.integrate.quad`) on
   :math:`(-\infty, -12], [-12, -4], \dots, [12, \infty)`;
2. composite 10-point Gauss-Legendre on 8000 panels of :math:`[-40, 40]`, all nodes
   in one vectorized call of f.

f is refused (:class:`~symrmt.errors.NonlinearityError`) when it is not finite on the
nodes, when :math:`|x| f(x)^2 e^{-x^2/2}` has not died out at :math:`|x| = 40` (not
square-integrable), or when the error estimate exceeds :math:`10^{-6}` of the scale
(kinks and jumps are located by QUADPACK's bisection only, so the estimate of an f
with a jump is typically :math:`10^{-9}`-:math:`10^{-7}`).
"""
from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np

from symrmt.errors import NonlinearityError

from .adapter import numpy_callable
from .constants import KEYS, NU_MAX, NU_SMALL

__all__ = ["callable_coefficients", "legendre_nodes"]

_PIECES = (-math.inf, -12.0, -4.0, 0.0, 4.0, 12.0, math.inf)
_PANELS = 8000
_MAX_RELATIVE_ERROR = 1e-6
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_HERMITE = {"a0": lambda t: 1.0 + 0 * t, "a1": lambda t: t, "a2": lambda t: (t * t - 1) / math.sqrt(2),
            "nu": None}


def callable_coefficients(f: Callable, label: str) -> tuple[dict[str, float], dict[str, float]]:
    r"""``(values, errors)``: :math:`a_0, a_1, a_2, \nu` of the callable f and their error estimates.

    Raises
    ------
    NonlinearityError
        f fails on arrays, is not finite, is not square-integrable under the Gaussian,
        is too small or too large in scale, or its integrals do not converge.
    """
    g = numpy_callable(f)
    _check_values(g, label)
    nodes, weights = _legendre_panels()
    with np.errstate(all="ignore"):
        on_nodes = _call(g, nodes, label)
    density = np.exp(-nodes * nodes / 2 - _LOG_SQRT_2PI) * weights
    values, errors = {}, {}
    for key in ("nu", "a0", "a1", "a2"):
        integrand = (lambda v, t: v * v) if key == "nu" else (lambda v, t, h=_HERMITE[key]: v * h(t))
        second = float(np.sum(integrand(on_nodes, nodes) * density))
        first, estimate = _adaptive(g, integrand, label)
        values[key], errors[key] = first, max(estimate, abs(first - second))
        scale = max(abs(first), math.sqrt(abs(values["nu"])))
        if not math.isfinite(first) or errors[key] > _MAX_RELATIVE_ERROR * scale:
            raise NonlinearityError(
                f"numeric {key} of f = {label} did not converge (two rules give {first:.12g} and {second:.12g}): "
                "f may have a pole, jumps the quadrature cannot locate, or grow too fast; give it as a formula"
            )
        if key == "nu":
            _check_scale(first, label)
    return {k: values[k] for k in KEYS}, {k: errors[k] for k in KEYS}


def _check_values(g: Callable, label: str) -> None:
    """Finite values on a probe grid, and a Gaussian tail that has died out at |x| = 40."""
    probe = np.array([-40.0, -5.3, -2.9, -1.3, -0.7, -0.1, 0.0, 0.1, 0.7, 1.3, 2.9, 5.3, 40.0])
    with np.errstate(all="ignore"):
        values = _call(g, probe, label)
        log_weight = 2 * np.log(np.abs(values)) - probe * probe / 2 + np.log(np.maximum(np.abs(probe), 1))
    bulk = np.max(log_weight[1:-1])
    if np.any(log_weight[[0, -1]] > bulk + math.log(1e-16)):
        raise NonlinearityError(
            f"f = {label} is not square-integrable under the Gaussian, or too heavy-tailed for reliable "
            "quadrature: |x| f(x)^2 exp(-x^2/2) has not died out at |x| = 40"
        )


def _call(g: Callable, points: np.ndarray, label: str) -> np.ndarray:
    """``g(points)``, refused where not finite (what f itself raises, the adapter already says in one line)."""
    values = g(points)
    bad = ~np.isfinite(values)
    if np.any(bad):
        raise NonlinearityError(
            f"f = {label} is not finite at x = {points[bad][0]:.6g} (value {values[bad][0]}); f must be finite on "
            "the real line"
        )
    return values


def _adaptive(g: Callable, integrand: Callable, label: str) -> tuple[float, float]:
    from scipy.integrate import IntegrationWarning, quad  # heavy: SciPy

    def scalar(t: float) -> float:
        value = float(g(np.array(t))[()])
        return integrand(value, t) * math.exp(-t * t / 2 - _LOG_SQRT_2PI)

    total, error = 0.0, 0.0
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", IntegrationWarning)   # judged below, by the second rule
        for lo, hi in zip(_PIECES, _PIECES[1:]):
            value, estimate = quad(scalar, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)
            total, error = total + value, error + estimate
    return total, error


def _legendre_panels() -> tuple[np.ndarray, np.ndarray]:
    return legendre_nodes(np.linspace(-40.0, 40.0, _PANELS + 1))


def _check_scale(nu: float, label: str) -> None:
    if not NU_SMALL <= nu <= NU_MAX:
        raise NonlinearityError(
            f"f = {label} has E f(xi)^2 = {nu:.3g}, outside [{NU_SMALL:g}, {NU_MAX:g}]: f is zero, or too small or "
            "too large in scale; rescale f"
        )


def legendre_nodes(edges, order: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of composite ``order``-point Gauss-Legendre on the panels between ``edges``."""
    x, w = np.polynomial.legendre.leggauss(order)
    edges = np.asarray(edges, dtype=float)
    half = np.diff(edges)[:, None] / 2
    mid = (edges[:-1] + edges[1:])[:, None] / 2
    return (mid + half * x).ravel(), (half * w).ravel()

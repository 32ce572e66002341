r"""Hermite data of :math:`f(\sigma\,\cdot)` and the elliptic correlation of the nonlinear part of the scores.

For a general :math:`p \times p` weight matrix :math:`M` the off-diagonal scores
:math:`S_{ij} = z_i^\top M z_j/\sqrt p` are, to leading order, centred Gaussians of variance

.. math::

    \sigma^2 = \frac{\|M\|_F^2}{p}, \qquad
    \rho = \operatorname{corr}(S_{ij}, S_{ji}) = \frac{\operatorname{tr}(M^2)}{\|M\|_F^2} \in [-1, 1],

so f enters through the Hermite data of :math:`f(\sigma\,\cdot)`:

.. math::

    a_\ell(\sigma) = \frac{\mathbb E[f(\sigma\xi)\mathrm{He}_\ell(\xi)]}{\sqrt{\ell!}},\quad
    \alpha = \frac{a_1(\sigma)}{\sigma} = \mathbb E[f'(\sigma\xi)],\quad
    \nu(\sigma) = \mathbb E f(\sigma\xi)^2,\quad
    b^2 = \nu(\sigma) - a_0(\sigma)^2 - a_1(\sigma)^2 ,

and the pair :math:`(S_{ij}, S_{ji})` through the two-point kernel
:math:`k(\rho) = \mathbb E[f(\sigma\xi) f(\sigma\xi')]` at :math:`\operatorname{corr}(\xi, \xi') = \rho`.
By Mehler's formula :math:`k(\rho) = \sum_\ell a_\ell(\sigma)^2 \rho^\ell`, so the part of order
:math:`\ell \ge 2` has cross-covariance :math:`\beta = k(\rho) - a_0^2 - a_1^2\rho = \sum_{\ell\ge2} a_\ell^2\rho^\ell`
and elliptic parameter :math:`\tau_e = \beta/b^2 \in [-1, 1]`.

The integrals are computed by Gauss--Hermite quadrature (1-D for the coefficients, a tensor
rule for :math:`k(\rho)`); no simulation enters.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import ParameterError

__all__ = ["ScaledHermite", "scaled_hermite", "as_callable"]

_NODES_1D = 240
_NODES_2D = 120


def as_callable(f: Any) -> Callable[[np.ndarray], np.ndarray]:
    """f as a vectorized NumPy function (strings and SymPy through the package's one adapter)."""
    if callable(f) and not isinstance(f, str) and not hasattr(f, "free_symbols"):
        return lambda x: np.asarray(f(np.asarray(x, dtype=float)), dtype=float)
    if hasattr(f, "f") and hasattr(f, "a1"):                       # HermiteCoefficients
        f = f.f
    from ..nonlinearity.adapter import numpy_callable
    return numpy_callable(f)


def _gauss_hermite(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights for :math:`\\mathbb E[g(\\xi)]`, :math:`\\xi \\sim \\mathcal N(0,1)`."""
    x, w = np.polynomial.hermite_e.hermegauss(m)
    return x, w / np.sqrt(2 * np.pi)


@dataclass(frozen=True)
class ScaledHermite:
    r"""Hermite data of :math:`f(\sigma\,\cdot)` and the elliptic parameter (see the module docstring).

    Attributes
    ----------
    sigma, rho : float
        :math:`\sigma = \|M\|_F/\sqrt p`, :math:`\rho = \operatorname{tr}(M^2)/\|M\|_F^2`.
    a0, a1, nu : float
        :math:`a_0(\sigma)`, :math:`a_1(\sigma)`, :math:`\nu(\sigma)`.
    alpha : float
        :math:`a_1(\sigma)/\sigma = \mathbb E f'(\sigma\xi)`, the coefficient of :math:`X^\top M X/p` in K.
    b2 : float
        :math:`\nu - a_0^2 - a_1^2`, the variance of the order-:math:`\ge 2` part.
    beta : float
        :math:`k(\rho) - a_0^2 - a_1^2\rho`, its cross-covariance between (i, j) and (j, i).
    """

    sigma: float
    rho: float
    a0: float
    a1: float
    nu: float
    alpha: float
    b2: float
    beta: float

    @property
    def tau_e(self) -> float:
        r"""The elliptic parameter :math:`\beta/b^2` (0 when :math:`b = 0`)."""
        return self.beta / self.b2 if self.b2 > 0 else 0.0


def scaled_hermite(f: Any, sigma: float, rho: float) -> ScaledHermite:
    r"""The :class:`ScaledHermite` data of f at score scale ``sigma`` and correlation ``rho``.

    Refuses (one line) a ``sigma`` that is not finite and positive, or an f whose
    :math:`f(\sigma\xi)` is not finite and square-integrable on the quadrature nodes.
    """
    if not (np.isfinite(sigma) and sigma > 0):
        raise ParameterError(f"the score scale sigma = ||M||_F/sqrt(p) = {float(sigma):.6g} must be finite and > 0: "
                             "M = 0 (or non-finite) has no Hermite data.")
    rho = float(np.clip(rho, -1.0, 1.0))
    g = as_callable(f)
    x, w = _gauss_hermite(_NODES_1D)
    with np.errstate(all="ignore"):
        fx = g(sigma * x)
    if not np.all(np.isfinite(fx)):
        raise ParameterError(f"f(sigma*x) is not finite at sigma = {sigma:.4g}: the Hermite data of f(sigma .) "
                             "are undefined; rescale M.")
    a0 = float(w @ fx)
    a1 = float(w @ (fx * x))
    nu = float(w @ (fx * fx))
    if not np.isfinite(nu) or nu > 1e12:
        raise ParameterError(f"E f(sigma xi)^2 = {nu:.3g} at sigma = {sigma:.4g}: the Hermite data are undefined.")
    # k(rho) = E f(sigma xi) f(sigma (rho xi + sqrt(1-rho^2) eta)) on a tensor rule
    x2, w2 = _gauss_hermite(_NODES_2D)
    s = np.sqrt(max(1.0 - rho * rho, 0.0))
    with np.errstate(all="ignore"):
        inner = g(sigma * (rho * x2[:, None] + s * x2[None, :])) @ w2
        k = float(w2 @ (g(sigma * x2) * inner))
    b2 = max(nu - a0 * a0 - a1 * a1, 0.0)
    beta = k - a0 * a0 - a1 * a1 * rho
    beta = float(np.clip(beta, -b2, b2))
    return ScaledHermite(float(sigma), rho, a0, a1, nu, a1 / sigma, b2, beta)

r"""The in-context test error of the ridge probe: ridge regression's limit, and attention's Gaussian-equivalent reduction.

The model is :mod:`symrmt.simulation.new_tokens`: a new token :math:`x = y_*\mu + z` and a probe :math:`v` that
predicts :math:`\hat y = v^\top x` (plus a term independent of x) has

.. math::

    \mathbb E\big[(y_* - v^\top x)^2\big] = (1 - v^\top \mu)^2 + \|v\|^2 \qquad (y_*^2 = 1,\ \mathbb E z = 0,\
    \mathbb E z z^\top = I_p) .

**Ridge regression** (:func:`linear_test_error`, docs/theory.md, "In-context test error"): with
:math:`v = X Q_{\rm lin} y/n = (XX^\top/n + \gamma I_p)^{-1} X y/n`, rotate the tokens so that :math:`y/\sqrt n` is
the first axis: :math:`X y/n = \bar x = \mu + \zeta/\sqrt n` with :math:`\zeta \sim \mathcal N(0, I_p)`, and
:math:`XX^\top/n = W + \bar x \bar x^\top` with :math:`W = Z'Z'^\top/n` (:math:`Z'` the other n - 1 Gaussian columns,
independent of :math:`\zeta`). Sherman--Morrison gives :math:`v = R\bar x/(1 + \bar x^\top R \bar x)`,
:math:`R = (W + \gamma)^{-1}`, whose quadratic forms with the independent :math:`\bar x` concentrate on the
Marchenko--Pastur traces :math:`s = \operatorname{tr} R/p`, :math:`s_2 = \operatorname{tr} R^2/p = -s'(\gamma)`:

.. math::

    v^\top\mu \to \frac{m s}{1 + (m + c)s}, \qquad \|v\|^2 \to \frac{(m + c) s_2}{(1 + (m + c)s)^2}, \qquad
    E_{\rm test, lin} = \frac{(1 + cs)^2 + (m + c)s_2}{(1 + (m + c)s)^2},

:math:`m = \|\mu\|^2`, :math:`c\gamma s^2 + (\gamma + 1 - c)s - 1 = 0`, :math:`s_2 = s(1 + cs)/(2c\gamma s + \gamma +
1 - c)`.

**Attention, Gaussian-equivalent reduction** (:func:`gaussian_equivalent_test_error`, a finite-n formula given the
context): conditional on the context, :math:`k(x) \approx (a_1/p) X^\top M x + (b/\sqrt p) r` with r independent
standard noise and :math:`b^2 = \nu - a_1^2`, so that

.. math::

    E_{\rm test} \approx (1 - v^\top\mu)^2 + \|v\|^2 + \frac{b^2}{p}\|X^\top w\|^2, \qquad
    v = \Big(\frac{a_1}{p} M^\top X X^\top + d I\Big) w .
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from ..validate import positive_array, real_array, real_scalar

__all__ = ["marchenko_pastur_traces", "linear_test_error", "linear_test_parts", "gaussian_equivalent_test_error"]


def marchenko_pastur_traces(c: Any, gamma: Any) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(s, s_2)`: the limits of :math:`\operatorname{tr}(W + \gamma)^{-k}/p`, k = 1, 2, for
    :math:`W = ZZ^\top/n`, :math:`Z` p-by-n standard Gaussian, :math:`p/n \to c`.

    :math:`s` is the positive root of :math:`c\gamma s^2 + (\gamma + 1 - c)s - 1 = 0` (the Marchenko--Pastur
    Stieltjes transform at :math:`-\gamma`), written in the form without cancellation for either sign of
    :math:`\gamma + 1 - c`; :math:`s_2 = -\mathrm d s/\mathrm d\gamma = s(1 + cs)/(2c\gamma s + \gamma + 1 - c)`.

    Examples
    --------
    >>> s, s2 = marchenko_pastur_traces(1.0, 1.0)      # s^2 + s - 1 = 0: the golden ratio's inverse
    >>> round(float(s), 6), round(float(s2), 6)
    (0.618034, 0.447214)
    """
    c = positive_array("c", c)
    gamma = positive_array("gamma", gamma)
    b = gamma + 1.0 - c
    root = np.sqrt(b**2 + 4.0 * c * gamma)
    s = np.where(b >= 0, 2.0 / (b + root), (root - b) / (2.0 * c * gamma))
    s2 = s * (1.0 + c * s) / (2.0 * c * gamma * s + b)
    return s, s2


def linear_test_parts(c: Any, gamma: Any, mu_norm: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(\lim v^\top\mu, \lim \|v\|^2)` of ridge regression's probe :math:`v = XQ_{\rm lin}y/n` (module
    docstring), broadcast over ``c``, ``gamma`` and ``mu_norm`` (:math:`\|\mu\|`)."""
    m = real_array("mu_norm", mu_norm) ** 2
    s, s2 = marchenko_pastur_traces(c, gamma)
    c = np.asarray(c, dtype=np.float64)
    denominator = 1.0 + (m + c) * s
    return m * s / denominator, (m + c) * s2 / denominator**2


def linear_test_error(c: Any, gamma: Any, mu_norm: Any = 0.0) -> np.ndarray:
    r"""Ridge regression's in-context test error in the limit :math:`n, p \to \infty`, :math:`p/n \to c`:
    :math:`(1 - v^\top\mu)^2 + \|v\|^2` with the limits of :func:`linear_test_parts` (exact in the limit).

    Parameters
    ----------
    c, gamma : float or array_like
        :math:`p/n > 0` and the ridge :math:`\gamma > 0`, broadcast together.
    mu_norm : float or array_like
        :math:`\|\mu\| \ge 0` (0: no signal, then the error is :math:`1 + \|v\|^2 \ge 1`).

    Returns
    -------
    numpy.ndarray
        :math:`E_{\rm test, lin}(\gamma)`, shape of the broadcast arguments.

    Examples
    --------
    >>> round(float(linear_test_error(1.0, 1.0, 1.0)), 4)        # the Monte Carlo at n = 512: 0.709 +- 0.006
    0.7025
    >>> bool(linear_test_error(2.0, 0.1) > 1)                     # no signal: worse than predicting 0
    True
    """
    mu_norm = real_array("mu_norm", mu_norm)
    if np.any(mu_norm < 0):
        raise ParameterError(f"mu_norm = {mu_norm}: a norm must be >= 0 (it is ||mu||).")
    inner, norm2 = linear_test_parts(c, gamma, mu_norm)
    return (1.0 - inner) ** 2 + norm2


def gaussian_equivalent_test_error(X: np.ndarray, M: np.ndarray, mu: np.ndarray, w: np.ndarray, a1: float,
                                   nu: float, d: float = 0.0, bias: float = 0.0) -> np.ndarray:
    r"""Attention's test error given the context, with :math:`k(x)` replaced by its Gaussian equivalent (finite n).

    .. math::

        E_{\rm GE} = (1 - v^\top\mu)^2 + \|v\|^2 + \frac{\nu - a_1^2}{p}\|X^\top w\|^2 + \beta^2, \qquad
        v = \Big(\frac{a_1}{p} M^\top X X^\top + d I_p\Big) w,

    from :math:`k(x) = (a_1/p) X^\top M x + (b/\sqrt p) r`, r independent of x with identity covariance; the
    optional ``bias`` :math:`\beta` is a prediction offset that does not depend on x (a nonzero mean of
    :math:`w^\top X k(x)`), which adds :math:`\beta^2` because :math:`\mathbb E\,y_* = 0` and
    :math:`\mathbb E\,x = 0`.

    Parameters
    ----------
    X : numpy.ndarray
        The context, p-by-n (:math:`X = Z + \mu y^\top`).
    M : numpy.ndarray
        The weights, p-by-p (score :math:`x_j^\top M x/\sqrt p`, key j on the left).
    mu : numpy.ndarray
        The signal, shape (p,).
    w : numpy.ndarray
        The probe(s), shape (p,) or (p, G).
    a1, nu : float
        :math:`\mathbb E[\xi f(\xi)]` and :math:`\mathbb E[f(\xi)^2]`, :math:`\xi \sim \mathcal N(0, 1)`.
    d : float
        The new token's own weight in :math:`a(x) = Xk(x) + dx`.
    bias : float or numpy.ndarray
        :math:`\beta` (one per probe).

    Returns
    -------
    numpy.ndarray
        One value per probe.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, w = rng.standard_normal((4, 6)), np.zeros(4)
    >>> float(gaussian_equivalent_test_error(X, np.eye(4), np.ones(4), w, 0.6, 0.4))   # w = 0 predicts 0
    1.0
    """
    p = X.shape[0]
    a1, nu, d = real_scalar("a1", a1), real_scalar("nu", nu), real_scalar("d", d)
    w = np.asarray(w, dtype=np.float64)
    features = X.T @ w                                        # X^T w, (n,) or (n, G)
    v = a1 / p * (M.T @ (X @ features)) + d * w
    inner = mu @ v
    return (1.0 - inner) ** 2 + np.sum(v**2, axis=0) + (nu - a1**2) / p * np.sum(features**2, axis=0) \
        + np.asarray(bias) ** 2

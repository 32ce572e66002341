"""An independent slow implementation of the simulated model, and shared settings.

Written from docs/theory.md section 1 directly (explicit p-by-p M, explicit loops for K,
one ridge solve per gamma); it shares only the documented draw order with the simulator:
y = 2*integers(0, 2, n) - 1, then Z = standard_normal((p, n)), then (random_frame only)
geometry.vectors(p, rng).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from symrmt.geometry import Geometry

GAMMAS = np.array([1e-3, 1e-2, 0.1, 1.0, 10.0])

#: Signal plus asymmetric weights (w_K != w_Q, all cosines distinct and nonzero).
ASYMMETRIC = Geometry(mu_norm=1.2, wk_norm=1.5, wq_norm=0.8,
                      cos_mu_wk=0.6, cos_mu_wq=-0.3, cos_wk_wq=0.2)

#: Rank two, mixed alignments: (mu, w_K1, w_K2, w_Q1, w_Q2) = rows of V, Gram V V^T.
_V = np.array([[1.0, 0.0, 0.0, 0.0, 0.0],
               [0.6, 0.8, 0.0, 0.0, 0.0],
               [0.0, 0.3, 0.9, 0.0, 0.0],
               [-0.2, 0.5, 0.1, 0.7, 0.0],
               [0.4, 0.0, -0.3, 0.2, 0.6]])
RANK2 = _V @ _V.T


def reference_draw(f, n, c, geometry, d, rng, random_frame=False):
    """X, K, y of one draw, built the slow way (p-by-p M, loops over entries)."""
    p = round(c * n)
    y = (2 * rng.integers(0, 2, size=n) - 1).astype(float)
    Z = rng.standard_normal((p, n))
    mu, w_k, w_q = geometry.vectors(p, rng) if random_frame else geometry.vectors(p)
    X = Z + np.outer(mu, y)
    M = np.eye(p) + np.outer(w_k, w_q)
    S = X.T @ M @ X / math.sqrt(p)
    K = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = d if i == j else float(f(S[i, j])) / math.sqrt(p)
    return X, K, y


def reference_errors(X, K, y, gammas):
    """Ridge probe solved once per gamma; errors are the mean squared residuals."""
    p, n = X.shape
    A = X @ K  # attention features, p x n
    attention, linear = [], []
    for g in gammas:
        w = np.linalg.solve(A @ A.T + n * g * np.eye(p), A @ y)
        attention.append(np.sum((y - A.T @ w) ** 2) / n)
        w = np.linalg.solve(X @ X.T + n * g * np.eye(p), X @ y)
        linear.append(np.sum((y - X.T @ w) ** 2) / n)
    return np.array(attention), np.array(linear)


def mp_errors(F, y, gammas, digits=40):
    """E(gamma) for a given float64 F = X or X K, in 40-digit arithmetic (mpmath)."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(digits):
        n = F.shape[1]
        Fm = mpmath.matrix(F.tolist())
        gram = Fm.T * Fm / n
        out = []
        for g in gammas:
            z = mpmath.lu_solve(gram + mpmath.mpf(g) * mpmath.eye(n), mpmath.matrix(y.tolist()))
            out.append(float(mpmath.mpf(g) ** 2 * sum(zi**2 for zi in z) / n))
    return np.array(out)


def sympy_f():
    """A non-odd, non-even f in a plain (assumption-free) symbol x, as a user would write it."""
    x = sp.Symbol("x")
    return sp.sin(x) + x**2 / 5 - sp.Rational(1, 5)


def sympy_f_by_hand(t):
    """The same f written out with the math module (the reference does not lambdify)."""
    return math.sin(t) + t * t / 5 - 0.2


def zero_second_pair(gram3):
    """The rank-2 Gram matrix (mu, w_K1, w_K2, w_Q1, w_Q2) with w_K2 = w_Q2 = 0."""
    gram5 = np.zeros((5, 5))
    keep = [0, 1, 3]
    gram5[np.ix_(keep, keep)] = gram3
    return gram5


def reference_softmax(X, tau, columns=False, mask=True):
    r"""K' of softmax attention from the tokens X, the slow way (docs/theory.md, section 15).

    Scores :math:`S = X^\top X/\sqrt p` (no weights; use :func:`reference_softmax_scores` for others),
    then for each row i a softmax over the tokens j != i, times :math:`(n-1)e^{1/(2\tau^2)}/\sqrt p`
    (``normalize="queries"``); ``columns`` normalizes each column, query j over its keys i (the
    simulator's default, ``normalize="keys"``).
    """
    p = X.shape[0]
    return reference_softmax_scores(X.T @ X / math.sqrt(p), p, tau, columns, mask)


def reference_softmax_scores(S, p, tau, columns=False, mask=True):
    """The same from the scores S, with math.fsum over each row (or column) and the maximum subtracted."""
    n = S.shape[0]
    S = S.T if columns else S
    scale = (n - 1) * math.exp(0.5 / tau**2) / math.sqrt(p)
    K = np.zeros((n, n))
    for i in range(n):
        others = [j for j in range(n) if j != i or not mask]
        top = max(S[i, j] for j in others)
        weights = {j: math.exp((S[i, j] - top) / tau) for j in others}
        total = math.fsum(weights.values())
        for j in others:
            K[i, j] = scale * weights[j] / total
    return K.T if columns else K

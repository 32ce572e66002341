r"""The exact finite model with rank-r weights, written out independently of :mod:`symrmt.simulation`.

:math:`X = Z + \mu y^\top`, :math:`S = X^\top (I + \sum_k w_K^{(k)} w_Q^{(k)\top}) X/\sqrt p`,
:math:`K_{ij} = f(S_{ij})/\sqrt p` off the diagonal, :math:`K_{ii} = d`, and the ridge errors
:math:`E(\gamma) = \frac{\gamma^2}{n} y^\top (F^\top F/n + \gamma)^{-2} y` for :math:`F = XK` and :math:`F = X`,
by one Cholesky solve per :math:`\gamma` (few :math:`\gamma`: cheaper than an eigendecomposition).
"""
from __future__ import annotations

import numpy as np


def vectors_from_gram(gram: np.ndarray, p: int) -> np.ndarray:
    """Rows (mu, w_K^(1..r), w_Q^(1..r)) in R^p with the given Gram matrix (in the first 1 + 2r coordinates)."""
    values, vectors = np.linalg.eigh(gram)
    factor = vectors * np.sqrt(np.clip(values, 0, None))
    out = np.zeros((gram.shape[0], p))
    out[:, : gram.shape[0]] = factor
    return out


def errors(f, n: int, c: float, gamma: np.ndarray, gram: np.ndarray, d: float, seed: int):
    """(E_attn, E_lin) on the gamma grid for one draw."""
    p = int(round(c * n))
    r = (gram.shape[0] - 1) // 2
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=n)
    V = vectors_from_gram(gram, p)
    mu, keys, queries = V[0], V[1: 1 + r], V[1 + r:]
    X = rng.standard_normal((p, n)) + np.outer(mu, y)
    S = X.T @ X + (X.T @ keys.T) @ (queries @ X)
    S /= np.sqrt(p)
    np.fill_diagonal(S, 0.0)
    K = f(S) / np.sqrt(p)
    np.fill_diagonal(K, d)
    return _ridge(X @ K, y, gamma), _ridge(X, y, gamma)


def _ridge(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    from scipy.linalg import cho_factor, cho_solve

    n = F.shape[1]
    G = F.T @ F / n
    out = []
    for g in gamma:
        v = cho_solve(cho_factor(G + g * np.eye(n), lower=True), y)     # (G + gamma)^{-1} y
        out.append(g**2 * (v @ v) / n)
    return np.array(out)

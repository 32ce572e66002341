r"""The in-context test error of the interpolation probe: fresh tokens scored against the drawn context.

For one draw of the context (:mod:`~symrmt.simulation.model`: :math:`y`, :math:`X = Z + \mu y^\top`, :math:`K`), the
ridge probe of the interpolation error,

.. math::

    w(\gamma) = \frac1n X K Q y, \qquad Q = \Big(\frac{K^\top X^\top X K}{n} + \gamma I_n\Big)^{-1},

is applied to new tokens :math:`x = y_* \mu + z` (:math:`y_* = \pm 1` with equal probability, :math:`z \sim
\mathcal N(0, I_p)`, independent of the context). Each new token is the query, the context tokens are its keys:

.. math::

    k_j(x) = \frac{f(x_j^\top M x/\sqrt p)}{\sqrt p}, \qquad a(x) = X k(x) + d\, x, \qquad
    \hat y = w^\top a(x),

with :math:`M` the weights of the draw (:math:`I + \sum_k w_K^{(k)} w_Q^{(k)\top}`, or ``weights=``), so that
:math:`x_j^\top M x` is :math:`S_{jq}` with key j and query x, the orientation of :math:`S` itself; d stands for the
new token's own score, as :math:`K_{ii} = d` does for a context token. The linear baseline is ridge regression on
:math:`X` with the same :math:`\gamma`: :math:`w_{\rm lin} = X Q_{\rm lin} y/n`, :math:`Q_{\rm lin} =
(X^\top X/n + \gamma I_n)^{-1}`, :math:`\hat y = w_{\rm lin}^\top x`. For each draw

.. math::

    E_{\rm test}(\gamma) = \frac1N \sum_{t=1}^N \big(y_{*t} - \hat y_t\big)^2,

an unbiased estimate of :math:`\mathbb E[(y_* - \hat y)^2 \mid \text{context}]` over N fresh tokens; its spread
over the N tokens adds to the spread over seeds, so the seeds' t interval covers both.

Draw order: after the context (:mod:`symrmt.simulation`, steps 1 to 3), from the same generator,
``y_star = 2 * rng.integers(0, 2, size=N) - 1`` and then ``rng.standard_normal((N, p))`` (row t is :math:`z_t`),
drawn by blocks of :data:`TOKEN_BLOCK` rows, which gives the same numbers as one draw. The interpolation errors
of the draw do not use the generator after the context, so they are the same with or without test tokens.

The probes of all :math:`\gamma` come from one eigendecomposition of the smaller Gram matrix of :math:`F = XK`
(resp. :math:`X`), or from its SVD where :func:`~symrmt.simulation.linalg.rounding_bound` says the Gram matrix
is too coarse at the smallest :math:`\gamma` (the rule of :func:`~symrmt.simulation.linalg.exact_errors`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate
from ..errors import NonlinearityError, ParameterError
from .linalg import GRAM_RTOL, cogram_matrix, gram_matrix, rounding_bound
from .model import Model, weight_pairs

__all__ = ["DEFAULT_TEST_TOKENS", "TOKEN_BLOCK", "token_count", "probe_weights", "query_scores", "query_features",
           "token_errors", "expected_linear_errors", "token_bytes"]

#: The number of fresh tokens per draw of ``simulate(..., test_tokens=True)``: the token average then adds a
#: relative spread of about ``sqrt(2/4096)`` = 2% to each draw's estimate, below the spread between contexts.
DEFAULT_TEST_TOKENS = 4096

#: Fresh tokens scored per block (bounds the p-by-block and n-by-block temporaries).
TOKEN_BLOCK = 1024


def token_bytes(n: int, p: int) -> float:
    """Bytes :func:`token_errors` holds next to the draw's X, K (and C): :math:`F = XK`, the smaller Gram matrix and
    its eigenvectors, or the SVD's factors (at most one more p-by-n and two min(p, n)-square arrays), and the blocks of
    new tokens, their scores and predictions."""
    return 8.0 * (2 * p * n + 2 * min(p, n) ** 2 + 3 * (p + n) * TOKEN_BLOCK)


def token_count(test_tokens: Any) -> int | None:
    """``test_tokens`` of :func:`~symrmt.simulation.simulate` read: ``None``/``False`` (no test error), ``True``
    (:data:`DEFAULT_TEST_TOKENS`) or a count of at least one token."""
    if test_tokens is None or test_tokens is False:
        return None
    if test_tokens is True:
        return DEFAULT_TEST_TOKENS
    return validate.integer("test_tokens", test_tokens, 1,
                            f"Give the number of fresh tokens per draw (e.g. {DEFAULT_TEST_TOKENS}), True for "
                            f"{DEFAULT_TEST_TOKENS}, or None for no test error.")


def probe_weights(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r"""The ridge probes :math:`w(\gamma) = F (F^\top F/n + \gamma I_n)^{-1} y/n` for every :math:`\gamma`, shape (m, G).

    ``F`` is m-by-n. With :math:`m \ge n` from :math:`F^\top F/n = V \Lambda V^\top`:
    :math:`w = F V (\Lambda + \gamma)^{-1} V^\top y/n` (only an n-by-G product with F). With :math:`m < n` from
    :math:`F F^\top/n = U \Lambda U^\top`: :math:`w = U (\Lambda + \gamma)^{-1} U^\top F y/n`, the same vector
    (push-through identity). Where the Gram matrix's rounding (:func:`~.linalg.rounding_bound`) exceeds
    ``GRAM_RTOL`` at the smallest :math:`\gamma`, the thin SVD :math:`F = U s V^\top`:
    :math:`w = U\,\mathrm{diag}(s/(s^2/n + \gamma))\,V^\top y/n`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> F, y, g = rng.standard_normal((5, 8)), np.sign(rng.standard_normal(8)), np.array([0.5])
    >>> direct = F @ np.linalg.solve(F.T @ F / 8 + 0.5 * np.eye(8), y) / 8
    >>> bool(np.allclose(probe_weights(F, y, g)[:, 0], direct))
    True
    """
    m, n = F.shape
    gamma = np.asarray(gamma, dtype=np.float64)
    if m >= n:
        lam, vectors = np.linalg.eigh(gram_matrix(F))
        if rounding_bound(n, lam[-1], gamma.min()) <= GRAM_RTOL:
            coefficients = (vectors.T @ y)[:, None] / (np.clip(lam, 0.0, None)[:, None] + gamma[None, :])
            return F @ (vectors @ coefficients) / n
    else:
        lam, vectors = np.linalg.eigh(cogram_matrix(F))
        if rounding_bound(m, lam[-1], gamma.min()) <= GRAM_RTOL:
            coefficients = (vectors.T @ (F @ y))[:, None] / (np.clip(lam, 0.0, None)[:, None] + gamma[None, :])
            return vectors @ coefficients / n
    u, sigma, vt = np.linalg.svd(F, full_matrices=False)
    shrink = sigma[:, None] / (sigma[:, None] ** 2 / n + gamma[None, :])
    return u @ ((vt @ y)[:, None] * shrink) / n


def query_scores(X: np.ndarray, queries: np.ndarray, vectors: np.ndarray, weights: Any = None) -> np.ndarray:
    r"""The scores of new tokens against the context, :math:`T_{jt} = x_j^\top M q_t/\sqrt p`, shape (n, B).

    ``X`` (p-by-n) holds the keys, ``queries`` (p-by-B) the new tokens; :math:`M` is that of
    :func:`~symrmt.simulation.model.scores` (from ``vectors``, or ``weights``), key on the left as in :math:`S`.
    """
    p = X.shape[0]
    if weights is None:
        keys, qs = weight_pairs(vectors)
        shift = 1.0
    elif weights.form == "factored":
        keys, qs, shift = weights.keys, weights.queries, weights.shift
    else:
        return X.T @ (weights.matrix @ queries) / np.sqrt(p)
    T = X.T @ queries
    if shift != 1.0:
        T *= shift
    if keys.shape[0]:
        T += (X.T @ keys.T) @ (qs @ queries)
    T /= np.sqrt(p)
    return T


def query_features(model: Model, X: np.ndarray, queries: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    r"""The attention outputs' kernel column :math:`k(q_t) = f(T_{:,t})/\sqrt p` of each new token, shape (n, B)."""
    T = query_scores(X, queries, vectors, model.weights)
    with np.errstate(all="ignore"):  # judged below, with a better message
        k = model.f(T)
    if not np.all(np.isfinite(k)):
        raise NonlinearityError(f"f = {model.label}: returned inf or nan on the scores of the new tokens (they lie in "
                                f"[{T.min():.3g}, {T.max():.3g}]). Use a bounded or slowly growing f.")
    k /= np.sqrt(model.p)
    return k


def token_errors(model: Model, y: np.ndarray, X: np.ndarray, K: np.ndarray, vectors: np.ndarray, grid: np.ndarray,
                tokens: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    r"""``(attention, linear)``: :math:`E_{\rm test}(\gamma)` of one context over ``tokens`` fresh tokens, shape (G,) each.

    ``X``, ``K`` and ``vectors`` are the draw's (:func:`~symrmt.simulation.model.draw`,
    :func:`~symrmt.simulation.model.attention_matrix`); nothing is modified. ``rng`` is the draw's generator, read
    after the context (the order in this module's docstring).
    """
    if model.attention != "entrywise":
        raise ParameterError("test_tokens: the test error is defined for entrywise attention (an f); softmax "
                             "attention has no test-token Monte Carlo yet. Leave test_tokens out.")
    w_attn = probe_weights(X @ K, y, grid)                  # (p, G)
    w_lin = probe_weights(X, y, grid)
    readout = w_attn.T @ X                                  # (G, n): w^T X, so that w^T a = (w^T X) k + d w^T x
    mu = vectors[0]
    y_star = (2 * rng.integers(0, 2, size=tokens) - 1).astype(np.float64)
    attention, linear = np.zeros(grid.size), np.zeros(grid.size)
    for start in range(0, tokens, TOKEN_BLOCK):
        labels = y_star[start:start + TOKEN_BLOCK]
        shape = (labels.size, model.p)                                # columns z_t; rows of one (N, p) draw
        queries = (rng.standard_normal(shape) if model.tokens.is_gaussian else model.tokens.draw(rng, shape)).T
        queries += np.outer(mu, labels)                                # x_t = y*_t mu + z_t
        k = query_features(model, X, queries, vectors)
        predicted = readout @ k
        if model.d != 0.0:
            predicted += model.d * (w_attn.T @ queries)
        attention += np.sum((labels[None, :] - predicted) ** 2, axis=1)
        linear += np.sum((labels[None, :] - w_lin.T @ queries) ** 2, axis=1)
    return attention / tokens, linear / tokens


def expected_linear_errors(w: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r"""The exact mean over new tokens of a linear prediction :math:`\hat y = w^\top x`:
    :math:`(1 - w^\top\mu)^2 + \|w\|^2` for each column of ``w`` (p-by-G), no tokens drawn.

    It is what :func:`token_errors` estimates for the linear baseline; the tests use it to check the token average,
    and the theory's limit of ridge regression against the draws with no token noise.
    """
    return (1.0 - mu @ w) ** 2 + np.sum(w**2, axis=0)

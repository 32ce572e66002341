r"""One draw of the finite model: :math:`y`, :math:`X`, the vectors, the scores and :math:`K`.

.. math::

    X = Z + \mu y^\top, \qquad
    S = X^\top \Big(I_p + \sum_{k=1}^r w_K^{(k)} w_Q^{(k)\top}\Big) X / \sqrt p, \qquad
    K_{ij} = f(S_{ij}) / \sqrt p \ (i \ne j), \qquad K_{ii} = d,

drawn in the order documented in :mod:`symrmt.simulation` (y, Z, frame). Memory: the
scores are built in place in :math:`X^\top X` and f is applied to them by blocks of
:data:`BLOCK_ROWS` rows, so no second n-by-n temporary is made.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import NonlinearityError
from ..geometry import Geometry, realize
from .linalg import symmetric_product

__all__ = ["BLOCK_ROWS", "FiniteSizeWarning", "Model", "draw", "scores", "attention_matrix", "warn_large_norms"]

#: Rows of an n-by-n array processed per block (bounds the temporaries of f and of the low-rank term).
BLOCK_ROWS = 256


class FiniteSizeWarning(UserWarning):
    """The simulated model is exact, but its norms are too large for the asymptotic theory to apply."""


@dataclass(frozen=True, eq=False)
class Model:
    """Validated parameters of one simulation (everything but the seeds).

    ``f`` is the nonlinearity as a checked NumPy function and ``label`` its name for
    messages; both are ``None``/empty until the sizes have been accepted.
    """

    n: int
    p: int
    d: float
    geometry: Geometry | None   # the rank-one path replays Geometry.vectors exactly
    gram: np.ndarray
    random_frame: bool
    f: Callable[[np.ndarray], np.ndarray] | None = None
    label: str = ""


def warn_large_norms(gram: np.ndarray, p: int) -> None:
    """A :class:`FiniteSizeWarning` when a norm exceeds :math:`p^{1/4}`: the low-rank part of the scores is
    then not small against their noise, and the asymptotic theory does not apply at this p."""
    norm = float(np.sqrt(np.max(np.diag(gram))))
    if norm > p**0.25:
        warnings.warn(
            f"the largest norm of mu, w_K, w_Q is {norm:.3g} > p^(1/4) = {p**0.25:.3g}: the low-rank part "
            "of the scores is not small against their noise at this p, so the finite model is simulated "
            "exactly but the asymptotic theory is not to be trusted here (increase n or reduce the norms).",
            FiniteSizeWarning, stacklevel=3,
        )


def draw(model: Model, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(y, X, vectors)`` drawn in the documented order y, Z, frame; the rows of ``vectors`` are
    :math:`\mu, w_K^{(1..r)}, w_Q^{(1..r)}` in :math:`\mathbb R^p`."""
    y = (2 * rng.integers(0, 2, size=model.n) - 1).astype(np.float64)
    X = rng.standard_normal((model.p, model.n))
    # The rank-one path replays Geometry.vectors exactly (eigh of the whole 3 x 3).
    vectors = realize(model.gram, model.p, rng if model.random_frame else None, compress=model.geometry is None)
    if np.any(vectors[0]):
        _add_outer(X, vectors[0], y)  # X = Z + mu y^T, in place
    return y, X, vectors


def _add_outer(A: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """``A += u v^T`` in place, by blocks of rows (no full-size temporary)."""
    for start in range(0, A.shape[0], BLOCK_ROWS):
        stop = start + BLOCK_ROWS
        A[start:stop] += np.outer(u[start:stop], v)


def _weight_projections(X: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`U = X^\top W_K`, :math:`V = X^\top W_Q` (n-by-r'), keeping only pairs with both vectors nonzero."""
    r = (vectors.shape[0] - 1) // 2
    pairs = [k for k in range(1, r + 1) if np.any(vectors[k]) and np.any(vectors[k + r])]
    keys = vectors[pairs].T if pairs else np.zeros((X.shape[0], 0))
    queries = vectors[[k + r for k in pairs]].T if pairs else np.zeros((X.shape[0], 0))
    return X.T @ keys, X.T @ queries


def scores(X: np.ndarray, vectors: np.ndarray, keep_gram: bool) -> tuple[np.ndarray, np.ndarray | None]:
    r"""The scores :math:`S = (X^\top X + U V^\top)/\sqrt p` and, if ``keep_gram``, :math:`C = X^\top X/n`.

    :math:`X^\top X` is one SYRK (:func:`~symrmt.simulation.linalg.symmetric_product`); it
    becomes ``C`` in place, so the linear baseline costs no second product.
    """
    p, n = X.shape
    gram = symmetric_product(X)
    keys, queries = _weight_projections(X, vectors)
    S = gram.copy() if keep_gram else gram
    if keys.shape[1]:
        for start in range(0, n, BLOCK_ROWS):
            S[start:start + BLOCK_ROWS] += keys[start:start + BLOCK_ROWS] @ queries.T
    S /= np.sqrt(p)
    if not keep_gram:
        return S, None
    gram /= n
    return S, gram


def attention_matrix(S: np.ndarray, model: Model) -> np.ndarray:
    r""":math:`K_{ij} = f(S_{ij})/\sqrt p` off the diagonal, :math:`K_{ii} = d`, computed in place in ``S``.

    f never sees :math:`S_{ii} \approx \sqrt p` (the diagonal is zeroed first and
    replaced by ``d``; ``exp`` or ``x**5`` would overflow there); it is applied by blocks
    of rows, so no second n-by-n array is made.
    """
    np.fill_diagonal(S, 0.0)
    low, high = float(S.min()), float(S.max())
    finite = True
    for start in range(0, S.shape[0], BLOCK_ROWS):
        block = S[start:start + BLOCK_ROWS]
        with np.errstate(all="ignore"):  # overflow / nan are judged below, with a better message
            block[...] = model.f(block)
        finite = finite and bool(np.all(np.isfinite(block)))
    if not finite:
        raise NonlinearityError(
            f"f = {model.label}: returned inf or nan on the attention scores (off-diagonal scores lie in "
            f"[{low:.3g}, {high:.3g}]). Use a bounded or slowly growing f (e.g. tanh instead of exp), "
            "a smaller n, or smaller norms of mu, w_K, w_Q."
        )
    S /= np.sqrt(model.p)
    np.fill_diagonal(S, model.d)
    return S

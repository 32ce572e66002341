r"""One draw of the finite model: :math:`y`, :math:`X`, the vectors, the scores and :math:`K`.

.. math::

    X = Z + \mu y^\top, \qquad
    S = X^\top \Big(I_p + \sum_{k=1}^r w_K^{(k)} w_Q^{(k)\top}\Big) X / \sqrt p, \qquad
    K_{ij} = f(S_{ij}) / \sqrt p \ (i \ne j), \qquad K_{ii} = d,

drawn in the order documented in :mod:`symrmt.simulation` (y, Z, frame); with ``weights=`` the
bracket is any :math:`M` (:mod:`~symrmt.simulation.weights`). Softmax attention replaces the last
step by :math:`K' = \sigma_\tau K^{\rm sm}`, each column (query) normalized over the other tokens (its keys),
or each row with ``normalize="queries"`` (:mod:`symrmt.simulation.softmax`). Memory: the scores are built in place in :math:`X^\top X` (or by blocks
of rows for a dense :math:`M`) and f, or the softmax, is applied to them by blocks of
:data:`BLOCK_ROWS` rows, so no second n-by-n temporary is made.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import NonlinearityError
from ..geometry import Geometry, realize
from .softmax import softmax_scale
from .linalg import gram_matrix, symmetric_product
from .tokens import GAUSSIAN, TokenLaw
from ..weight_matrix import WeightMatrix

__all__ = ["BLOCK_ROWS", "FiniteSizeWarning", "Model", "draw", "weight_pairs", "scores", "low_rank_scores",
           "attention_matrix", "entrywise_matrix", "softmax_matrix", "warn_large_norms"]

#: Rows of an n-by-n array processed per block (bounds the temporaries of f and of the low-rank term).
BLOCK_ROWS = 256


class FiniteSizeWarning(UserWarning):
    """The simulated model is exact, but its norms are too large for the asymptotic theory to apply.

    Examples
    --------
    >>> import warnings, symrmt
    >>> from symrmt.simulation import FiniteSizeWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = symrmt.simulate("tanh(x)", 32, 1.0, 0.1, geometry=symrmt.Geometry(mu_norm=20.0), seeds=2,
    ...                         progress=False)
    >>> any(issubclass(w.category, FiniteSizeWarning) for w in caught)    # |mu| = 20 > p^(1/4) at p = 32
    True
    """


@dataclass(frozen=True, eq=False)
class Model:
    r"""Validated parameters of one simulation (everything but the seeds).

    ``f`` is the nonlinearity as a checked NumPy function and ``label`` its name for
    messages; both are ``None``/empty until the sizes have been accepted. ``weights`` is a
    general :math:`M` (then ``gram`` holds :math:`\mu` alone), or ``None`` for the Gram path.
    ``attention`` is ``"entrywise"`` (f) or ``"softmax"`` (``temperature``; ``normalize`` is
    ``"keys"``, each column a softmax, or ``"queries"``, each row; ``mask_diagonal=False`` keeps the
    self-token in each softmax, the degenerate option; f is then unused).
    """

    n: int
    p: int
    d: float
    geometry: Geometry | None   # the rank-one path replays Geometry.vectors exactly
    gram: np.ndarray
    random_frame: bool
    f: Callable[[np.ndarray], np.ndarray] | None = None
    label: str = ""
    weights: WeightMatrix | None = None
    attention: str = "entrywise"
    temperature: float = 1.0
    mask_diagonal: bool = True
    normalize: str = "keys"
    tokens: TokenLaw = GAUSSIAN   # the law of Z's entries (simulation/tokens.py)


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
    # Gaussian tokens are drawn by this very call whatever the law module does, so that seeds replay bit for bit.
    X = rng.standard_normal((model.p, model.n)) if model.tokens.is_gaussian else model.tokens.draw(rng, (model.p, model.n))
    # The rank-one path replays Geometry.vectors exactly (eigh of the whole 3 x 3); with general
    # weights mu alone is placed, along e_1 (or a random direction), whatever form the geometry had.
    compress = model.geometry is None or model.weights is not None
    vectors = realize(model.gram, model.p, rng if model.random_frame else None, compress=compress)
    if np.any(vectors[0]):
        _add_outer(X, vectors[0], y)  # X = Z + mu y^T, in place
    return y, X, vectors


def _add_outer(A: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """``A += u v^T`` in place, by blocks of rows (no full-size temporary)."""
    for start in range(0, A.shape[0], BLOCK_ROWS):
        stop = start + BLOCK_ROWS
        A[start:stop] += np.outer(u[start:stop], v)


def weight_pairs(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The rows :math:`w_K^{(k)}`, :math:`w_Q^{(k)}` (each r'-by-p) of the pairs with both vectors nonzero."""
    r = (vectors.shape[0] - 1) // 2
    pairs = [k for k in range(1, r + 1) if np.any(vectors[k]) and np.any(vectors[k + r])]
    return vectors[pairs], vectors[[k + r for k in pairs]]


def scores(X: np.ndarray, vectors: np.ndarray, keep_gram: bool,
           weights: WeightMatrix | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    r"""The scores :math:`S = X^\top M X/\sqrt p` and, if ``keep_gram``, :math:`C = X^\top X/n`.

    :math:`M` is :math:`I + \sum_k w_K^{(k)} w_Q^{(k)\top}` from ``vectors``, or ``weights``
    when given (then only ``vectors[0]``, :math:`\mu`, is used, by the draw).
    """
    if weights is None:
        keys, queries = weight_pairs(vectors)
        return low_rank_scores(X, 1.0, keys, queries, keep_gram)
    if weights.form == "factored":
        return low_rank_scores(X, weights.shift, weights.keys, weights.queries, keep_gram)
    S = _dense_scores(X, weights.matrix)
    return S, (gram_matrix(X) if keep_gram else None)


def low_rank_scores(X: np.ndarray, shift: float, keys: np.ndarray, queries: np.ndarray,
                    keep_gram: bool) -> tuple[np.ndarray, np.ndarray | None]:
    r""":math:`S = (s X^\top X + U V^\top)/\sqrt p` with :math:`U = X^\top W_K`, :math:`V = X^\top W_Q` (n-by-r).

    :math:`X^\top X` is one SYRK (:func:`~symrmt.simulation.linalg.symmetric_product`); it
    becomes ``C`` in place, so the linear baseline costs no second product. :math:`s = 1` is
    not multiplied (the rank-r path and the factored weights with s = 1 agree bit for bit).
    """
    p, n = X.shape
    gram = symmetric_product(X)
    U, V = X.T @ keys.T, X.T @ queries.T
    S = np.empty_like(gram) if keep_gram else gram
    # One pass over the n-by-n arrays, block by block while a block is in cache: S and C from X^T X.
    for start in range(0, n, BLOCK_ROWS):
        rows = slice(start, start + BLOCK_ROWS)
        block = np.multiply(gram[rows], shift, out=S[rows]) if shift != 1.0 else _copy_into(S[rows], gram[rows])
        if U.shape[1]:
            block += U[rows] @ V.T
        block /= np.sqrt(p)
        if keep_gram:
            gram[rows] /= n
    return S, (gram if keep_gram else None)


def _copy_into(out: np.ndarray, block: np.ndarray) -> np.ndarray:
    """``block`` copied into ``out`` (nothing to do when they are the same array); returns ``out``."""
    if out is not block:
        np.copyto(out, block)
    return out


def _dense_scores(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    r""":math:`S = X^\top M X/\sqrt p` by blocks of rows, :math:`S_{b,:} = (M^\top X_{:,b})^\top X`.

    One ``p x BLOCK_ROWS`` temporary; each block is written into its rows of ``S`` directly.
    """
    p, n = X.shape
    S = np.empty((n, n))
    for start in range(0, n, BLOCK_ROWS):
        block = M.T @ X[:, start:start + BLOCK_ROWS]
        np.matmul(block.T, X, out=S[start:start + BLOCK_ROWS])
    S /= np.sqrt(p)
    return S


def attention_matrix(S: np.ndarray, model: Model) -> np.ndarray:
    """The attention matrix of ``model`` from its scores, in place in ``S``: entrywise or softmax."""
    if model.attention == "softmax":
        return softmax_matrix(S, model)
    return entrywise_matrix(S, model)


def entrywise_matrix(S: np.ndarray, model: Model) -> np.ndarray:
    r""":math:`K_{ij} = f(S_{ij})/\sqrt p` off the diagonal, :math:`K_{ii} = d`, computed in place in ``S``.

    f never sees :math:`S_{ii} \approx \sqrt p` (the diagonal is zeroed first and
    replaced by ``d``; ``exp`` or ``x**5`` would overflow there); it is applied by blocks
    of rows, so no second n-by-n array is made.
    """
    np.fill_diagonal(S, 0.0)
    low, high, finite = np.inf, -np.inf, True
    scale = 1.0 / np.sqrt(model.p)
    for start in range(0, S.shape[0], BLOCK_ROWS):   # one pass: each block is read once from memory
        block = S[start:start + BLOCK_ROWS]
        low, high = min(low, float(block.min())), max(high, float(block.max()))
        with np.errstate(all="ignore"):  # overflow / nan are judged below, with a better message
            block[...] = model.f(block)
        finite = finite and bool(np.all(np.isfinite(block)))
        block *= scale
    if not finite:
        raise NonlinearityError(
            f"f = {model.label}: returned inf or nan on the attention scores (off-diagonal scores lie in "
            f"[{low:.3g}, {high:.3g}]). Use a bounded or slowly growing f (e.g. tanh instead of exp), "
            "a smaller n, or smaller norms of mu, w_K, w_Q."
        )
    np.fill_diagonal(S, model.d)
    return S


def softmax_matrix(S: np.ndarray, model: Model) -> np.ndarray:
    r""":math:`K' = \sigma_\tau K^{\rm sm}`, a softmax over the other tokens, computed in place in ``S``.

    :math:`S_{ij}` pairs key i with query j (:mod:`symrmt.simulation.softmax`). ``normalize="keys"``
    (the default, standard attention) normalizes each column, the keys of query j;
    ``normalize="queries"`` each row:

    .. math::

        K'_{ij} = \sigma_\tau\, \frac{e^{(S_{ij} - m_j)/\tau}}{\sum_{k \ne j} e^{(S_{kj} - m_j)/\tau}},
        \quad m_j = \max_{k \ne j} S_{kj} \quad\text{(keys)}, \qquad
        K'_{ij} = \sigma_\tau\, \frac{e^{(S_{ij} - m_i)/\tau}}{\sum_{k \ne i} e^{(S_{ik} - m_i)/\tau}}
        \quad\text{(queries)},

    :math:`\sigma_\tau = (n-1)\, e^{1/(2\tau^2)}/\sqrt p` and :math:`K'_{ii} = 0` (masked: :math:`S_{ii} \approx
    \sqrt p` is excluded from the maximum and the sum; with ``mask_diagonal=False`` it is included and
    dominates, :math:`K' \to \sigma_\tau I`). Subtracting the maximum keeps every exponent :math:`\le 0` (no
    overflow; the largest term of each sum is 1, so no division by an underflowed 0). Both orientations run
    over blocks of rows (contiguous in memory); the only temporaries are a block and n maxima and sums.
    """
    if model.mask_diagonal:
        np.fill_diagonal(S, -np.inf)
    scale = softmax_scale(S.shape[0], model.p, model.temperature)
    if model.normalize == "queries":
        for start in range(0, S.shape[0], BLOCK_ROWS):
            block = S[start:start + BLOCK_ROWS]
            block -= block.max(axis=1, keepdims=True)
            block /= model.temperature
            np.exp(block, out=block)
            block *= scale / block.sum(axis=1, keepdims=True)
        return S
    top = S.max(axis=0)                      # m_j over the keys of each query (one pass)
    sums = np.zeros(S.shape[1])
    for start in range(0, S.shape[0], BLOCK_ROWS):
        block = S[start:start + BLOCK_ROWS]
        block -= top
        block /= model.temperature
        np.exp(block, out=block)
        sums += block.sum(axis=0)
    factor = scale / sums
    for start in range(0, S.shape[0], BLOCK_ROWS):
        S[start:start + BLOCK_ROWS] *= factor
    return S

r"""Attention weights as the package reads them: :math:`M = W_K^\top W_Q`, dense or factored, checked once.

Every part of the package that takes ``weights=`` (the general-M theory, its elliptic approximation, the Monte
Carlo, the command line, the scripts on real weights) reads them here, by one rule (:func:`read_weight_matrix`):

- a ``(p, p)`` array :math:`M`, in the package's orientation
  :math:`S_{ij} = x_i^\top M x_j/\sqrt p` (token :math:`i` the key, :math:`j` the query);
- a pair ``(W_K, W_Q)`` of ``(r, p)`` arrays: :math:`M = W_K^\top W_Q`;
- a triple ``(s, w_K, w_Q)``: :math:`M = sI + \sum_k w_K^{(k)} w_Q^{(k)\top}` (``w_K``, ``w_Q`` of shape
  ``(r, p)``, or ``(p,)`` for r = 1); the pair is the case s = 0;
- a :class:`WeightMatrix`, the checked result itself.

Each entry (and :math:`|s|`) must be real, finite and at most :data:`MAX_ENTRY` (:math:`10^{30}`): beyond it
the products of the scores, :math:`\|M\|_F^2` and the SVD of :math:`M` overflow float64. A refusal is one
:class:`~symrmt.errors.ParameterError` line naming the forms accepted (:data:`WEIGHTS_HINT`).

A transformer's layer gives :math:`M = W_K^\top W_Q/\sqrt{d_h}` (key on the left: the model's query-first
:math:`W_Q^\top W_K` transposed), one head :math:`h` the rows :math:`h d_h, \dots, (h+1) d_h - 1` of both
projections: :func:`attention_factors` slices them and :func:`attention_matrix` multiplies, the one place
where the package builds a real model's M.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ParameterError
from .geometry import symmetric_kernel
from .validate import index, real_scalar

__all__ = ["WeightMatrix", "read_weight_matrix", "attention_factors", "attention_matrix", "MAX_ENTRY",
           "WEIGHTS_HINT"]

#: The largest |entry| of a weight matrix, of a projection or of s: beyond it products of the scores overflow
#: float64. Not geometry.MAX_NORM, which bounds the norms where the theory is probed: a matrix has no theory to
#: stay within.
MAX_ENTRY = 1e30

#: The accepted forms, named in every refusal.
WEIGHTS_HINT = ("give the p x p matrix M = W_K^T W_Q (scores X^T M X / sqrt(p)), the pair (W_K, W_Q) or the "
                "factored (s, w_K, w_Q) with w_K, w_Q of shape (r, p)")


@dataclass(frozen=True, eq=False)
class WeightMatrix:
    r"""Validated weights :math:`M` (``p x p``): ``matrix`` (dense), or ``shift`` :math:`s` with
    ``keys``, ``queries`` of shape ``(r, p)`` for :math:`M = sI + \text{keys}^\top \text{queries}`.

    The arrays are read-only float64 views of the caller's arrays (copies only where the dtype had to
    change): a p x p matrix is not duplicated, so that the memory check counts it once, before any
    allocation. Changing the caller's array afterwards changes this object.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weight_matrix import WeightMatrix
    >>> w = WeightMatrix(4, shift=1.0, keys=np.ones((1, 4)), queries=np.ones((1, 4)))    # I + 1 1^T
    >>> w.rank, w.dense()[0].tolist(), w.is_symmetric()
    (1, [2.0, 1.0, 1.0, 1.0], True)
    """

    p: int
    matrix: np.ndarray | None = None
    shift: float = 1.0
    keys: np.ndarray | None = None
    queries: np.ndarray | None = None

    @property
    def form(self) -> str:
        """``"dense"`` or ``"factored"``."""
        return "dense" if self.matrix is not None else "factored"

    @property
    def rank(self) -> int | None:
        """The number of factored pairs r (None for a dense matrix)."""
        return None if self.keys is None else self.keys.shape[0]

    def dense(self) -> np.ndarray:
        """:math:`M` as a ``(p, p)`` array (a new array for the factored form)."""
        if self.matrix is not None:
            return self.matrix
        keys, queries = self._factors()
        return self.shift * np.eye(self.p) + keys.T @ queries

    def _factors(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, queries)`` of the factored form (which has both)."""
        if self.keys is None or self.queries is None:
            raise ValueError("a dense weight matrix has no factors")
        return self.keys, self.queries

    def frobenius_norm(self) -> float:
        r""":math:`\|M\|_F` (for the factored form from the r x r Gram matrices, without forming M)."""
        if self.matrix is not None:
            return float(np.linalg.norm(self.matrix))
        (k, q), s = self._factors(), self.shift
        low_rank = float(np.sum((k @ k.T) * (q @ q.T)))                    # ||K^T Q||_F^2
        cross = float(np.sum(k * q))                                        # tr(K^T Q)
        return float(np.sqrt(max(s * s * self.p + 2 * s * cross + low_rank, 0.0)))

    def is_symmetric(self) -> bool:
        r"""Whether :math:`M = M^\top` (relative :math:`10^{-10}`): then :math:`K` is symmetric."""
        if self.matrix is not None:
            norm = float(np.linalg.norm(self.matrix))
            return float(np.linalg.norm(self.matrix - self.matrix.T)) <= 1e-10 * max(norm, 1e-300)
        vectors = np.concatenate([np.zeros((1, self.p)), self.keys, self.queries])
        return bool(symmetric_kernel(vectors @ vectors.T)) if self.rank else True

    def summary(self) -> dict[str, Any]:
        """``{"form", "p", "frobenius_norm"}``, plus ``"rank"`` and ``"shift"`` for the factored form."""
        out: dict[str, Any] = {"form": self.form, "p": self.p, "frobenius_norm": self.frobenius_norm()}
        if self.matrix is None:
            out.update(rank=self.rank, shift=self.shift)
        return out


def read_weight_matrix(weights: Any, p: int | None = None, how: str = "") -> WeightMatrix:
    r"""``weights`` checked against :math:`p` and frozen as a :class:`WeightMatrix`.

    Accepts a ``WeightMatrix`` of this ``p``, a ``(p, p)`` array, or a tuple ``(s, w_K, w_Q)``. Refuses,
    with a one-line :class:`~symrmt.errors.ParameterError`, anything not real, not finite, above
    :data:`MAX_ENTRY`, not square, or not of size ``p`` (``how`` says where p came
    from, e.g. ``"round(c*n) = round(1*100)"``; ``p=None`` accepts any size).
    """
    if isinstance(weights, WeightMatrix):
        _check_size(weights.p, p, how)
        return weights
    if isinstance(weights, tuple):
        return _factored(weights, p, how)
    if isinstance(weights, np.ndarray) and weights.ndim == 2 and weights.shape[0] == weights.shape[1]:
        _check_size(weights.shape[0], p, how)   # first: the checks of the entries below copy the whole array
    matrix = _real_finite("weights", weights)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ParameterError(f"weights has shape {matrix.shape}: not a square matrix; {WEIGHTS_HINT}.")
    _check_size(matrix.shape[0], p, how)
    return WeightMatrix(matrix.shape[0], matrix=_frozen(matrix))


def _factored(weights: tuple, p: int | None, how: str) -> WeightMatrix:
    if len(weights) == 2:                   # the pair (W_K, W_Q) of attention_error: M = W_K^T W_Q = 0 I + W_K^T W_Q
        weights = (0.0, *weights)
    if len(weights) != 3:
        raise ParameterError(f"weights is a sequence of {len(weights)} items: {WEIGHTS_HINT}.")
    shift = real_scalar("the shift s of weights=(s, w_K, w_Q)", weights[0])
    if abs(shift) > MAX_ENTRY:
        raise ParameterError(f"the shift s = {shift:.3g} of weights=(s, w_K, w_Q) is above {MAX_ENTRY:g}: "
                             "the scores overflow float64; rescale the weights.")
    keys, queries = (np.atleast_2d(_real_finite(name, v)) for name, v in (("w_K", weights[1]), ("w_Q", weights[2])))
    if keys.ndim != 2 or keys.shape != queries.shape:
        raise ParameterError(f"w_K has shape {keys.shape} and w_Q {queries.shape} in weights=(s, w_K, w_Q): "
                             "give both as (r, p) arrays of the same shape (or (p,) for r = 1).")
    _check_size(keys.shape[1], p, how)
    return WeightMatrix(keys.shape[1], shift=shift, keys=_frozen(keys), queries=_frozen(queries))


def _real_finite(name: str, value: Any) -> np.ndarray:
    """A float64 array of finite real entries below MAX_ENTRY; the message never prints the array."""
    if isinstance(value, (str, bytes)) or value is None:
        raise ParameterError(f"{name} = {value!r}: {WEIGHTS_HINT}.")
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged nested lists and the like
        raise ParameterError(f"{name}: not an array of numbers (ragged or mixed); {WEIGHTS_HINT}.") from None
    if array.dtype.kind == "c":
        raise ParameterError(f"{name}: must be real, not complex (take the real part if it is round-off).")
    if array.dtype.kind not in "iuf":
        raise ParameterError(f"{name}: entries of type {array.dtype} are not real numbers; {WEIGHTS_HINT}.")
    array = array.astype(np.float64, copy=False)
    if not np.all(np.isfinite(array)):
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ParameterError(f"{name}: every entry must be finite ({array[where]} at index {where}).")
    if array.size and float(np.abs(array).max()) > MAX_ENTRY:
        raise ParameterError(f"{name}: an entry is {float(np.abs(array).max()):.3g}, above {MAX_ENTRY:g}: the "
                             "scores overflow float64; rescale the weights.")
    return array


def _check_size(size: int, p: int | None, how: str) -> None:
    if p is not None and size != p:
        raise ParameterError(f"weights are {size} x {size} but p = {how or ''}{' = ' if how else ''}{p}: "
                             f"choose n and c with round(c*n) = {size}, e.g. c = {size}/n (n = {size}, c = 1).")


def _frozen(array: np.ndarray) -> np.ndarray:
    view = array.view()                                      # no copy of a p x p matrix (module docstring)
    view.setflags(write=False)
    return view


def attention_factors(key_weight: Any, query_weight: Any, head_dim: int,
                      head: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    r"""The factors of a transformer layer's (or one head's) :math:`M = W_K^\top W_Q/\sqrt{d_h}`.

    Parameters
    ----------
    key_weight, query_weight : array_like, shape (H d_h, p)
        The layer's key and query projections (:math:`k = W_K x`, :math:`q = W_Q x`), head :math:`h` owning
        rows :math:`h d_h, \dots, (h+1) d_h - 1`.
    head_dim : int
        :math:`d_h`, the width of one head.
    head : int, optional
        One head (0 to H - 1); None for the whole layer.

    Returns
    -------
    tuple
        ``(W_K, W_Q, 1/sqrt(d_h))``: the rows of the head (all rows for the layer) and the score scale.

    Examples
    --------
    >>> W = np.arange(8.0).reshape(4, 2)                # two heads of width 2 on p = 2
    >>> keys, queries, scale = attention_factors(W, W, 2, head=1)
    >>> keys.tolist(), bool(scale == 1 / np.sqrt(2))
    ([[4.0, 5.0], [6.0, 7.0]], True)
    """
    keys, queries = (_real_finite(name, value) for name, value in (("W_K", key_weight), ("W_Q", query_weight)))
    if keys.ndim != 2 or keys.shape != queries.shape:
        raise ParameterError(f"W_K has shape {keys.shape} and W_Q {queries.shape}: give both as (H*d_h, p) arrays.")
    if isinstance(head_dim, (bool, np.bool_)) or not isinstance(head_dim, (int, np.integer)) or head_dim < 1 \
            or keys.shape[0] % head_dim:
        raise ParameterError(f"head_dim = {head_dim!r}: must be a positive integer dividing the {keys.shape[0]} "
                             "rows of the projections.")
    if head is not None:
        head = index("head", head, keys.shape[0] // head_dim, "the model")
        rows = slice(head * head_dim, (head + 1) * head_dim)
        keys, queries = keys[rows], queries[rows]
    return keys, queries, 1.0 / np.sqrt(head_dim)


def attention_matrix(key_weight: Any, query_weight: Any, head_dim: int, head: int | None = None) -> np.ndarray:
    r""":math:`M = W_K^\top W_Q/\sqrt{d_h}` of a transformer layer (or one head), key on the left.

    The factors are those of :func:`attention_factors` (same parameters).

    Examples
    --------
    >>> W_K, W_Q = np.eye(4), 2.0 * np.eye(4)           # one layer of two heads of width 2
    >>> attention_matrix(W_K, W_Q, 2).diagonal().round(6).tolist()         # 2/sqrt(2)
    [1.414214, 1.414214, 1.414214, 1.414214]
    >>> attention_matrix(W_K, W_Q, 2, head=1).diagonal().round(6).tolist()  # head 1 sees the last two coordinates
    [0.0, 0.0, 1.414214, 1.414214]
    """
    keys, queries, scale = attention_factors(key_weight, query_weight, head_dim, head)
    return (keys.T @ queries) * scale

r"""Any p x p attention weights for the Monte Carlo: :math:`W_K^\top W_Q = M`, dense or factored.

The rank-r model of :mod:`symrmt.simulation` has :math:`W_K^\top W_Q = I + \sum_k w_K^{(k)} w_Q^{(k)\top}`,
given by a Gram matrix. ``simulate(..., weights=...)`` takes instead any real :math:`M`, in the
package's orientation

.. math::

    S = \frac{X^\top M X}{\sqrt p}, \qquad S_{ij} = \frac{x_i^\top M x_j}{\sqrt p}
    \quad (\text{token } i \text{ the key}, j \text{ the query}),

in one of two forms (:class:`WeightMatrix`):

- **dense**: a ``(p, p)`` array. The scores are built by blocks of rows,
  :math:`S_{b,:} = (M^\top X_{:,b})^\top X`: :math:`2p^2 n + 2pn^2` flops, one ``p x BLOCK_ROWS``
  temporary, no second n-by-n array;
- **factored**: ``(W_K, W_Q)`` (:math:`M = W_K^\top W_Q`, as :func:`symrmt.attention_error` takes it, the
  case s = 0 of) ``(s, w_K, w_Q)`` with ``w_K``, ``w_Q`` of shape ``(r, p)`` (or ``(p,)`` for r = 1):
  :math:`M = sI + \sum_k w_K^{(k)} w_Q^{(k)\top}`, whose scores
  :math:`(s X^\top X + (X^\top W_K)(X^\top W_Q)^\top)/\sqrt p` reuse the symmetric product of the
  rank-r path (:math:`pn^2` flops). With :math:`s = 1` it *is* that path: the same operations on the
  same numbers.

A real model's weights in this orientation are :math:`M = W_K^\top W_Q/\sqrt d` (key on the left; the model's
query-first :math:`W_Q^\top W_K` transposed), as :mod:`symrmt.weights` holds them: pass ``MatrixFit.weights()``
(or its fitted :math:`sI + \text{rank } r` as ``(s, w_K, w_Q)``).

The signal. A Gram matrix cannot say how :math:`\mu` sits relative to a general :math:`M`, so with
``weights=`` the geometry gives :math:`\mu` alone (its weight vectors must be 0) and the draw puts it
along the first coordinate axis :math:`e_1` (``random_frame=False``) or along a Haar-random direction
drawn per seed (``random_frame=True``), as it places every vector (:func:`symrmt.geometry.realize`).
For :math:`\mu` along a chosen direction :math:`u`, pass ``align_signal(M, u)``: the law of :math:`Z`
is invariant under rotations, so :math:`(M, \mu = \|\mu\| u)` and :math:`(HMH, \mu = \|\mu\| e_1)`, with
:math:`H` the reflection that swaps :math:`u` and :math:`e_1`, give the same law of the errors.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..geometry import symmetric_kernel
from ..validate import real_scalar

__all__ = ["WeightMatrix", "resolve_weights", "align_signal", "WEIGHTS_HINT"]

#: The largest |entry| of a weight matrix (or |s|): beyond it products of the scores overflow float64. Not
#: geometry.MAX_NORM, which bounds the norms where the theory is probed: a matrix has no theory to stay within.
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
    >>> from symrmt.simulation import WeightMatrix
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
        return self.shift * np.eye(self.p) + self.keys.T @ self.queries

    def frobenius_norm(self) -> float:
        r""":math:`\|M\|_F` (for the factored form from the r x r Gram matrices, without forming M)."""
        if self.matrix is not None:
            return float(np.linalg.norm(self.matrix))
        s, k, q = self.shift, self.keys, self.queries
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


def resolve_weights(weights: Any, p: int | None, how: str = "") -> WeightMatrix:
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


def align_signal(weights: Any, direction: Any) -> np.ndarray | tuple[float, np.ndarray, np.ndarray]:
    r"""The weights seen from a frame whose first axis is ``direction``: simulate's :math:`\mu` then lies along it.

    With ``weights=``, :func:`~symrmt.simulation.simulate` puts :math:`\mu` along :math:`e_1`. Let
    :math:`H = I - 2vv^\top`, :math:`v = (u - e_1)/\|u - e_1\|`, :math:`u` the unit ``direction``: a
    symmetric orthogonal reflection with :math:`Hu = e_1`. Since :math:`Z` and :math:`HZ` have the same
    law, simulating :math:`HMH` with :math:`\mu = \|\mu\| e_1` is simulating :math:`M` with
    :math:`\mu = \|\mu\| u`: the errors have the same law (the same draws give different numbers).

    Parameters
    ----------
    weights : array_like or tuple
        A ``(p, p)`` matrix or ``(s, w_K, w_Q)``, as ``simulate(weights=...)`` takes them.
    direction : array_like
        A nonzero vector of length p.

    Returns
    -------
    numpy.ndarray or tuple
        :math:`HMH` in the form given: an array, or ``(s, w_K H, w_Q H)``.

    Raises
    ------
    ParameterError
        A ``direction`` of the wrong length, zero or not finite, or weights ``simulate`` would refuse.

    See Also
    --------
    symrmt.simulate : ``simulate(..., weights=align_signal(M, u), geometry=Geometry(mu_norm=1.0))``.

    Examples
    --------
    >>> M = np.diag([1.0, 2.0, 3.0])
    >>> float(np.round(align_signal(M, [0.0, 0.0, 1.0])[0, 0], 12))    # e_1 now sees M's third axis
    3.0
    """
    resolved = resolve_weights(weights, None)
    u = _real_finite("direction", direction)
    if u.shape != (resolved.p,) or not np.any(u):
        raise ParameterError(f"direction has shape {u.shape}: give a nonzero vector of length p = {resolved.p}.")
    v = u / np.linalg.norm(u)
    v[0] -= 1.0
    norm = np.linalg.norm(v)
    if norm == 0:                           # u is already e_1
        return resolved.dense().copy() if resolved.form == "dense" else (resolved.shift, resolved.keys.copy(),
                                                                         resolved.queries.copy())
    v /= norm
    if resolved.form == "factored":
        reflect = lambda rows: rows - 2.0 * np.outer(rows @ v, v)  # noqa: E731 - rows H, H symmetric
        return resolved.shift, reflect(resolved.keys), reflect(resolved.queries)
    M = resolved.matrix
    Mv, vM = M @ v, v @ M
    # H M H = M - 2 v (v^T M) - 2 (M v) v^T + 4 (v^T M v) v v^T
    return M - 2.0 * np.outer(v, vM) - 2.0 * np.outer(Mv, v) + 4.0 * float(v @ Mv) * np.outer(v, v)

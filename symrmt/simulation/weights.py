r"""Any p x p attention weights in the Monte Carlo: how the scores use them, and the signal's frame (:func:`align_signal`).

The rank-r model of :mod:`symrmt.simulation` has :math:`W_K^\top W_Q = I + \sum_k w_K^{(k)} w_Q^{(k)\top}`,
given by a Gram matrix. ``simulate(..., weights=...)`` takes instead any real :math:`M`, in the
package's orientation

.. math::

    S = \frac{X^\top M X}{\sqrt p}, \qquad S_{ij} = \frac{x_i^\top M x_j}{\sqrt p}
    \quad (\text{token } i \text{ the key}, j \text{ the query}),

in one of two forms (:class:`~symrmt.weight_matrix.WeightMatrix`, read by
:func:`symrmt.weight_matrix.read_weight_matrix`, the package's one reader of ``weights=``):

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

from typing import Any

import numpy as np

from ..errors import ParameterError
from ..validate import real_array
from ..weight_matrix import WEIGHTS_HINT, WeightMatrix, read_weight_matrix

__all__ = ["WeightMatrix", "align_signal", "WEIGHTS_HINT"]


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
    resolved = read_weight_matrix(weights)
    u = real_array("direction", direction)
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
        reflect = lambda rows: rows - 2.0 * np.outer(rows @ v, v)
        return resolved.shift, reflect(resolved.keys), reflect(resolved.queries)
    M = resolved.matrix
    Mv, vM = M @ v, v @ M
    # H M H = M - 2 v (v^T M) - 2 (M v) v^T + 4 (v^T M v) v v^T
    return M - 2.0 * np.outer(v, vM) - 2.0 * np.outer(Mv, v) + 4.0 * float(v @ Mv) * np.outer(v, v)

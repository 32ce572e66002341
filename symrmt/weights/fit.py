r"""The best :math:`sI + \text{rank } r` approximation of a square matrix, :math:`s` and the rank-r part fitted jointly.

For :math:`M \in \mathbb R^{p\times p}` and each :math:`r = 0, \dots, R` this module solves

.. math::

    f_r^* = \min_{s \in \mathbb R,\ \operatorname{rank} L \le r} \|M - sI - L\|_F^2 .

**Derivation.** (i) For a fixed :math:`s` the best :math:`L` is the truncated SVD of
:math:`M - sI` (Eckart-Young), so

.. math::

    f_r(s) = \sum_{i > r} \sigma_i(M - sI)^2, \qquad f_r^* = \min_s f_r(s),

and for a fixed :math:`L` the best :math:`s` is :math:`\operatorname{tr}(M - L)/p`: at the joint
optimum each is optimal given the other (for :math:`r = 0`, :math:`s = \operatorname{tr} M/p`).
(ii) :math:`f_r` is not convex in general (it can have several local minima: for a symmetric
:math:`M` it drops the :math:`r` eigenvalues farthest from :math:`s`, from either end), but it is a
difference of convex functions: :math:`f_r = q - \varphi_r` with

.. math::

    q(s) = \|M - sI\|_F^2 = \|M\|_F^2 - 2s\operatorname{tr}M + p s^2, \qquad
    \varphi_r(s) = \sum_{i \le r} \sigma_i(M - sI)^2 = \max_{V^\top V = I_r} \|(M - sI)V\|_F^2 ,

:math:`\varphi_r` convex as a maximum of convex quadratics (Ky Fan). On an interval
:math:`[a, b]`, :math:`\varphi_r` lies below its chord, so :math:`f_r \ge q - \text{chord}`, a convex
quadratic whose minimum on :math:`[a, b]` is explicit: a rigorous lower bound of :math:`f_r` there.
(iii) The optimum lies in :math:`|s| \le B_r`: Weyl's inequality
:math:`\sigma_{i+j-1}(A + B) \le \sigma_i(A) + \sigma_j(B)` with :math:`A = sI - M`, :math:`B = M`
gives :math:`\sigma_i(M - sI) \ge |s| - \sigma_{p-i+1}(M)`, hence
:math:`f_r(s) \ge \sum_{j \le p - r} (|s| - \sigma_j(M))_+^2`, which exceeds :math:`f_r(0)` for
:math:`|s| > B_r`. (iv) Branch and bound on :math:`[-B, B]`: every interval whose lower bound is below
the best value found minus the tolerance is split (at the minimizer of its bound, kept a quarter
of the width from its ends), until none is. The best evaluated point is then within the
tolerance of the global optimum, and the smallest bound is a certified lower bound of :math:`f_r^*`.
One SVD of :math:`M - sI` gives :math:`f_r(s)` for every :math:`r` at once.

The matrices are held as :math:`M = U C U^\top` (:class:`CompressedMatrix`): one head's
:math:`W_K^{(h)\top} W_Q^{(h)}` has rank :math:`\le d`, and on the span :math:`U` of its row spaces
(:math:`2d` columns) :math:`M - sI` is :math:`C - sI_{2d}`, and :math:`-sI` on the rest, so its
singular values are those of :math:`C - sI` and :math:`|s|` repeated :math:`p - 2d` times.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConvergenceError

__all__ = ["CompressedMatrix", "ShiftFit", "fit_shift", "low_rank_part"]

#: Relative tolerance of the fitted residual :math:`f_r` (the residual fraction then to half of it).
RTOL = 1e-7
#: Absolute floor of the tolerance, relative to :math:`\|M\|_F^2`: above the round-off of a tail sum
#: of singular values (each off by about :math:`\epsilon\sigma_1`, so :math:`p\epsilon^2\sigma_1^2` in all),
#: so that an exact :math:`sI + \text{rank } r` is certified to a residual fraction of about 1e-12.
_FLOOR = 1e-24
#: Points of the first grid on :math:`[-B, B]`, and the most SVDs before giving up for a core of size
#: :math:`k \ge 64` (a layer's :math:`p = 384`: about two minutes); smaller cores cost about :math:`k^3` less per
#: SVD and get proportionally more, up to :data:`_MOST_EVALUATIONS`: a non-normal :math:`M` whose smallest
#: singular value touches 0 at a real eigenvalue needs many splits there (about 4100 for a 6 x 6 case).
_GRID, _MAX_EVALUATIONS, _MOST_EVALUATIONS = 5, 4000, 100_000
#: SVDs per batch (bounds the memory of the stacked shifted matrices).
_BATCH = 16


@dataclass(frozen=True)
class CompressedMatrix:
    r""":math:`M = U C U^\top` with ``basis`` :math:`U` (:math:`p \times k`, orthonormal columns), or :math:`M = C`.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import CompressedMatrix
    >>> basis = np.linalg.qr(np.random.default_rng(0).standard_normal((100, 2)))[0]   # M = U diag(3, 1) U^T
    >>> M = CompressedMatrix(np.diag([3.0, 1.0]), basis, 100)
    >>> M.dense().shape, round(float(np.trace(M.dense())), 6)
    ((100, 100), 4.0)
    """

    core: np.ndarray
    basis: np.ndarray | None
    p: int

    @classmethod
    def from_factors(cls, left: np.ndarray, right: np.ndarray, scale: float = 1.0) -> "CompressedMatrix":
        r""":math:`M = \text{scale}\cdot\text{left}^\top \text{right}` for ``left``, ``right`` of shape ``(k, p)``."""
        k, p = left.shape
        if 2 * k >= p:
            return cls(scale * (left.T @ right), None, p)
        basis, _ = np.linalg.qr(np.concatenate([left, right]).T)      # orthonormal even if rank deficient
        return cls(scale * ((left @ basis).T @ (right @ basis)), basis, p)

    def dense(self) -> np.ndarray:
        """:math:`M` as a ``p x p`` array."""
        return self.core if self.basis is None else self.basis @ self.core @ self.basis.T

    def shifted_singular_values(self, shifts: np.ndarray) -> np.ndarray:
        r"""Singular values of :math:`M - sI`, decreasing, for each ``s`` in ``shifts``: shape ``(len(shifts), p)``."""
        k = len(self.core)
        parts = []
        for start in range(0, len(shifts), _BATCH):
            s = np.asarray(shifts[start:start + _BATCH], dtype=float)
            stack = self.core[None] - s[:, None, None] * np.eye(k)
            values = np.linalg.svd(stack, compute_uv=False)
            extra = np.repeat(np.abs(s)[:, None], self.p - k, axis=1)
            parts.append(-np.sort(-np.concatenate([values, extra], axis=1), axis=1))
        return np.concatenate(parts)


@dataclass(frozen=True)
class ShiftFit:
    r"""Joint fits for :math:`r = 0..R`: ``shift`` :math:`s_r`, ``residual`` :math:`\|M - s_rI - L_r\|_F`,
    and ``lower``, a certified lower bound of the optimal residual (no :math:`s` does better).

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import CompressedMatrix, fit_shift
    >>> fit = fit_shift(CompressedMatrix(np.diag([3.0, 1.0, 1.0, 1.0]), None, 4), rank_max=1)     # I + 2 e_1 e_1^T
    >>> np.round(fit.shift, 9).tolist(), bool(fit.residual[1] < 1e-12)
    ([1.5, 1.0], True)
    """

    shift: np.ndarray
    residual: np.ndarray
    lower: np.ndarray
    evaluations: int


def fit_budget(k: int) -> int:
    """The most singular value decompositions :func:`fit_shift` takes for a k x k core: 4000, more for a small core
    (as many as 4000 of a 64 x 64 one cost), at most 100,000.

    >>> fit_budget(1024), fit_budget(32)
    (4000, 32000)
    """
    return min(_MOST_EVALUATIONS, max(_MAX_EVALUATIONS, int(_MAX_EVALUATIONS * (64 / max(k, 1)) ** 3)))


def fit_shift(matrix: CompressedMatrix, rank_max: int, rtol: float = RTOL) -> ShiftFit:
    r"""The jointly optimal :math:`s` and residual of :math:`sI + \text{rank } r` for ``r = 0..rank_max``.

    The method and its proof of global optimality are in the module docstring. Raises
    :class:`~symrmt.errors.ConvergenceError` if the branch and bound has not certified
    every rank after its budget of SVDs.

    Parameters
    ----------
    matrix : CompressedMatrix
        The matrix M.
    rank_max : int
        The largest rank r fitted.
    rtol : float
        The relative tolerance of the certified optimum.

    Returns
    -------
    ShiftFit
        ``shift[r]`` and ``residual[r]`` for ``r = 0..rank_max``.

    Raises
    ------
    ConvergenceError
        The branch and bound has not certified every rank after its budget of SVDs.

    See Also
    --------
    analyze : Runs it on every layer and head.

    Examples
    --------
    >>> M = 0.5 * np.eye(6) + np.outer(np.arange(6.0), np.ones(6))     # 0.5 I + rank 1
    >>> fit = fit_shift(CompressedMatrix(M, None, 6), rank_max=1)
    >>> round(float(fit.shift[1]), 9), bool(fit.residual[1] < 1e-9 * np.linalg.norm(M))
    (0.5, True)
    """
    p, ranks = matrix.p, np.arange(rank_max + 1)
    norm2, trace = float(np.sum(matrix.core**2)), float(np.trace(matrix.core))
    bounds = _shift_bounds(matrix.shifted_singular_values(np.zeros(1))[0], rank_max)
    width = float(bounds.max())
    shifts = np.unique(np.concatenate([np.linspace(-width, width, _GRID), [0.0, trace / p]]))
    tails = _tails(matrix.shifted_singular_values(shifts), rank_max)
    floor = _FLOOR * norm2
    budget = fit_budget(len(matrix.core))
    while True:
        lower, split = _interval_bounds(shifts, tails, p, bounds)
        best = tails.min(axis=0)
        short = lower < (best - np.maximum(rtol * best, floor))[None, :]
        if not short.any():
            break
        if len(shifts) > budget:
            raise ConvergenceError(f"the s*I + rank-r fit of a {p} x {p} matrix was not certified after "
                                   f"{len(shifts)} SVDs (ranks {ranks[short.any(axis=0)].tolist()}).")
        deficit = np.where(short, best[None, :] - lower, -np.inf)
        rows = np.flatnonzero(short.any(axis=1))
        new = split[rows, deficit[rows].argmax(axis=1)]
        shifts, tails = _insert(shifts, tails, new, _tails(matrix.shifted_singular_values(new), rank_max))
    at = tails.argmin(axis=0)
    return ShiftFit(shifts[at], np.sqrt(tails[at, ranks]), np.sqrt(np.maximum(lower.min(axis=0), 0.0)), len(shifts))


def _tails(values: np.ndarray, rank_max: int) -> np.ndarray:
    r""":math:`f_r = \sum_{i > r}\sigma_i^2` for ``r = 0..rank_max`` (summed from the small end: no cancellation)."""
    squares = values**2
    suffix = np.cumsum(squares[:, ::-1], axis=1)[:, ::-1]
    return suffix[:, :rank_max + 1]


def _shift_bounds(sigma: np.ndarray, rank_max: int) -> np.ndarray:
    r""":math:`B_r`: the largest :math:`|s|` with :math:`\sum_{j \le p-r} (|s| - \sigma_j)_+^2 \le f_r(0)` (bisection)."""
    p = len(sigma)
    target = _tails(sigma[None], rank_max)[0]
    lo = sigma[p - 1 - np.arange(rank_max + 1)]                     # the Weyl bound is 0 up to sigma_{p-r}
    hi = sigma[0] + np.sqrt(target / (p - np.arange(rank_max + 1))) + 1e-300
    keep = np.arange(p)[None, :] < (p - np.arange(rank_max + 1))[:, None]
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        weyl = np.sum(np.where(keep, np.maximum(mid[:, None] - sigma[None, :], 0.0) ** 2, 0.0), axis=1)
        lo, hi = np.where(weyl <= target, mid, lo), np.where(weyl <= target, hi, mid)
    return hi


def _interval_bounds(shifts: np.ndarray, tails: np.ndarray, p: int, bounds: np.ndarray):
    r"""Per interval and rank: the lower bound of :math:`f_r` (``inf`` outside :math:`|s| \le B_r`) and where to split.

    Since :math:`q` is quadratic with leading coefficient :math:`p`, :math:`q - \text{chord}_q = -p(s-a)(b-s)`,
    so the bound :math:`q - \text{chord}_{\varphi} = \text{chord}_f - p(s-a)(b-s)` needs only the values
    of :math:`f_r` at the ends (no cancellation of large terms: exact fits are certified to round-off).
    """
    a, b = shifts[:-1, None], shifts[1:, None]
    h = b - a
    fa, fb = tails[:-1], tails[1:]
    s = np.clip(0.5 * (a + b) - (fb - fa) / (2 * p * h), a, b)
    lower = fa + (fb - fa) * (s - a) / h - p * (s - a) * (b - s)
    lower = np.where((b < -bounds[None, :]) | (a > bounds[None, :]), np.inf, lower)
    return lower, np.clip(s, a + h / 4, b - h / 4)


def _insert(shifts, tails, new, new_tails):
    order = np.argsort(np.concatenate([shifts, new]), kind="stable")
    return np.concatenate([shifts, new])[order], np.concatenate([tails, new_tails])[order]


def low_rank_part(matrix: CompressedMatrix, shift: float, rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(u, sigma, v)``: the best rank-``rank`` :math:`L = \sum_k \sigma_k u_k v_k^\top` of :math:`M - sI`.

    ``u`` and ``v`` have shape ``(rank, p)``. Off the core's span :math:`M - sI = -sI`: those
    singular values are :math:`|s|`, and when they are among the top ``rank`` their vectors are
    any orthonormal vectors of that complement (all equally optimal).
    """
    k = len(matrix.core)
    u, sigma, vt = np.linalg.svd(matrix.core - shift * np.eye(k))
    if matrix.basis is None:
        return u[:, :rank].T, sigma[:rank], vt[:rank]
    values = np.concatenate([sigma, np.full(matrix.p - k, abs(shift))])
    top = np.argsort(-values, kind="stable")[:rank]                 # the core first on ties
    core, extra = top[top < k], top[top >= k] - k
    complement = np.linalg.qr(matrix.basis, mode="complete")[0][:, k + extra].T if len(extra) else np.zeros((0, matrix.p))
    sign = -1.0 if shift > 0 else 1.0                              # (M - sI) e = -s e off the core's span
    left = np.concatenate([u[:, core].T @ matrix.basis.T, sign * complement])
    right = np.concatenate([vt[core] @ matrix.basis.T, complement])
    values = np.concatenate([sigma[core], np.full(len(extra), abs(shift))])
    order = np.argsort(-values, kind="stable")
    return left[order], values[order], right[order]

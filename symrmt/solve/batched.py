r"""Many small dense linear systems at once: Gaussian elimination vectorized across the points.

Newton's method solves one :math:`U \times U` system per point (:math:`U` the number of unknowns, 3 to
9 here) for thousands of points at a time. ``np.linalg.solve`` on such a stack calls LAPACK once per
matrix, about 0.6 µs each, which was half the time of a random cloud in the algebraic form. Here the
elimination runs column by column on all points together (each operation is one NumPy call over the
points), about three times faster from a few hundred points on.

Partial pivoting is kept exactly: a point takes the vectorized elimination only if every pivot is the
largest entry of its column (no row exchange), where elimination without exchanges *is* Gaussian
elimination with partial pivoting; the other points (about a quarter on the random cloud of
``benchmarks/bench_solver.py``) and singular ones go to LAPACK, one failing point at a time.
"""
from __future__ import annotations

import time

import numpy as np

from ..runtime import jit

__all__ = ["solve_each", "solve_batched", "VECTORIZED_FROM"]

#: Below this many points the per-call overhead of the column-by-column elimination (about 10 NumPy calls
#: per unknown) exceeds LAPACK's per-matrix cost (measured: equal near 100 points for U = 6).
VECTORIZED_FROM = 128


def solve_each(matrices: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``np.linalg.solve`` of a stack, where a singular matrix gives NaN for its own point only.

    NumPy refuses the whole stack when one matrix is singular; then the matrices are
    solved one by one.
    """
    try:
        return np.linalg.solve(matrices, rhs)
    except np.linalg.LinAlgError:
        return np.stack([_solve_or_nan(a, b) for a, b in zip(matrices, rhs)])


def _solve_or_nan(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:
        return np.full(np.shape(rhs), np.nan, dtype=np.result_type(matrix, rhs))


def solve_batched(matrices: np.ndarray, rhs: np.ndarray, growth: float = 1.0) -> np.ndarray:
    r"""Solve :math:`A_n x_n = b_n` for every point :math:`n`: ``matrices`` (U, U, N), ``rhs`` (U, K, N) -> (U, K, N).

    The point index is last, so that each step of the elimination is one NumPy operation over contiguous
    rows. With :math:`\ell_{ik} = a_{ik}/a_{kk}` the multipliers of column :math:`k`, a point whose
    :math:`|\ell_{ik}| \le 1` at every step needed no row exchange under partial pivoting, and its result is
    that of partial pivoting; every other point is solved again by :func:`solve_each` (LAPACK).
    ``growth > 1`` accepts multipliers up to it (the elimination's growth factor is then at most
    :math:`(1 + \text{growth})^{U-1}` instead of :math:`2^{U-1}`): for solves that need only a few digits,
    such as the Newton corrections along a continuation path, whose residual is checked anyway.
    """
    n = matrices.shape[-1]
    if n < VECTORIZED_FROM:
        return solve_each(matrices.transpose(2, 0, 1), rhs.transpose(2, 0, 1)).transpose(1, 2, 0)
    native = _ELIMINATION.native()
    if native is not None and matrices.dtype == float and rhs.dtype == float:
        x = np.empty(rhs.shape)
        exchange = np.zeros(n, bool)
        native(np.ascontiguousarray(matrices), np.ascontiguousarray(rhs), float(growth), x, exchange)
    else:
        start = time.perf_counter()
        x, exchange = _eliminate(matrices, rhs, growth)
        _ELIMINATION.spend(time.perf_counter() - start)
    redo = np.flatnonzero(exchange)
    if redo.size:
        x[..., redo] = solve_each(matrices[..., redo].transpose(2, 0, 1),
                                  rhs[..., redo].transpose(2, 0, 1)).transpose(1, 2, 0)
    return x


def _eliminate(matrices: np.ndarray, rhs: np.ndarray, growth: float) -> tuple[np.ndarray, np.ndarray]:
    """The elimination of :func:`solve_batched` without row exchanges, one NumPy call per step over all points:
    ``(x, exchange)``, ``exchange`` True where a multiplier exceeds ``growth`` (x is then to be redone)."""
    u, n = matrices.shape[0], matrices.shape[-1]
    a = np.array(matrices)                      # copies: eliminated in place
    b = np.array(rhs)
    exchange = np.zeros(n, bool)
    with np.errstate(all="ignore"):
        for k in range(u - 1):
            multipliers = a[k + 1:, k] / a[k, k]
            exchange |= ~(np.max(np.abs(multipliers), axis=0) <= growth)      # NaN (a zero pivot) included
            a[k + 1:, k + 1:] -= multipliers[:, None] * a[k, None, k + 1:]
            b[k + 1:] -= multipliers[:, None] * b[k, None]
        exchange |= ~np.isfinite(a[u - 1, u - 1]) | (a[u - 1, u - 1] == 0)
        x = np.empty_like(b)
        for k in range(u - 1, -1, -1):
            right = b[k] - np.einsum("j...,jk...->k...", a[k, k + 1:], x[k + 1:]) if k < u - 1 else b[k]
            x[k] = right / a[k, k]
    return x, exchange


def _eliminate_points(matrices, rhs, growth, x, exchange):  # pragma: no cover - compiled by Numba
    """:func:`_eliminate` as loops over the points, operation for operation (the same roundings): the Numba
    machine code. The point loop is innermost, over contiguous memory, as in the NumPy code, but without temporaries.
    :func:`symrmt.solve.native_path._solve` is the same elimination for one point: the two change together."""
    u, k_count, n = rhs.shape[0], rhs.shape[1], rhs.shape[2]
    a = matrices.copy()
    b = rhs.copy()
    m = np.empty(n)
    for k in range(u - 1):
        for r in range(k + 1, u):
            for i in range(n):
                m[i] = a[r, k, i] / a[k, k, i]
                if not abs(m[i]) <= growth:            # NaN (a zero pivot) included, as in _eliminate
                    exchange[i] = True
            for c in range(k + 1, u):
                for i in range(n):
                    a[r, c, i] -= m[i] * a[k, c, i]
            for c in range(k_count):
                for i in range(n):
                    b[r, c, i] -= m[i] * b[k, c, i]
    for i in range(n):
        last = a[u - 1, u - 1, i]
        if not np.isfinite(last) or last == 0.0:
            exchange[i] = True
    total = np.empty(n)
    for k in range(u - 1, -1, -1):
        for c in range(k_count):
            if k < u - 1:
                for i in range(n):
                    total[i] = a[k, k + 1, i] * x[k + 1, c, i]
                for j in range(k + 2, u):
                    for i in range(n):
                        total[i] += a[k, j, i] * x[j, c, i]
                for i in range(n):
                    x[k, c, i] = (b[k, c, i] - total[i]) / a[k, k, i]
            else:
                for i in range(n):
                    x[k, c, i] = b[k, c, i] / a[k, k, i]


def _build_elimination():
    return jit.njit(_eliminate_points, "void(float64[:, :, ::1], float64[:, :, ::1], float64, float64[:, :, ::1], "
                                       "boolean[::1])")


#: The elimination compiled point by point (Numba), once it has paid for itself (:mod:`symrmt.runtime.jit`).
_ELIMINATION = jit.Budget(_build_elimination)

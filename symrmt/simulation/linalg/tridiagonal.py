r"""The ``tridiagonal`` route: one Householder reflector maps :math:`y` to :math:`\|y\| e_1`, then ``sytrd``.

Also :func:`first_column_solves`, the tridiagonal solves that the Lanczos quadrature shares.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import blas, lapack, solve_banded

from .. import two_stage
from ..threads import blas_threads
from .gram import GRAM_RTOL, rounding_bound

__all__ = ["TWO_STAGE_FROM", "tridiagonal_errors", "first_column_solves"]

#: Gram matrices from this size on are reduced by LAPACK's two-stage ``dsytrd_2stage`` when it is loaded
#: (:mod:`~symrmt.simulation.two_stage`); below it ``dsytrd`` is as fast or faster.
TWO_STAGE_FROM = 1024


def tridiagonal_errors(gram: np.ndarray, v: np.ndarray, gamma: np.ndarray, n: int,
                       y_norm2: float | None = None, threads: int = 1) -> np.ndarray | None:
    r""":math:`E(\gamma)` by tridiagonalizing the m-by-m ``gram`` from ``v``; ``gram`` is overwritten.

    Two sides of the same problem (``F`` is m-by-n):

    * ``y_norm2 is None``: ``gram`` is :math:`G = F^\top F/n` (m = n), ``v = y`` and
      :math:`E = \frac{\gamma^2}{n}\|y\|^2 \|u\|^2`, :math:`u = (T+\gamma)^{-1} e_1`.
    * ``y_norm2 = ||y||^2``: ``gram`` is the smaller :math:`H = F F^\top/n` (m < n) and
      ``v`` is :math:`z = F y/\sqrt n`. The push-through identity
      :math:`\gamma^2 y^\top (G+\gamma)^{-2} y = \|y\|^2 - z^\top (H + 2\gamma)(H+\gamma)^{-2} z`
      gives :math:`E = (\|y\|^2 - \|z\|^2 (u_1 + \gamma\|u\|^2))/n`; the null space of
      :math:`G` is then handled exactly. The subtraction loses a factor
      :math:`\|y\|^2/(nE)` of relative accuracy, which enters the rounding bound.

    ``gram`` must be exactly symmetric (as ``F.T @ F`` is). ``threads``: BLAS threads of the
    reduction (:mod:`~symrmt.simulation.threads`). Returns ``None`` when the rounding bound
    exceeds ``GRAM_RTOL``.
    """
    with blas_threads(threads):
        diag, off = _tridiagonalize(gram, v)
        u1, unorm2 = first_column_solves(diag, off, gamma)
    lam_max = _gershgorin_max(diag, off)
    v_norm2 = float(v @ v)
    if y_norm2 is None:
        errors = gamma**2 * v_norm2 * unorm2 / n
        bound = rounding_bound(diag.size, lam_max, gamma.min())
    else:
        errors = (y_norm2 - v_norm2 * (u1 + gamma * unorm2)) / n
        floor = np.maximum(errors, 1.0 / n)  # E >= 0; guards the division
        bound = float(np.max(rounding_bound(diag.size, lam_max, 1.0) / gamma * (y_norm2 / n) / floor))
    return errors if bound <= GRAM_RTOL else None


def _tridiagonalize(gram: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Diagonal and subdiagonal of :math:`T = Q^\top P G P Q` with :math:`P v \parallel e_1`, :math:`Q e_1 = e_1`.

    ``gram`` (C- or Fortran-contiguous, exactly symmetric) is overwritten: LAPACK
    works on the Fortran view of its lower triangle, so no copy is made.
    """
    a = gram if gram.flags.f_contiguous else gram.T  # the transpose of a symmetric C array is itself
    w = v.astype(np.float64, copy=True)
    w[0] += np.copysign(np.linalg.norm(w), w[0])     # Householder vector, no cancellation
    norm = np.linalg.norm(w)
    if norm > 0:
        w /= norm
        # P G P = G - w s^T - s w^T with s = 2 G w - 2 (w^T G w) w  (P = I - 2 w w^T)
        s = a @ w
        s *= 2.0
        s -= (w @ s) * w
        blas.dsyr2(-1.0, w, s, a=a, lower=1, overwrite_a=1)
    if a.shape[0] >= TWO_STAGE_FROM:
        reduced = two_stage.tridiagonalize(a)   # half the time of dsytrd (no level-2 half); None if not loaded
        if reduced is not None:
            return reduced
    lwork = int(lapack.dsytrd_lwork(a.shape[0], lower=1)[0])  # the default lwork is unblocked (2-3x slower)
    _, diag, off, _, info = lapack.dsytrd(a, lower=1, lwork=lwork, overwrite_a=1)
    if info != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dsytrd failed (info = {info})")
    return diag, off


def _gershgorin_max(diag: np.ndarray, off: np.ndarray) -> float:
    """An upper bound on the largest eigenvalue of the symmetric tridiagonal (diag, off)."""
    radius = np.zeros_like(diag)
    radius[:-1] += np.abs(off)
    radius[1:] += np.abs(off)
    return float(np.max(diag + radius))


def first_column_solves(diag: np.ndarray, off: np.ndarray,
                         gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`u_1` and :math:`\|u\|^2` for :math:`u = (T + \gamma)^{-1} e_1`, one LAPACK ``ptsv`` per :math:`\gamma`.

    :math:`T + \gamma` is positive definite (:math:`T \succeq 0` up to rounding,
    :math:`\gamma > 0`); should ``ptsv`` find it not to be (rounding at an eigenvalue
    far below :math:`\gamma`), a banded LU solve is used for that :math:`\gamma`.
    """
    rhs = np.zeros((diag.size, 1))
    rhs[0, 0] = 1.0
    u1 = np.empty(gamma.size)
    unorm2 = np.empty(gamma.size)
    for i, g in enumerate(gamma):
        _, _, u, info = lapack.dptsv(diag + g, off, rhs)
        if info != 0:
            u = _banded_solve(diag + g, off, rhs)
        u1[i] = u[0, 0]
        unorm2[i] = float(u[:, 0] @ u[:, 0])
    return u1, unorm2


def _banded_solve(diag: np.ndarray, off: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    bands = np.zeros((3, diag.size))
    bands[0, 1:], bands[1], bands[2, :-1] = off, diag, off
    return solve_banded((1, 1), bands, rhs)


r"""What the three routes share: the exactly symmetric Gram products and the a-priori rounding bound.

Each route computes the quadratic form of a matrix within :math:`\|\Delta\| \lesssim m\,\epsilon\,\lambda_{\max}`
of :math:`G`, which moves :math:`E` by a relative :math:`\le 2\|\Delta\|/\gamma` to first order
(:func:`rounding_bound`); a route refuses (returns ``None``) above :data:`GRAM_RTOL`.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..threads import blas_threads

__all__ = ["GRAM_RTOL", "SYRK_COLUMNS", "serial_blas", "rounding_bound", "symmetric_product", "gram_matrix",
           "cogram_matrix"]

#: Largest a-priori relative rounding estimate (on E) accepted from a Gram-matrix route.
GRAM_RTOL = 1e-5

#: Largest Gram matrix formed by one SYRK call (see :func:`symmetric_product`).
SYRK_COLUMNS = 8192

_EPS = float(np.finfo(np.float64).eps)


def serial_blas() -> contextlib.AbstractContextManager[None]:
    """BLAS limited to one thread (:func:`~symrmt.simulation.threads.blas_threads` with 1).

    Matrix-vector products and the level-2 half of ``sytrd`` gain little from a second
    thread, and an OpenBLAS thread that waits for a core held by another process slows
    them by up to 10x (docs/performance.md); one thread is the default of the reductions
    here, and :mod:`symrmt.simulation.threads` decides per machine for large ones.
    """
    return blas_threads(1)


def rounding_bound(size: int, lam_max: float, gamma_min: float) -> float:
    r"""A-priori relative error on :math:`E` of a Gram route: :math:`2 m \epsilon \lambda_{\max} / \gamma_{\min}`."""
    return 2.0 * size * _EPS * max(float(lam_max), 0.0) / float(gamma_min)


def symmetric_product(F: np.ndarray) -> np.ndarray:
    r""":math:`F^\top F`, exactly symmetric: numpy's SYRK, by blocks of columns above ``SYRK_COLUMNS``.

    numpy's ``F.T @ F`` calls SYRK and mirrors the triangle element by element. SciPy's
    ``blas.dsyrk`` with a blocked mirror was 12% faster alone at n = 2048, but 30% slower
    right after a numpy product: SciPy and NumPy load two OpenBLAS, and the threads of one
    still spin while the other's run, so the draw's products stay on NumPy's.
    OpenBLAS's multi-threaded SYRK crashes (SIGSEGV) on a 16384-by-16384 product;
    blocks of at most ``SYRK_COLUMNS`` columns (SYRK on the diagonal, GEMM below,
    mirrored above) avoid it at the same flop count.
    """
    n = F.shape[1]
    if n <= SYRK_COLUMNS:
        return F.T @ F
    gram = np.empty((n, n))
    starts = range(0, n, SYRK_COLUMNS)
    for i in starts:
        left = F[:, i:i + SYRK_COLUMNS]
        gram[i:i + SYRK_COLUMNS, i:i + SYRK_COLUMNS] = left.T @ left
        for j in (j for j in starts if j > i):
            block = left.T @ F[:, j:j + SYRK_COLUMNS]
            gram[i:i + SYRK_COLUMNS, j:j + SYRK_COLUMNS] = block
            gram[j:j + SYRK_COLUMNS, i:i + SYRK_COLUMNS] = block.T
    return gram


def gram_matrix(F: np.ndarray) -> np.ndarray:
    r""":math:`F^\top F / n` (n-by-n, ``F`` is m-by-n), exactly symmetric."""
    product = symmetric_product(F)
    product /= F.shape[1]
    return product


def cogram_matrix(F: np.ndarray) -> np.ndarray:
    r""":math:`F F^\top / n` (m-by-m, ``F`` is m-by-n), exactly symmetric: the smaller side when m < n."""
    product = symmetric_product(F.T)
    product /= F.shape[1]
    return product


r"""The Monte Carlo's linear algebra: ridge errors of a Gram matrix by three exact routes, and their costs.

Everything here computes, for a vector :math:`y \in \mathbb R^n`, a PSD Gram matrix
:math:`G = F^\top F / n` (:math:`F` is m-by-n) and a grid of ridge parameters,

.. math::

    E(\gamma) = \frac{\gamma^2}{n}\, y^\top (G + \gamma I_n)^{-2} y ,

which is all the Monte Carlo of :mod:`symrmt.simulation` needs (docs/theory.md,
section 1). Only this one quadratic form is wanted, not the eigenvectors of
:math:`G`, so there are cheaper routes than an eigendecomposition:

``exact``
    One eigendecomposition or SVD per matrix (:func:`~.exact.exact_errors`).
``tridiagonal``
    One Householder reflector maps :math:`y` to :math:`\|y\| e_1`, then LAPACK's
    ``sytrd`` reduces :math:`G` to a tridiagonal :math:`T`; its reflectors leave
    :math:`e_1` fixed, so :math:`y^\top (G+\gamma)^{-2} y = \|y\|^2 \|(T+\gamma)^{-1} e_1\|^2`:
    one O(m) tridiagonal solve per :math:`\gamma` (:func:`~.tridiagonal.tridiagonal_errors`). From
    ``TWO_STAGE_FROM`` on the reduction is the two-stage ``dsytrd_2stage``
    (:mod:`~symrmt.simulation.two_stage`), about twice as fast on one thread.
    Its cost is that of ``eigvalsh``, not of ``eigh``.
``lanczos``
    Lanczos on :math:`G` started from :math:`y` (full reorthogonalization), with
    Gauss quadrature (a lower bound) and Gauss--Radau quadrature with the node
    :math:`0 \le \lambda_{\min}(G)` (an upper bound) for :math:`f(\lambda) = (\lambda+\gamma)^{-2}`
    (Golub and Meurant, *Matrices, Moments and Quadrature*, 2010): it stops when
    the bracket is narrower than ``rtol`` at every :math:`\gamma`
    (:func:`~.lanczos.lanczos_errors`). Each step costs a few matrix-vector products; the two
    runs of a draw share their passes over :math:`C` (:func:`~.lanczos.lanczos_pair_errors`).

All three agree to far below Monte Carlo noise; the choice between them is made by
:mod:`symrmt.simulation.routes` (``method="auto"``) with its cost model
(:func:`~symrmt.simulation.routes.tridiagonal_cost`, :func:`~symrmt.simulation.routes.lanczos_cost`,
:func:`~symrmt.simulation.routes.step_budget`).

One module per route, :mod:`.exact`, :mod:`.tridiagonal` and :mod:`.lanczos`, and what they share in
:mod:`.gram` (the Gram products, the rounding bound and its limit); their public names are re-exported here.

Rounding. Each route computes the quadratic form of a matrix within
:math:`\|\Delta\| \lesssim m\,\epsilon\,\lambda_{\max}` of :math:`G` (backward error of
forming and reducing it), which moves :math:`E` by a relative
:math:`\le 2\|\Delta\|/\gamma` to first order. Every route returns ``None`` (the
caller then takes a more careful route) when that a-priori figure exceeds
``GRAM_RTOL`` at the smallest :math:`\gamma`; it is pessimistic by factors of
1e4 to 1e9 in practice (docs/performance.md), so rounding moves a route by about 1e-9, far inside the 1e-6
relative that every route promises (the Lanczos bracket's width, ``LANCZOS_RTOL``).

NumPy and SciPy only; the memory-bound kernels run on one BLAS thread unless the caller passes
``threads`` (:mod:`symrmt.simulation.threads` measures which is faster).
"""
from __future__ import annotations

from .exact import errors_gram, errors_svd, exact_errors
from .gram import GRAM_RTOL, SYRK_COLUMNS, cogram_matrix, gram_matrix, rounding_bound, serial_blas, symmetric_product
from .lanczos import CHECK_EVERY, LANCZOS_RTOL, lanczos_errors, lanczos_pair_errors, rows_product
from .tridiagonal import TWO_STAGE_FROM, first_column_solves, tridiagonal_errors

__all__ = ["GRAM_RTOL", "LANCZOS_RTOL", "SYRK_COLUMNS", "TWO_STAGE_FROM", "CHECK_EVERY", "serial_blas",
           "symmetric_product", "gram_matrix", "cogram_matrix", "rounding_bound", "exact_errors", "errors_gram",
           "errors_svd", "tridiagonal_errors", "first_column_solves", "lanczos_errors", "lanczos_pair_errors",
           "rows_product"]

r"""The Monte Carlo's linear algebra: ridge errors of a Gram matrix by three exact routes, and their costs.

Everything here computes, for a vector :math:`y \in \mathbb R^n`, a PSD Gram matrix
:math:`G = F^\top F / n` (:math:`F` is m-by-n) and a grid of ridge parameters,

.. math::

    E(\gamma) = \frac{\gamma^2}{n}\, y^\top (G + \gamma I_n)^{-2} y ,

which is all the Monte Carlo of :mod:`symrmt.simulation` needs (docs/theory.md,
section 1). Only this one quadratic form is wanted, not the eigenvectors of
:math:`G`, so there are cheaper routes than an eigendecomposition:

``exact``
    One eigendecomposition or SVD per matrix (:func:`exact_errors`).
``tridiagonal``
    One Householder reflector maps :math:`y` to :math:`\|y\| e_1`, then LAPACK's
    ``sytrd`` reduces :math:`G` to a tridiagonal :math:`T`; its reflectors leave
    :math:`e_1` fixed, so :math:`y^\top (G+\gamma)^{-2} y = \|y\|^2 \|(T+\gamma)^{-1} e_1\|^2`:
    one O(m) tridiagonal solve per :math:`\gamma` (:func:`tridiagonal_errors`). From
    ``TWO_STAGE_FROM`` on the reduction is the two-stage ``dsytrd_2stage``
    (:mod:`~symrmt.simulation.two_stage`), about twice as fast on one thread.
    Its cost is that of ``eigvalsh``, not of ``eigh``.
``lanczos``
    Lanczos on :math:`G` started from :math:`y` (full reorthogonalization), with
    Gauss quadrature (a lower bound) and Gauss--Radau quadrature with the node
    :math:`0 \le \lambda_{\min}(G)` (an upper bound) for :math:`f(\lambda) = (\lambda+\gamma)^{-2}`
    (Golub and Meurant, *Matrices, Moments and Quadrature*, 2010): it stops when
    the bracket is narrower than ``rtol`` at every :math:`\gamma`
    (:func:`lanczos_errors`). Each step costs a few matrix-vector products; the two
    runs of a draw share their passes over :math:`C` (:func:`lanczos_pair_errors`).

All three agree to far below Monte Carlo noise; the choice between them is made by
:mod:`symrmt.simulation.routes` (``method="auto"``) with the cost model at the end of
this module (:func:`tridiagonal_cost`, :func:`lanczos_cost`, :func:`step_budget`).

Rounding. Each route computes the quadratic form of a matrix within
:math:`\|\Delta\| \lesssim m\,\epsilon\,\lambda_{\max}` of :math:`G` (backward error of
forming and reducing it), which moves :math:`E` by a relative
:math:`\le 2\|\Delta\|/\gamma` to first order. Every route returns ``None`` (the
caller then takes a more careful route) when that a-priori figure exceeds
``GRAM_RTOL`` at the smallest :math:`\gamma`; it is pessimistic by factors of
1e4 to 1e9 in practice (docs/performance.md), so the routes agree to about 1e-9.

NumPy and SciPy only; the memory-bound kernels run on one BLAS thread unless the caller passes
``threads`` (:mod:`symrmt.simulation.threads` measures which is faster).
"""
from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable

import numpy as np
from scipy.linalg import blas, lapack

from . import two_stage
from .threads import MEASURED_FROM, available_threads, blas_threads

__all__ = ["GRAM_RTOL", "LANCZOS_RTOL", "SYRK_COLUMNS", "TWO_STAGE_FROM", "CHECK_EVERY", "serial_blas",
           "symmetric_product", "gram_matrix", "cogram_matrix", "rounding_bound", "exact_errors", "errors_gram",
           "errors_svd", "tridiagonal_errors", "lanczos_errors", "lanczos_pair_errors", "rows_product",
           "tridiagonal_cost", "lanczos_cost", "prior_steps", "step_budget"]

#: Largest a-priori relative rounding estimate (on E) accepted from a Gram-matrix route.
GRAM_RTOL = 1e-5

#: Width of the certified Gauss / Gauss-Radau bracket at which Lanczos stops (relative): the answer, its midpoint,
#: is then within 5e-7 of the exact value, inside the promise of every fast route (1e-6 relative, the tests of
#: tests/simulation/test_routes.py) and far inside the Monte Carlo's own standard errors. It was 1e-8, which took
#: a quarter more steps (192 against 152 at n = 4096, gamma_min = 1e-2; docs/performance.md).
LANCZOS_RTOL = 1e-6

#: Largest Gram matrix formed by one SYRK call (see :func:`symmetric_product`).
SYRK_COLUMNS = 8192

#: Gram matrices from this size on are reduced by LAPACK's two-stage ``dsytrd_2stage`` when it is loaded
#: (:mod:`~symrmt.simulation.two_stage`); below it ``dsytrd`` is as fast or faster.
TWO_STAGE_FROM = 1024

#: Elements (2 MB) of a block of rows in :func:`rows_product`: it stays in a core's L2 cache while
#: it serves each column.
_PRODUCT_BLOCK = 2**18

#: Steps a Lanczos run takes on the faster thread count before it times both counts again
#: (:func:`_run_steps`; the trials cost at most _TRIAL_STEPS / this of the run on the slower count).
_STEPS_BETWEEN_TRIALS = 96
#: Steps timed on each thread count in a trial: few, because the slower count's steps are lost time (at n = 4096
#: idle a paired step took about 14 ms on two threads and 26 ms on one), but enough to time (4 steps: 50 ms there).
_TRIAL_STEPS = 4

#: Lanczos checks its bracket every this many steps (the check is O(steps), a step O(n^2)).
CHECK_EVERY = 8

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


# ---------------------------------------------------------------------------
# exact: eigendecomposition or SVD
# ---------------------------------------------------------------------------

def exact_errors(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r"""All :math:`E(\gamma)` from one factorization of ``F`` (m-by-n), the reference route.

    With :math:`F^\top F/n = \sum_i \lambda_i v_i v_i^\top` and :math:`a_i = v_i^\top y`,

    .. math::

        E(\gamma) = \frac1n \Big[\sum_{i} a_i^2
            \Big(\frac{\gamma}{\lambda_i + \gamma}\Big)^2 + \|P_\perp y\|^2\Big],

    :math:`P_\perp` projecting on the null space of :math:`F` (nonzero only when m < n).

    * m < n: thin SVD of ``F``; it handles the (n - m)-dimensional null space
      exactly, where eigh of the n-by-n Gram would return n - m spurious
      eigenvalues of size eps*||F||^2/n.
    * m >= n: eigh of the n-by-n Gram (about 3x faster than the SVD) unless
      :func:`rounding_bound` exceeds ``GRAM_RTOL`` at the smallest :math:`\gamma`;
      then the SVD of ``F``, after a QR when m > n. The SVD gives each
      :math:`\sigma_i` to :math:`\epsilon\|F\|` absolutely, so :math:`\lambda_i = \sigma_i^2/n`
      keeps its accuracy down to the smallest :math:`\gamma`.
    """
    m, n = F.shape
    if m >= n:
        errors, bound = errors_gram(F, y, gamma)
        if bound <= GRAM_RTOL:
            return errors
        if m > n:
            F = np.linalg.qr(F, mode="r")  # n-by-n with the same Gram: a smaller SVD
    return errors_svd(F, y, gamma)


def _shrunk_norm(lam: np.ndarray, a2: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    r""":math:`\sum_i a_i^2 (\gamma/(\lambda_i+\gamma))^2` for every :math:`\gamma` (one matrix product)."""
    shrink = gamma[:, None] / (np.clip(lam, 0.0, None)[None, :] + gamma[:, None])
    return (shrink**2) @ a2


def errors_svd(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """The SVD branch of :func:`exact_errors` (any shape of ``F``)."""
    n = F.shape[1]
    _, sigma, vt = np.linalg.svd(F, full_matrices=False)
    a2 = (vt @ y) ** 2
    errors = _shrunk_norm(sigma**2 / n, a2, gamma)
    if vt.shape[0] < n:  # null space of F: ||P_perp y||^2 = ||y||^2 - ||V^T y||^2
        errors += max(float(y @ y - a2.sum()), 0.0)
    return errors / n


def errors_gram(F: np.ndarray, y: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, float]:
    """The eigh branch of :func:`exact_errors` for m >= n, and its :func:`rounding_bound`."""
    n = F.shape[1]
    lam, vectors = np.linalg.eigh(gram_matrix(F))
    errors = _shrunk_norm(lam, (vectors.T @ y) ** 2, gamma) / n
    return errors, rounding_bound(n, lam[-1], gamma.min())


# ---------------------------------------------------------------------------
# tridiagonal: one reflector, then sytrd
# ---------------------------------------------------------------------------

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
        u1, unorm2 = _first_column_solves(diag, off, gamma)
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


def _first_column_solves(diag: np.ndarray, off: np.ndarray,
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
    from scipy.linalg import solve_banded

    bands = np.zeros((3, diag.size))
    bands[0, 1:], bands[1], bands[2, :-1] = off, diag, off
    return solve_banded((1, 1), bands, rhs)


# ---------------------------------------------------------------------------
# lanczos: Gauss and Gauss-Radau bounds
# ---------------------------------------------------------------------------

def lanczos_errors(matvec: Callable[[np.ndarray], np.ndarray], y: np.ndarray, gamma: np.ndarray,
                   max_steps: int, cost_budget: Callable[[int], bool] | None = None,
                   rtol: float = LANCZOS_RTOL, threads: int = 1) -> tuple[np.ndarray | None, int]:
    r""":math:`E(\gamma)` by Lanczos quadrature on the PSD operator ``matvec`` (:math:`v \mapsto Gv`), from ``y``.

    After k steps, with :math:`T_k` the Lanczos tridiagonal and :math:`\beta_k` the
    next off-diagonal, :math:`f(\lambda) = (\lambda+\gamma)^{-2}` has derivatives of
    alternating sign on :math:`\lambda > -\gamma`, so (Golub--Meurant)

    .. math::

        L_k = e_1^\top f(T_k) e_1 \;\le\; \frac{y^\top f(G)\, y}{\|y\|^2}
            \;\le\; \min\big(e_1^\top f(\tilde T_{k+1}) e_1,\ \gamma^{-2}\big) = U_k,

    :math:`\tilde T_{k+1}` being :math:`T_k` bordered by :math:`\beta_k` and the
    entry that puts an eigenvalue at :math:`a = -\tau \le 0 \le \lambda_{\min}(G)`
    (Gauss--Radau; :math:`\tau = 10^{-9}\gamma_{\min}` keeps :math:`T_k - a` safely
    positive definite and loosens the bound by a relative :math:`2\tau/\gamma`).
    Iteration stops when :math:`U_k - L_k \le` ``rtol`` :math:`L_k` for every
    :math:`\gamma` and returns :math:`\frac{\gamma^2}{n}\|y\|^2 (L_k+U_k)/2`, certified
    to ``rtol/2`` relative (plus rounding, see :func:`rounding_bound`).

    The basis is fully reorthogonalized (classical Gram--Schmidt, twice), so the
    computed :math:`T_k` is that of exact Lanczos on a matrix within rounding of
    :math:`G` and the bounds hold to that accuracy.

    Returns ``(errors, steps)``; ``errors`` is ``None`` when the bracket did not close
    within ``max_steps``, when ``cost_budget(predicted_steps)`` is false for the
    number of steps extrapolated from the bracket's geometric decay, or when the
    rounding bound exceeds ``GRAM_RTOL``. ``threads``: BLAS threads of the matrix-vector
    products (:mod:`~symrmt.simulation.threads`) to start with; from
    :data:`~symrmt.simulation.threads.MEASURED_FROM` on the run also times its own steps on the
    other of one and all threads and keeps the faster (:func:`_run_steps`).
    """
    run = _lanczos_run(y, gamma, max_steps, cost_budget, rtol)
    with blas_threads(threads):
        first = next(run)
    return _drive(run, matvec, first, _thread_counts(y.size, threads))


def lanczos_pair_errors(into: Callable[[np.ndarray], np.ndarray], shared: Callable[[np.ndarray], np.ndarray],
                        out_of: Callable[[np.ndarray], np.ndarray], y: np.ndarray, gamma: np.ndarray,
                        max_steps: tuple[int, int],
                        cost_budgets: tuple[Callable[[int], bool] | None, Callable[[int], bool] | None] = (None, None),
                        rtol: float = LANCZOS_RTOL, threads: int = 1) -> tuple[tuple[np.ndarray | None, int], ...]:
    r""":func:`lanczos_errors` of :math:`G_1 = B\,A\,D` and :math:`G_2 = A` from one ``y``, sharing the passes over A.

    ``shared`` applies :math:`A` to the columns of an n-by-2 (or n-by-1) array, ``into`` is
    :math:`D` and ``out_of`` :math:`B` (for the attention Gram :math:`K^\top C K` and the linear
    :math:`C`: :math:`D = K`, :math:`A = C`, :math:`B = K^\top`). While both runs go on, each
    step applies A to the two vectors :math:`D q^{(1)}_k` and :math:`q^{(2)}_k` together
    (:func:`rows_product`: one pass over A for both on one thread), so on one thread the second run
    costs no pass over memory of its own. The two runs are the same as :func:`lanczos_errors` would make them,
    step for step (only the order of floating-point operations in A's products changes).
    Returns ``((errors_1, steps_1), (errors_2, steps_2))``.
    """
    runs = [_lanczos_run(y, gamma, steps, budget, rtol) for steps, budget in zip(max_steps, cost_budgets)]
    done: list[tuple[np.ndarray | None, int] | None] = [None, None]
    counts = _thread_counts(y.size, threads)
    with blas_threads(threads):
        vectors = [next(run) for run in runs]

    def paired_step() -> bool:
        product = shared(np.column_stack([into(vectors[0]), vectors[1]]))
        for i, w in enumerate((out_of(product[:, 0]), product[:, 1])):
            try:
                vectors[i] = runs[i].send(w)
            except StopIteration as stop:
                done[i] = stop.value
        return done[0] is None and done[1] is None

    _run_steps(paired_step, counts)
    if done[0] is None:
        done[0] = _drive(runs[0], lambda v: out_of(shared(into(v)[:, None])[:, 0]), vectors[0], counts)
    if done[1] is None:
        done[1] = _drive(runs[1], lambda v: shared(v[:, None])[:, 0], vectors[1], counts)
    return done[0], done[1]


def rows_product(A: np.ndarray, V: np.ndarray, workers: int | None = None) -> np.ndarray:
    r""":math:`A V` for a few columns V: one pass over A on one thread, a matrix-vector product per column on more.

    On one thread (``workers``, default: the BLAS threads in force) the rows of A are taken by blocks that
    stay in the core's cache while they serve every column, so two columns stream A once where two
    matrix-vector products stream it twice (numpy's GEMM on an n-by-2 right side does not). Those small
    products do not thread, while a matrix-vector product streams A at the bandwidth of all the cores
    (measured at n = 4096, idle: one product 3.3 ms on two threads, 8.2 ms on one; the blocked pass for two
    columns 8.5 ms on either), so on more than one thread each column has its own product. Which thread
    count a Lanczos run uses, its steps decide by their own timing (:func:`_run_steps`).
    """
    workers = available_threads() if workers is None else workers
    if workers > 1:
        return np.column_stack([A @ V[:, j] for j in range(V.shape[1])])
    rows = max(8, _PRODUCT_BLOCK // max(A.shape[1], 1))
    out = np.empty((A.shape[0], V.shape[1]))
    for start in range(0, A.shape[0], rows):
        np.matmul(A[start:start + rows], V, out=out[start:start + rows])
    return out


def _drive(run, matvec: Callable[[np.ndarray], np.ndarray], first: np.ndarray, counts: tuple[int, ...]):
    """Run the Lanczos generator ``run`` (which yielded ``first``) to its end, answering each vector it
    yields with ``matvec``, on the BLAS thread counts of :func:`_run_steps`."""
    state = {"vector": first}

    def step() -> bool:
        try:
            state["vector"] = run.send(matvec(state["vector"]))
            return True
        except StopIteration as stop:
            state["result"] = stop.value
            return False

    _run_steps(step, counts)
    return state["result"]


def _thread_counts(n: int, threads: int) -> tuple[int, ...]:
    """The BLAS thread counts a Lanczos run of size n tries: ``threads`` first, and from
    :data:`~symrmt.simulation.threads.MEASURED_FROM` on the other of one and all threads."""
    other = 1 if threads > 1 else available_threads()
    return (threads,) if n < MEASURED_FROM or other == threads else (threads, other)


def _run_steps(step: Callable[[], bool], counts: tuple[int, ...]) -> None:
    """Call ``step`` (one Lanczos step; False once the run is over) until the run is over, on the thread count
    of ``counts`` that the steps themselves time fastest.

    Each count runs :data:`_TRIAL_STEPS` steps, then the faster one runs
    :data:`_STEPS_BETWEEN_TRIALS` steps, and again: the load of a shared machine changes during a
    run, and a second BLAS thread that waits for a busy core made the products twice as slow at
    n = 4096 where on an idle machine it made them twice as fast (docs/performance.md). The
    thread count only reorders floating-point operations.
    """
    while True:
        seconds = {}
        for count in counts if len(counts) > 1 else ():
            with blas_threads(count):
                start = time.perf_counter()
                for _ in range(_TRIAL_STEPS):
                    if not step():
                        return
                seconds[count] = time.perf_counter() - start
        with blas_threads(min(seconds, key=seconds.get) if seconds else counts[0]):
            for _ in range(_STEPS_BETWEEN_TRIALS if seconds else sys.maxsize):
                if not step():
                    return


def _lanczos_run(y: np.ndarray, gamma: np.ndarray, max_steps: int, cost_budget: Callable[[int], bool] | None,
                 rtol: float):
    """Lanczos as a generator: yields each basis vector q and is sent back G q; returns ``(errors, steps)``."""
    n = y.size
    y_norm2 = float(y @ y)
    basis = _Basis(n, max_steps + 1)
    basis.append(y / np.sqrt(y_norm2))
    alpha: list[float] = []
    beta: list[float] = []
    history: list[tuple[int, float]] = []
    tau = 1e-9 * float(gamma.min())
    lam_max = 0.0   # Gershgorin bound of T_k, running: >= every Ritz value
    for k in range(1, max_steps + 1):
        previous = beta[-1] if beta else 0.0
        product = yield basis.active[-1]
        a, b = _lanczos_step(product, basis, previous)
        alpha.append(a)
        beta.append(b)
        lam_max = max(lam_max, a + b + previous)
        if b <= 64 * _EPS * max(lam_max, _EPS):  # invariant subspace: the Gauss rule is exact
            return _finish(np.array(alpha), np.array(beta[:-1]), None, gamma, y_norm2, n, tau, lam_max), k
        if k % CHECK_EVERY and k != max_steps:
            continue
        if rounding_bound(n, lam_max, gamma.min()) > GRAM_RTOL:
            return None, k   # gamma too small for a Gram route: the caller falls back to the SVD
        diag, off = np.array(alpha), np.array(beta[:-1])
        gap = _relative_gap(diag, off, b, gamma[:1], tau)[0]
        if gap <= rtol:
            lower, upper = _bracket(diag, off, b, gamma, tau)
            if np.all(upper - lower <= rtol * lower):
                return _finish(diag, off, b, gamma, y_norm2, n, tau, lam_max), k
        history.append((k, gap))
        if cost_budget is not None and not cost_budget(_predicted_steps(history, rtol)):
            return None, k
    return None, max_steps


class _Basis:
    """Orthonormal Lanczos vectors as rows of a growing array (doubling up to ``limit`` rows)."""

    def __init__(self, n: int, limit: int) -> None:
        self.rows = np.empty((min(limit, 64), n))
        self.limit = limit
        self.size = 0

    def append(self, q: np.ndarray) -> None:
        if self.size == self.rows.shape[0]:
            grown = np.empty((min(2 * self.size, self.limit), self.rows.shape[1]))
            grown[: self.size] = self.rows
            self.rows = grown
        self.rows[self.size] = q
        self.size += 1

    @property
    def active(self) -> np.ndarray:
        return self.rows[: self.size]


def _lanczos_step(product: np.ndarray, basis: _Basis, beta_prev: float) -> tuple[float, float]:
    """One step from ``product`` = G q_k: ``alpha_k``, ``beta_k``; appends the next basis vector (unless beta_k = 0)."""
    q = basis.active[-1]
    w = np.array(product, dtype=np.float64)   # a copy: the caller's array may be a view of a shared block
    if basis.size > 1:
        w -= beta_prev * basis.active[-2]
    a = float(q @ w)
    w -= a * q
    for _ in range(2):  # CGS2: twice is enough (Giraud et al.)
        h = basis.active @ w
        w -= h @ basis.active
        a += float(h[-1])
    b = float(np.linalg.norm(w))
    if b > 0:
        basis.append(w / b)
    return a, b


def _radau_entry(diag: np.ndarray, off: np.ndarray, b: float, tau: float) -> float:
    r"""The last diagonal entry of :math:`\tilde T_{k+1}` that gives it the eigenvalue :math:`a = -\tau`.

    :math:`\tilde\alpha = a + \delta_k` with :math:`(T_k - a)\delta = \beta_k^2 e_k`.
    """
    rhs = np.zeros((diag.size, 1))
    rhs[-1, 0] = b * b
    shift = tau
    for _ in range(60):  # T_k >= 0 up to rounding; grow the shift if rounding made T_k + tau indefinite
        _, _, delta, info = lapack.dptsv(diag + shift, off, rhs)
        if info == 0:
            return -shift + float(delta[-1, 0])
        shift *= 4.0
    raise RuntimeError("Gauss-Radau: T_k + tau is not positive definite")  # pragma: no cover


def _bracket(diag: np.ndarray, off: np.ndarray, b: float, gamma: np.ndarray,
             tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss (lower) and capped Gauss-Radau (upper) values of e_1^T (T + gamma)^-2 e_1."""
    _, lower = _first_column_solves(diag, off, gamma)
    radau_diag = np.append(diag, _radau_entry(diag, off, b, tau))
    _, upper = _first_column_solves(radau_diag, np.append(off, b), gamma)
    return lower, np.minimum(upper, gamma**-2.0)


def _relative_gap(diag: np.ndarray, off: np.ndarray, b: float, gamma: np.ndarray,
                  tau: float) -> np.ndarray:
    lower, upper = _bracket(diag, off, b, gamma, tau)
    return (upper - lower) / lower


def _predicted_steps(history: list[tuple[int, float]], rtol: float) -> float:
    """Steps at which the bracket would close, extrapolating its last geometric decay (pessimistic)."""
    if len(history) < 2:
        return 0.0
    (k0, g0), (k1, g1) = history[-2], history[-1]
    if g1 <= rtol:
        return float(k1)
    rate = (np.log(g1) - np.log(g0)) / (k1 - k0)
    if not rate < 0:
        return np.inf
    return k1 + (np.log(rtol) - np.log(g1)) / rate


def _finish(diag: np.ndarray, off: np.ndarray, b: float | None, gamma: np.ndarray, y_norm2: float,
            n: int, tau: float, lam_max: float) -> np.ndarray | None:
    """Midpoint of the bracket (the Gauss value when Lanczos found an invariant subspace), as E."""
    if rounding_bound(n, lam_max, gamma.min()) > GRAM_RTOL:
        return None
    if b is None:
        _, value = _first_column_solves(diag, off, gamma)
    else:
        lower, upper = _bracket(diag, off, b, gamma, tau)
        value = 0.5 * (lower + upper)
    return gamma**2 * y_norm2 * value / n


# ---------------------------------------------------------------------------
# Cost model of the routes (the choice of method="auto")
# ---------------------------------------------------------------------------
# In flop-equivalents of a GEMM (2 m k n for an m-by-k times k-by-n product). Ratios measured on the
# development machine, see docs/performance.md; only their order of magnitude matters for the choice,
# never for the result (every route is exact).
_PASS = 28.0            # one matrix element streamed by a matrix-vector product (22-32 on two threads and
                        # 43-77 on one at n = 2048-4096, where n-by-n arrays no longer fit in cache)
_SYRK = 1.4             # X^T X, per m*m*k (numpy uses SYRK, about 0.7 of a GEMM)
_SYTRD = 6.0            # blocked dsytrd, per m^3 (as _PASS / 4.7, the ratio measured below n = 1024)
_SYTRD_TWO_STAGE = 3.5  # dsytrd_2stage, per m^3: a pair of them on one BLAS thread each, 3.4 at 2048, 3.6 at 4096
_STEP_OVERHEAD = 6e6    # Python overhead of one Lanczos step
# Lanczos steps to close the bracket, about _STEPS * sqrt(kappa) with kappa the condition
# number of the Marchenko-Pastur bulk shifted by gamma_min (times _STEPS_ATTENTION for
# the attention Gram); measured with tanh at c = 1 (docs/performance.md): 5.6 for a bracket of 1e-8,
# and 0.79 of that for LANCZOS_RTOL = 1e-6 (152 steps against 192 at n = 4096).
_STEPS = 4.4
_STEPS_ATTENTION = 1.35


def _streamed(n: int, p: int, attention: bool, keeps_gram: bool) -> float:
    r"""Matrix elements one Lanczos matrix-vector product streams.

    The attention Gram :math:`K^\top C K` streams :math:`K, C, K^\top` when :math:`C = X^\top X/n`
    is kept, else :math:`K, X, X^\top, K^\top`; the linear Gram streams :math:`C` or :math:`X` twice.
    """
    if attention:
        return 3.0 * n * n if keeps_gram else 2.0 * n * n + 2.0 * p * n
    return 1.0 * n * n if keeps_gram else 2.0 * p * n


def tridiagonal_cost(n: int, p: int, attention: bool) -> float:
    """Flop-equivalents of the tridiagonal route (features XK and their Gram for the attention)."""
    m = min(n, p)
    reduction = (_SYTRD_TWO_STAGE if m >= TWO_STAGE_FROM and two_stage.available() else _SYTRD) * m**3
    if attention:
        return 2.0 * p * n * n + _SYRK * m * m * max(n, p) + reduction
    return (0.0 if p >= n else _SYRK * p * p * n) + reduction


def lanczos_cost(steps: float, n: int, p: int, attention: bool, keeps_gram: bool) -> float:
    """Flop-equivalents of ``steps`` Lanczos steps, reorthogonalization (4 k n per step) included."""
    per_step = _PASS * _streamed(n, p, attention, keeps_gram) + _STEP_OVERHEAD
    return steps * per_step + 2.0 * _PASS * n * steps * steps


def prior_steps(n: int, p: int, gamma_min: float, attention: bool) -> float:
    r"""Expected Lanczos steps, from the Marchenko--Pastur edges :math:`(\sqrt c \pm 1)^2` of :math:`X^\top X/n`."""
    c = p / n
    kappa = ((np.sqrt(c) + 1) ** 2 + gamma_min) / ((np.sqrt(c) - 1) ** 2 + gamma_min)
    return _STEPS * np.sqrt(kappa) * (_STEPS_ATTENTION if attention else 1.0)


def step_budget(n: int, p: int, attention: bool, keeps_gram: bool) -> int:
    """The most Lanczos steps that cost no more than the tridiagonal route (the root of a quadratic)."""
    a = 2.0 * _PASS * n
    b = _PASS * _streamed(n, p, attention, keeps_gram) + _STEP_OVERHEAD
    cost = tridiagonal_cost(n, p, attention)
    return int((-b + np.sqrt(b * b + 4 * a * cost)) / (2 * a))

r"""The ``lanczos`` route: Lanczos on :math:`G` from :math:`y` with Gauss and Gauss--Radau bounds.

It stops when the bracket is narrower than ``rtol`` at every :math:`\gamma` (Golub and Meurant,
*Matrices, Moments and Quadrature*, 2010); the two runs of a draw share their passes over :math:`C`
(:func:`lanczos_pair_errors`).
"""
from __future__ import annotations

import sys
import time
from typing import Callable

import numpy as np
from scipy.linalg import lapack

from ..threads import MEASURED_FROM, available_threads, blas_threads
from .gram import GRAM_RTOL, rounding_bound
from .tridiagonal import first_column_solves

__all__ = ["LANCZOS_RTOL", "CHECK_EVERY", "lanczos_errors", "lanczos_pair_errors", "rows_product"]

#: Width of the certified Gauss / Gauss-Radau bracket at which Lanczos stops (relative): the answer, its midpoint,
#: is then within 5e-7 of the exact value, inside the promise of every fast route (1e-6 relative, the tests of
#: tests/simulation/test_routes.py) and far inside the Monte Carlo's own standard errors. It was 1e-8, which took
#: a quarter more steps (192 against 152 at n = 4096, gamma_min = 1e-2; docs/performance.md).
LANCZOS_RTOL = 1e-6

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
    _, lower = first_column_solves(diag, off, gamma)
    radau_diag = np.append(diag, _radau_entry(diag, off, b, tau))
    _, upper = first_column_solves(radau_diag, np.append(off, b), gamma)
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
        _, value = first_column_solves(diag, off, gamma)
    else:
        lower, upper = _bracket(diag, off, b, gamma, tau)
        value = 0.5 * (lower + upper)
    return gamma**2 * y_norm2 * value / n


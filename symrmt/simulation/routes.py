r"""Which route of :mod:`~symrmt.simulation.linalg` computes each error curve of a draw; the cost model of ``"auto"``.

``method`` (:data:`METHODS`) chooses for the two Gram matrices of a draw, the attention
:math:`K^\top X^\top X K/n` and the linear :math:`X^\top X/n`:

``"exact"``
    one eigh or SVD per matrix;
``"tridiagonal"``
    one Householder tridiagonalization started from :math:`y` per matrix;
``"lanczos"``
    Lanczos quadrature with certified bounds, up to :data:`LANCZOS_MAX_STEPS` steps;
``"auto"``
    Lanczos within the step budget of the cost model (:func:`step_budget`, at the end of this module),
    tried only when the Marchenko--Pastur prior expects it to close within that budget.

A Lanczos run that does not close falls back to the tridiagonal route, and a route whose
rounding estimate is too large falls back to ``"exact"``; so every method gives the same
numbers to 1e-6 relative (:data:`~.linalg.lanczos.LANCZOS_RTOL`, the Lanczos bracket's width; the other routes
agree to rounding). The budget is fixed once per call (:class:`Plan`), before
the memory check and the draws.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ..errors import ConvergenceError
from . import linalg, threads, two_stage
from .linalg.tridiagonal import TWO_STAGE_FROM

__all__ = ["METHODS", "LANCZOS_MAX_STEPS", "Plan", "Instance", "keeps_gram", "concurrent", "errors",
           "unit_interval", "tridiagonal_cost", "lanczos_cost", "prior_steps", "step_budget"]

#: The ``method`` values of :func:`~symrmt.simulation.simulate`.
METHODS = ("auto", "exact", "tridiagonal", "lanczos")

#: Steps allowed to ``method="lanczos"`` before it falls back to the tridiagonal route.
LANCZOS_MAX_STEPS = 4000

#: Excursions of an error outside [0, 1] up to this size are round-off and are clipped.
CLIP_ATOL = 1e-12


def keeps_gram(method: str, n: int, p: int) -> bool:
    r"""Whether the draw keeps :math:`C = X^\top X/n` (n-by-n) for the fast routes.

    With it a Lanczos step on the attention Gram streams three n-by-n arrays
    (:math:`K, C, K^\top`) instead of :math:`2n^2 + 2pn` elements through ``X``; that
    pays when p >= n/2. The tridiagonal linear baseline needs it when p >= n.
    """
    if method == "exact":
        return False
    if method == "tridiagonal":
        return p >= n
    return 2 * p >= n


def concurrent(n: int, p: int) -> bool:
    """Whether four arrays of the draw's size may be alive at once (then the reductions run concurrently)."""
    return 8.0 * max(n, p) * n <= 2.0**30


@dataclass(frozen=True)
class Plan:
    """The routes of one call: its method, whether the draw keeps :math:`C`, and each curve's Lanczos budget.

    ``attention_steps`` and ``linear_steps`` are the most Lanczos steps each curve may take
    (0 when the method never tries Lanczos).
    """

    method: str
    n: int
    p: int
    keeps_gram: bool
    attention_steps: int
    linear_steps: int

    @classmethod
    def of(cls, method: str, n: int, p: int) -> Plan:
        """The plan of ``method`` at sizes n, p: the step budgets are computed here, once per call."""
        keeps = keeps_gram(method, n, p)
        if method == "lanczos":
            steps = (min(n + 1, LANCZOS_MAX_STEPS),) * 2
        elif method == "auto":
            steps = (step_budget(n, p, True, keeps), step_budget(n, p, False, keeps))
        else:
            steps = (0, 0)
        return cls(method, n, p, keeps, *steps)

    @property
    def lanczos_steps(self) -> int:
        """The larger of the two budgets: what a Lanczos basis may grow to."""
        return max(self.attention_steps, self.linear_steps)


class Instance:
    """The arrays of one draw; each route releases what it no longer needs (peak memory)."""

    def __init__(self, y: np.ndarray, X: np.ndarray, K: np.ndarray, C: np.ndarray | None) -> None:
        self.y, self.X, self.K, self.C = y, X, K, C
        self.features: np.ndarray | None = None
        self.n, self.p = X.shape[1], X.shape[0]

    def linear_operator(self) -> Callable[[np.ndarray], np.ndarray]:
        C, X, n = self.C, self.X, self.n
        if C is not None:
            return lambda v: C @ v
        return lambda v: (X.T @ (X @ v)) / n

    def attention_operator(self) -> Callable[[np.ndarray], np.ndarray]:
        C, X, K, n = self.C, self.X, self.K, self.n
        if C is not None:
            return lambda v: K.T @ (C @ (K @ v))
        return lambda v: K.T @ (X.T @ (X @ (K @ v))) / n

    def linear_block_operator(self, workers: int | None = None) -> Callable[[np.ndarray], np.ndarray]:
        """The linear Gram applied to the few columns of an n-by-k array (:func:`~symrmt.simulation.linalg.rows_product`
        on ``workers`` threads, default the BLAS's in force: one pass over its arrays for all columns on one)."""
        C, X, n = self.C, self.X, self.n
        if C is not None:
            return lambda V: linalg.rows_product(C, V, workers)
        return lambda V: linalg.rows_product(X.T, linalg.rows_product(X, V, workers), workers) / n

    def linear_problem(self) -> tuple:
        r"""Arguments of :func:`~symrmt.simulation.linalg.tridiagonal_errors` for the linear baseline (takes ``C``).

        p >= n: :math:`C = X^\top X/n` itself (reduced in place); p < n: the p-by-p
        :math:`X X^\top/n` and :math:`z = X y/\sqrt n`.
        """
        y, X, n, p = self.y, self.X, self.n, self.p
        gram, self.C = self.C, None
        if p >= n:
            return (gram if gram is not None else linalg.gram_matrix(X)), y, n, None
        return linalg.cogram_matrix(X), X @ y / np.sqrt(n), n, float(y @ y)

    def attention_problem(self) -> tuple:
        """The same for the attention: forms :math:`F = XK` (kept for the exact fallback), releases K."""
        y, n, p = self.y, self.n, self.p
        self.features = self.X @ self.K
        self.K = None
        if p >= n:
            return linalg.gram_matrix(self.features), y, n, None
        return linalg.cogram_matrix(self.features), self.features @ y / np.sqrt(n), n, float(y @ y)

    def finish(self, errors: np.ndarray | None, grid: np.ndarray, attention: bool) -> tuple[np.ndarray, str]:
        """``(errors, "tridiagonal")``, or the exact route where the rounding bound refused them."""
        if errors is not None:
            return errors, "tridiagonal"
        return linalg.exact_errors(self.features if attention else self.X, self.y, grid), "exact"


def errors(plan: Plan, instance: Instance, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """``(attention, linear, (attention route, linear route))`` for one draw."""
    if plan.method == "exact":
        features = instance.X @ instance.K
        instance.K = None  # free it before the factorization's workspace is allocated
        attention = linalg.exact_errors(features, instance.y, grid)
        del features
        return attention, linalg.exact_errors(instance.X, instance.y, grid), ("exact", "exact")
    linear = attention = None
    if plan.method != "tridiagonal":
        attention, linear = _lanczos_pair(plan, instance, grid)
    routes = ["lanczos", "lanczos"]
    if linear is None or attention is None:
        strategy = threads.policy(min(plan.n, plan.p)).reductions
        done = _tridiagonal(instance, grid, linear is None, attention is None,
                            strategy if concurrent(plan.n, plan.p) else replace(strategy, concurrent=False))
        linear, routes[1] = done.get("linear", (linear, routes[1]))
        attention, routes[0] = done.get("attention", (attention, routes[0]))
    return attention, linear, (routes[0], routes[1])


def _lanczos_pair(plan: Plan, instance: Instance, grid: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Lanczos quadrature within the plan's budgets for the curves that try it, or None (then the tridiagonal route).

    When both curves try it, the two runs share their passes over C (or X): the linear Gram
    is the inner factor of the attention's :math:`K^\top C K`
    (:func:`~symrmt.simulation.linalg.lanczos_pair_errors`), so the linear run streams no memory
    of its own. The products start on the BLAS threads that :mod:`~symrmt.simulation.threads`
    measured fastest for memory-bound products; the run then times its own steps on one and on
    all threads and keeps the faster (:func:`~symrmt.simulation.linalg.lanczos_errors`).
    """
    tries = [_lanczos_budget(plan, grid, attention) for attention in (True, False)]
    blas = threads.policy(plan.n).lanczos.threads
    y = instance.y
    if tries[0] is not None and tries[1] is not None:
        K = instance.K
        (attention, _), (linear, _) = linalg.lanczos_pair_errors(
            lambda v: K @ v, instance.linear_block_operator(), lambda w: K.T @ w, y, grid,
            (tries[0][0], tries[1][0]), (tries[0][1], tries[1][1]), threads=blas)
        return attention, linear
    if tries[0] is not None:
        return linalg.lanczos_errors(instance.attention_operator(), y, grid, *tries[0], threads=blas)[0], None
    if tries[1] is not None:
        return None, linalg.lanczos_errors(instance.linear_operator(), y, grid, *tries[1], threads=blas)[0]
    return None, None


def _lanczos_budget(plan: Plan, grid: np.ndarray, attention: bool) -> tuple[int, Callable[[float], bool] | None] | None:
    """``(most steps, cost check)`` of a curve's Lanczos run, or None when the plan expects the tridiagonal route
    to be cheaper (``method="auto"``; ``method="lanczos"`` has only the step cap)."""
    n, p = plan.n, plan.p
    steps = plan.attention_steps if attention else plan.linear_steps
    if plan.method != "auto":
        return steps, None
    if steps < max(2 * linalg.CHECK_EVERY, prior_steps(n, p, float(grid.min()), attention)):
        return None
    return steps, _cheaper_than_tridiagonal(n, p, attention, plan.keeps_gram)


def _cheaper_than_tridiagonal(n: int, p: int, attention: bool, keeps_gram: bool) -> Callable[[float], bool]:
    """Whether a Lanczos run of a predicted number of steps still costs no more than the tridiagonal route."""
    limit = tridiagonal_cost(n, p, attention)
    return lambda steps: lanczos_cost(steps, n, p, attention, keeps_gram) <= limit


def _tridiagonal(instance: Instance, grid: np.ndarray, linear: bool, attention: bool,
                 strategy: threads.Strategy) -> dict[str, tuple[np.ndarray, str]]:
    """The tridiagonal route for the curves asked for, the two reductions run as ``strategy`` says.

    The Gram products before the reductions keep the BLAS's threads (level 3). Concurrent
    reductions keep C alive while the features are formed (four n-by-n arrays), so they
    are only asked for when those are small (:func:`concurrent`); one after the other,
    C is released before the features are formed.
    """
    out = {}
    blas = strategy.threads
    if linear and attention and strategy.concurrent:
        linear_args, attention_args = instance.linear_problem(), instance.attention_problem()
        done = threads.run_pair(
            lambda: linalg.tridiagonal_errors(*attention_args[:2], grid, *attention_args[2:], threads=blas),
            lambda: linalg.tridiagonal_errors(*linear_args[:2], grid, *linear_args[2:], threads=blas), strategy,
            need=3 * sum(a.nbytes for a in (*linear_args[:2], *attention_args[:2]) if isinstance(a, np.ndarray)))
        out["attention"] = instance.finish(done[0], grid, True)
        out["linear"] = instance.finish(done[1], grid, False)
        return out
    if linear:
        args = instance.linear_problem()
        out["linear"] = instance.finish(linalg.tridiagonal_errors(*args[:2], grid, *args[2:], threads=blas),
                                        grid, False)
        del args
    if attention:
        instance.C = None
        args = instance.attention_problem()
        instance.X = None
        out["attention"] = instance.finish(linalg.tridiagonal_errors(*args[:2], grid, *args[2:], threads=blas),
                                           grid, True)
    return out


def unit_interval(errors: np.ndarray, what: str, grid: np.ndarray) -> np.ndarray:
    """Clip round-off excursions (< 1e-12) into [0, 1]; anything larger is a ConvergenceError."""
    excess = np.maximum(-errors, errors - 1.0)
    if not np.all(np.isfinite(errors)) or np.max(excess) > CLIP_ATOL:
        worst = int(np.argmax(np.where(np.isfinite(errors), excess, np.inf)))
        raise ConvergenceError(
            f"{what} error {errors[worst]!r} at gamma = {grid[worst]:.6g} lies outside [0, 1] by more than "
            f"round-off ({CLIP_ATOL:g}); the linear algebra lost accuracy (try method='exact')."
        )
    return np.clip(errors, 0.0, 1.0)


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

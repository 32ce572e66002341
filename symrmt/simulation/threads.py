r"""BLAS threads per kernel of the Monte Carlo, chosen from the kernels' own timings, once per process.

A draw of :func:`symrmt.simulation.simulate` spends its time in two kinds of kernels
(docs/performance.md):

* level-3 products (the scores, :math:`X^\top X`, the features :math:`XK` and their Gram),
  which scale with BLAS threads and are left to the BLAS's own thread count;
* two *reductions*, one per Gram matrix: LAPACK's ``sytrd`` (tridiagonal route) or a
  Lanczos run, whose matrix-vector products are memory-bound. Half of ``sytrd`` is level 2.

For the reductions a second BLAS thread can help (an idle machine with bandwidth to
spare), do nothing, or slow them several-fold (an OpenBLAS thread that waits for a core
held by another process: ``sytrd`` at n = 2048 took 0.73 s with one thread and 4.07 s
with two on a 2-core machine at load 1.2). Which one happens depends on the machine and
its load, so it is measured: :func:`measure` times one ``sytrd`` and a batch of
matrix-vector products of size :data:`CALIBRATION_SIZE` with one and with all BLAS
threads, and the two reductions run concurrently with one thread each; :func:`policy`
keeps, for each kind of reduction, the fastest way to do the *pair*:

.. math::

    \min\big(t_{\rm pair}^{(1)},\; 2\,t^{(1)},\; 2\,t^{(T)}\big),

two Python threads with one BLAS thread each, or one after the other with one or
:math:`T` BLAS threads. The measurement runs once per process, the first time a
reduction of at least :data:`MEASURED_FROM` is about to run (0.5 to 2 s, against 2 s or
more per draw at those sizes); smaller problems keep the pair on one thread each, which
costs nothing to decide.
Thread counts change only the order of floating-point operations, never the route.
``SYMRMT_REDUCTIONS`` (``pair``, ``serial`` or ``threaded``) skips the measurement.
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np
from scipy.linalg import lapack

__all__ = ["CALIBRATION_SIZE", "MEASURED_FROM", "STRATEGIES", "Strategy", "ThreadPolicy", "blas_threads", "available_threads",
           "measure", "policy", "run_pair"]

#: Size of the kernels timed by :func:`measure`.
CALIBRATION_SIZE = 1024

#: Reductions from this size on follow the measured policy; smaller ones are not worth measuring for.
MEASURED_FROM = 1536

#: The ways to run the two reductions of a draw (:class:`Strategy`).
STRATEGIES = ("pair", "serial", "threaded")

#: Matrix-vector products timed per measurement (a Lanczos run takes 100 to 500).
_PRODUCTS = 24


@functools.lru_cache(maxsize=1)
def _controller():
    """threadpoolctl's view of the loaded BLAS, built once (it scans the loaded libraries)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    return ThreadpoolController()


_limits: list[list] = []           # stack of [threads, users, limiter]
_limits_lock = threading.Lock()


@contextlib.contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """The BLAS limited to ``threads`` threads, process-wide, for the duration of the block.

    Uses with the same count share one limit (two reductions in two Python threads); a
    nested use with another count stacks on top of it. The limit in force before the
    first use comes back when the last one exits.
    """
    controller = _controller()
    with _limits_lock:
        if _limits and _limits[-1][0] == threads:
            _limits[-1][1] += 1
        else:
            limiter = controller.limit(limits=threads, user_api="blas") if controller is not None else None
            _limits.append([threads, 1, limiter])
        entry = _limits[-1]
    try:
        yield
    finally:
        with _limits_lock:
            entry[1] -= 1
            if entry[1] == 0:
                _limits.remove(entry)
                if entry[2] is not None:
                    entry[2].restore_original_limits()


def available_threads() -> int:
    """BLAS threads this process may use: the BLAS's current limit (1 when no BLAS is found)."""
    controller = _controller()
    infos = [] if controller is None else [lib.num_threads for lib in controller.lib_controllers
                                           if lib.user_api == "blas"]
    return max(1, min(infos)) if infos else 1


@dataclass(frozen=True)
class Strategy:
    """How the two reductions of a draw run: ``concurrent`` in two Python threads, each on ``threads`` BLAS threads."""

    name: str
    concurrent: bool
    threads: int


@dataclass(frozen=True)
class ThreadPolicy:
    """The chosen :class:`Strategy` for the two ``sytrd`` and for the two Lanczos runs, and the timings behind it.

    ``seconds`` maps ``(kernel, strategy name)`` to the wall time of the *pair* of kernels
    (empty when the policy was not measured).
    """

    reductions: Strategy
    lanczos: Strategy
    seconds: dict = field(default_factory=dict)


def _strategies(threads: int) -> dict[str, Strategy]:
    return {"pair": Strategy("pair", True, 1), "serial": Strategy("serial", False, 1),
            "threaded": Strategy("threaded", False, threads)}


def run_pair(first: Callable[[], object], second: Callable[[], object], strategy: Strategy) -> tuple:
    """``(first(), second())`` under ``strategy``: concurrently in two Python threads, or one after the other."""
    with blas_threads(strategy.threads):
        if not strategy.concurrent:
            return first(), second()
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(second)
            return first(), pending.result()


def _wall(fn: Callable[[], object], repeat: int = 2) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _kernels(size: int) -> dict[str, Callable[[], object]]:
    """One ``sytrd`` (blocked, as the tridiagonal route runs it) and :data:`_PRODUCTS` matrix-vector products."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((size, size))
    gram = Z.T @ Z / size
    lwork = int(lapack.dsytrd_lwork(size, lower=1)[0])
    v = rng.standard_normal(size)

    def reduction():
        lapack.dsytrd(gram, lower=1, lwork=lwork)   # works on a copy: gram is reused

    def products():
        w = v
        for _ in range(_PRODUCTS):
            w = gram @ w
            w /= np.linalg.norm(w)

    return {"sytrd": reduction, "products": products}


def measure(size: int = CALIBRATION_SIZE, threads: int | None = None) -> dict[tuple[str, str], float]:
    """Wall time of a *pair* of each kernel (``"sytrd"``, ``"products"``) under each strategy of :data:`STRATEGIES`.

    ``threads`` is the :math:`T` of the ``"threaded"`` strategy (default: :func:`available_threads`).
    """
    threads = available_threads() if threads is None else threads
    seconds = {}
    for kernel, fn in _kernels(size).items():
        for name, strategy in _strategies(threads).items():
            if name == "threaded" and threads == 1:
                continue
            seconds[kernel, name] = _wall(lambda: run_pair(fn, fn, strategy))
    return seconds


def _fastest(seconds: dict, kernel: str, threads: int) -> Strategy:
    name = min((s for k, s in seconds if k == kernel), key=lambda s: seconds[kernel, s])
    return _strategies(threads)[name]


@functools.lru_cache(maxsize=1)
def _measured_policy() -> ThreadPolicy:
    threads = available_threads()
    seconds = measure(CALIBRATION_SIZE, threads)
    return ThreadPolicy(_fastest(seconds, "sytrd", threads), _fastest(seconds, "products", threads), seconds)


def policy(size: int) -> ThreadPolicy:
    """The :class:`ThreadPolicy` for reductions of ``size``: measured once per process from :data:`MEASURED_FROM` on.

    ``SYMRMT_REDUCTIONS`` set to one of :data:`STRATEGIES` fixes the strategy at every size.
    """
    forced = os.environ.get("SYMRMT_REDUCTIONS", "").strip().lower()
    if forced in STRATEGIES:
        strategy = _strategies(available_threads())[forced]
        return ThreadPolicy(strategy, strategy)
    if size < MEASURED_FROM:
        pair = _strategies(1)["pair"]
        return ThreadPolicy(pair, pair)
    return _measured_policy()

r"""BLAS threads per kernel of the Monte Carlo, chosen from the kernels' own timings, once per process.

A draw of :func:`symrmt.simulation.simulate` spends its time in two kinds of kernels
(docs/performance.md):

* level-3 products (the scores, :math:`X^\top X`, the features :math:`XK` and their Gram),
  which scale with BLAS threads on an idle machine (but a GEMM of size 256 took 40 times
  longer on two threads than on one at load 10);
* two *reductions*, one per Gram matrix: LAPACK's ``sytrd`` (tridiagonal route; its
  two-stage form from n = 1024, :mod:`~symrmt.simulation.two_stage`) or a Lanczos run,
  whose matrix-vector products are memory-bound. Half of ``sytrd`` is level 2; the second
  stage of the two-stage form is serial. The two Lanczos runs of a draw are one run of
  paired steps (:func:`~symrmt.simulation.linalg.lanczos_pair_errors`), which starts on the
  thread count chosen here and then times its own steps on both counts.

For the reductions a second BLAS thread can help (an idle machine with bandwidth to
spare), do nothing, or slow them several-fold (an OpenBLAS thread that waits for a core
held by another process: ``sytrd`` at n = 2048 took 0.73 s with one thread and 4.07 s
with two on a 2-core machine at load 1.2). Which one happens depends on the machine and
its load, so it is measured: :func:`measure` times two reductions of size
:data:`CALIBRATION_SIZE` run concurrently with one BLAS thread each, one after the other
with one thread, and (when a cheap probe does not already show them slower) one after
the other with all BLAS threads, and a batch of matrix-vector products on one and on all
threads; :func:`policy` keeps the faster thread count for the level-3 products (a GEMM
timed on one and on all threads, at :data:`PRODUCTS_SIZE` for draws of that size and larger) and
for the Lanczos run, and the fastest way to do the pair of reductions:

.. math::

    \min\big(t_{\rm pair}^{(1)},\; 2\,t^{(1)},\; 2\,t^{(T)}\big),

two Python threads with one BLAS thread each, or one after the other with one or
:math:`T` BLAS threads. The measurement runs once per process, before the first draw
with n or p of at least :data:`MEASURED_FROM` (about 0.3 s idle, 1 to 2 s at load 8 to 11,
once, against a draw of 0.05 s at n = 512 and 2 s or more at 2048 idle); smaller draws
keep the BLAS's own threads for the products and the pair on one thread each, which
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

try:
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover - a declared dependency
    ThreadpoolController = None

from ..runtime.memory import room_for_thread
from . import two_stage

__all__ = ["CALIBRATION_SIZE", "PROBE_SIZE", "MEASURED_FROM", "PRODUCTS_SIZE", "STRATEGIES", "Strategy", "ThreadPolicy",
           "blas_threads", "available_threads", "measure", "policy", "run_pair"]

#: Size of the kernels timed by :func:`measure` (an n-by-n array of 4.7 MB: beyond the per-core cache,
#: so the kernels are memory-bound as at the sizes that use the measurement).
CALIBRATION_SIZE = 768

#: Size of the probe that decides whether the threaded kernels are worth timing at full size.
PROBE_SIZE = 192

#: Draws from this size on follow the measured policy (a draw at 512 costs about as much as the
#: measurement; smaller ones are not worth measuring for).
MEASURED_FROM = 512

#: Draws from this size on choose the threads of their level-3 products from a GEMM of this size, timed once
#: per process on one and on all threads (about 0.3 s idle). A GEMM of CALIBRATION_SIZE misjudges them: its
#: threads' start-up is a large part of it (measured idle: 0.013 s on one thread, 0.014 s on two at 768,
#: 0.222 s and 0.116 s at 2048), so draws at 2048 ran their products on one thread at half the speed.
PRODUCTS_SIZE = 1536

#: The ways to run the two reductions of a draw (:class:`Strategy`).
STRATEGIES = ("pair", "serial", "threaded")

#: Matrix-vector products timed per measurement (a Lanczos run takes 100 to 500).
_PRODUCTS = 24


@functools.lru_cache(maxsize=1)
def _controller():
    """threadpoolctl's view of the loaded BLAS, built once (it scans the loaded libraries)."""
    return None if ThreadpoolController is None else ThreadpoolController()


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
    """The chosen :class:`Strategy` for the two tridiagonal reductions and for the Lanczos run (``"serial"``
    or ``"threaded"``: its two curves are paired step by step), the BLAS threads of the draw's level-3
    products, and the timings behind them.

    ``seconds`` maps ``(kernel, strategy name)`` to the wall time of the *pair* of kernels, and
    ``("gemm", "serial" or "threaded")`` to that of one GEMM on one or all threads (empty when
    the policy was not measured).
    """

    reductions: Strategy
    lanczos: Strategy
    products: int
    seconds: dict = field(default_factory=dict)


def _strategies(threads: int) -> dict[str, Strategy]:
    return {"pair": Strategy("pair", True, 1), "serial": Strategy("serial", False, 1),
            "threaded": Strategy("threaded", False, threads)}


def run_pair(first: Callable[[], object], second: Callable[[], object], strategy: Strategy,
             need: float = 0.0) -> tuple:
    """``(first(), second())`` under ``strategy``: concurrently in two Python threads, or one after the other.

    One after the other also when the address-space limit leaves no room for a second thread that calls
    BLAS and the ``need`` bytes its calls allocate (:func:`symrmt.runtime.memory.room_for_thread`: OpenBLAS
    would spin forever on its buffer); the results are the same, each call keeping its BLAS threads.
    """
    with blas_threads(strategy.threads):
        if not strategy.concurrent or not room_for_thread(need):
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
    """One tridiagonal reduction (``dsytrd_2stage``, or blocked ``dsytrd``, as the tridiagonal route runs it
    on large matrices) and :data:`_PRODUCTS` matrix-vector products."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((size, size))
    gram = Z.T @ Z / size
    lwork = int(lapack.dsytrd_lwork(size, lower=1)[0])
    v = rng.standard_normal(size)

    def reduction():
        # the large draws' reduction (two-stage where loaded); each works on a copy: gram is reused
        if two_stage.tridiagonalize(np.array(gram, order="F")) is None:
            lapack.dsytrd(gram, lower=1, lwork=lwork)

    def products():
        w = v
        for _ in range(_PRODUCTS):
            w = gram @ w
            w /= np.linalg.norm(w)

    def gemm():
        Z.T @ gram

    return {"sytrd": reduction, "products": products, "gemm": gemm}


def measure(size: int = CALIBRATION_SIZE, threads: int | None = None) -> dict[tuple[str, str], float]:
    """Wall time of a *pair* of reductions (``"sytrd"``) under the strategies of :data:`STRATEGIES`, of a pair
    of batches of matrix-vector products (``"products"``) and of one ``"gemm"`` on one (``"serial"``)
    and on all (``"threaded"``) threads.

    ``threads`` is the :math:`T` of the ``"threaded"`` strategy (default: :func:`available_threads`).
    A threaded reduction can be ten or more times slower on a busy machine, so its
    ``"threaded"`` strategy is timed at ``size`` only when a probe at :data:`PROBE_SIZE` finds
    it no slower than one thread; otherwise it is left out (never chosen). The GEMM is always
    timed on both: a probe that small would always find its threads slower (their start-up
    dominates), and one GEMM of ``size`` costs little even when its threads stall.
    """
    threads = available_threads() if threads is None else threads
    strategies = _strategies(threads)
    probe = _kernels(min(size, PROBE_SIZE))
    seconds = {}
    for kernel, fn in _kernels(size).items():
        for name in ("pair", "serial") if kernel == "sytrd" else ("serial",):
            seconds[kernel, name] = _time(fn, kernel, strategies[name])
        if threads > 1 and (kernel == "gemm" or _time(probe[kernel], kernel, strategies["threaded"])
                            <= _time(probe[kernel], kernel, strategies["serial"])):
            seconds[kernel, "threaded"] = _time(fn, kernel, strategies["threaded"])
    return seconds


def _time(fn: Callable[[], object], kernel: str, strategy: Strategy) -> float:
    """Wall time of a pair of reductions under ``strategy``, or of one GEMM on its number of threads."""
    if kernel == "gemm":
        with blas_threads(strategy.threads):
            return _wall(fn)
    return _wall(lambda: run_pair(fn, fn, strategy))


def _fastest(seconds: dict, kernel: str, threads: int) -> Strategy:
    name = min((s for k, s in seconds if k == kernel), key=lambda s: seconds[kernel, s])
    return _strategies(threads)[name]


@functools.lru_cache(maxsize=1)
def _measured_policy() -> ThreadPolicy:
    threads = available_threads()
    seconds = measure(CALIBRATION_SIZE, threads)
    return ThreadPolicy(_fastest(seconds, "sytrd", threads), _fastest(seconds, "products", threads),
                        _fastest(seconds, "gemm", threads).threads, seconds)


@functools.lru_cache(maxsize=1)
def _large_products() -> tuple[int, dict]:
    """``(threads, seconds)``: the faster thread count for a GEMM of :data:`PRODUCTS_SIZE`, and the two timings
    (keyed ``("gemm at PRODUCTS_SIZE", "serial" | "threaded")``)."""
    threads = available_threads()
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((PRODUCTS_SIZE, PRODUCTS_SIZE))
    seconds = {("gemm at PRODUCTS_SIZE", name): _time(lambda: Z.T @ Z.T, "gemm", _strategies(threads)[name])
               for name in ("serial", "threaded")} if threads > 1 else {}
    if not seconds:
        return 1, {}
    fastest = min(seconds, key=seconds.get)[1]
    return _strategies(threads)[fastest].threads, seconds


def policy(size: int) -> ThreadPolicy:
    """The :class:`ThreadPolicy` for reductions of ``size``: measured once per process from :data:`MEASURED_FROM` on.

    ``SYMRMT_REDUCTIONS`` set to one of :data:`STRATEGIES` fixes the strategy at every size.
    """
    forced = os.environ.get("SYMRMT_REDUCTIONS", "").strip().lower()
    if forced in STRATEGIES:
        strategy = _strategies(available_threads())[forced]
        return ThreadPolicy(strategy, strategy, available_threads())
    if size < MEASURED_FROM:
        pair = _strategies(1)["pair"]
        return ThreadPolicy(pair, pair, available_threads())
    measured = _measured_policy()
    if size < PRODUCTS_SIZE:
        return measured
    products, seconds = _large_products()
    return ThreadPolicy(measured.reductions, measured.lanczos, products, {**measured.seconds, **seconds})

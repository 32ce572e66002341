r"""Optional machine-code kernels (Numba), compiled when they pay for themselves.

The solver evaluates generated NumPy code: one NumPy call per operation, over all points at once.
On a 200-point curve most calls see a few points, and the per-call overhead (some 300 operations per
Newton evaluation of an algebraic system) is most of the time. A kernel compiled with Numba runs the
same statements point by point (:mod:`symrmt.codegen.numba_backend`, bit for bit the same results), and the
step logic of an exact system's solve runs as compiled loops (:mod:`symrmt.solve.native_path`, the same decisions,
agreeing to round-off): on the algebraic form they make a curve and a cloud of points several times faster
(``benchmarks/bench_solver.py forms``, docs/performance.md), but compiling them costs about 5.5 s per process for
the kernels and 8 s per system for the loops.

So each is compiled only once the NumPy code it replaces has cost, in this process, about as much as compiling
it (:class:`Budget`, the rule of ski rental: the total time is then at most about twice the best possible).
A single call in a fresh process (``symrmt theory``) never compiles; a notebook or a sweep that
evaluates many grids does so once it has spent that long in that code. Numba is optional
(``pip install "symrmt[fast]"``); without it every function runs as NumPy code. The pointwise kernels
are kept on disk (:mod:`.kernel_cache`, checked by hash before use): a kernel found there costs loading,
not compiling, so its budget is :data:`LOAD_SECONDS`. The compiled step logic (:mod:`symrmt.solve.native_path`)
is compiled in memory only: it takes compiled functions as arguments, which Numba's disk cache does not keep.

``SYMRMT_JIT`` sets the rule for the process: ``auto`` (default; the budget above), ``always``
(compile at first use) or ``never``. :func:`mode` changes it in code (tests, benchmarks).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import threading
import time
from typing import Any, Callable, Iterator

from ..errors import ParameterError

__all__ = ["installed", "available", "current_mode", "mode", "forced", "njit", "njit_lazy", "spent", "Budget", "COMPILE_SECONDS",
           "LOAD_SECONDS", "MODES"]

#: The rules: compile after the NumPy code has cost COMPILE_SECONDS, at first use, or never.
MODES = ("auto", "always", "never")
#: The budget before compiling (ski rental): what compiling the kernels of one system costs (the residuals, the
#: observables, and once per process the elimination of symrmt.solve.batched and the Woodbury form of
#: symrmt.solve.native_woodbury), so that a process never spends more than twice the better of the two choices.
#: The measurement behind the number is in docs/performance.md ("Compile costs and when"). The compiled step logic
#: has a budget of its own (symrmt.solve.native_path).
COMPILE_SECONDS = 5.5
#: The budget of a kernel found in the disk cache: about what importing Numba and loading it costs.
LOAD_SECONDS = 1.0

_forced: list[str] = []


def _numba():
    try:
        import numba  # optional: Numba
    except ImportError:
        return None
    return numba


def current_mode() -> str:
    """The rule in force: the innermost :func:`mode`, else ``SYMRMT_JIT``, else ``auto``."""
    if _forced:
        return _forced[-1]
    value = os.environ.get("SYMRMT_JIT", "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ParameterError(f"SYMRMT_JIT={value!r} is not a rule: set it to one of {', '.join(MODES)} (or unset it)")
    return value


def installed() -> bool:
    """Whether Numba can be imported (checked without importing it: that takes 0.1 s)."""
    return importlib.util.find_spec("numba") is not None


def available() -> bool:
    """Whether kernels may be compiled: Numba is installed and the rule is not ``never``."""
    return current_mode() != "never" and _numba() is not None


def forced() -> bool:
    """Whether the rule is ``always`` (compile at first use)."""
    return current_mode() == "always"


@contextlib.contextmanager
def mode(rule: str) -> Iterator[None]:
    """Use ``rule`` (one of :data:`MODES`) inside the ``with`` block, in this process."""
    if rule not in MODES:
        raise ValueError(f"the JIT rule must be one of {', '.join(MODES)}, not {rule!r}")
    _forced.append(rule)
    try:
        yield
    finally:
        _forced.pop()


def njit(function: Callable, signature: str, cache: bool = False) -> Callable:
    """``function`` compiled now by Numba for ``signature``: without the GIL, IEEE arithmetic as NumPy's (no
    fast-math, so no reordering or fused multiply-adds), and NumPy's error model (1/0 is inf, not an exception).
    ``cache=True``: Numba's disk cache (for a function defined in a file; see :mod:`.kernel_cache`)."""
    return _numba().njit(signature, nogil=True, fastmath=False, error_model="numpy", cache=cache)(function)


def njit_lazy(function: Callable) -> Callable:
    """``function`` as a Numba dispatcher compiled at its first call for the types it gets (for loops that take
    other compiled functions as arguments), with the options of :func:`njit`."""
    return _numba().njit(nogil=True, fastmath=False, error_model="numpy", cache=False)(function)


class _Ledger:
    """Seconds spent in NumPy code that kernels replace, in this process (all kernels together)."""

    seconds = 0.0


def spent() -> float:
    """Seconds this process has spent in NumPy code that a kernel replaces (the budget's measure)."""
    return _Ledger.seconds


class Budget:
    """When to compile a kernel: once the NumPy code that kernels replace has cost ``seconds`` in this process.

    The ledger is the process's, not the kernel's: a system's residuals, its observables and the elimination are
    compiled together, at their next use after the process has spent :data:`COMPILE_SECONDS` in any of them (a
    per-kernel budget left the observables, evaluated once per solve, in NumPy code for minutes). ``seconds``
    other than None gives this kernel a ledger of its own, which its NumPy code alone feeds (the compiled step
    logic of :mod:`symrmt.solve.native_path`, whose compiling costs more than the rest together; the tests).

    ``spend(seconds)`` records a call of the NumPy code; ``native()`` returns the compiled kernel, compiling it
    (once, under a lock) when the rule and the budget say so, or None. A thread that finds another one compiling
    goes on with NumPy. A kernel that fails to compile is never tried again (NumPy is always correct).
    """

    def __init__(self, build: Callable[[], Callable], seconds: float | None = None,
                 on_disk: Callable[[], bool] | None = None) -> None:
        self._build = build
        self._seconds = seconds
        self._on_disk = on_disk                     # whether the kernel can be loaded rather than compiled
        self._spent = 0.0
        self._kernel: Callable | None = None
        self._failed = False
        self.error: Exception | None = None          # why compiling failed, if it did
        self.compile_seconds: float | None = None
        self._lock = threading.Lock()

    def spend(self, seconds: float) -> None:
        self._spent += seconds
        if self._seconds is None:                   # a kernel with a ledger of its own does not feed the process's
            _Ledger.seconds += seconds

    @property
    def ready(self) -> bool:
        """Whether the kernel is compiled (and the rule allows it)."""
        return self._kernel is not None and current_mode() != "never"

    def _paid(self) -> bool:
        if self._seconds is not None:
            return self._spent >= self._seconds
        if _Ledger.seconds >= COMPILE_SECONDS:
            return True
        return _Ledger.seconds >= LOAD_SECONDS and self._on_disk is not None and self._on_disk()

    def compiled(self) -> Callable | None:
        """The compiled kernel now, whatever the budget (for machine code that calls it), or None without Numba or
        where it does not compile."""
        if self._kernel is None and not self._failed and available():
            with self._lock:
                self._compile()
        return self._kernel

    def _compile(self) -> None:
        if self._kernel is None and not self._failed:
            start = time.perf_counter()
            try:
                self._kernel = self._build()
            except Exception as error:  # noqa: BLE001 - an unsupported construct: NumPy stays in use
                self._failed = True
                self.error = error
            self.compile_seconds = time.perf_counter() - start

    def native(self) -> Any:
        if self._kernel is not None:
            return self._kernel if current_mode() != "never" else None
        # the rule and the budget first: available() imports Numba, half a second a short process need not pay
        if self._failed or current_mode() == "never" or not (forced() or self._paid()) or not available():
            return None
        if not self._lock.acquire(blocking=False):
            return None
        try:
            self._compile()
        finally:
            self._lock.release()
        return self._kernel

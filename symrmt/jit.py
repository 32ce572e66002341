r"""Optional machine-code kernels (Numba), compiled when they pay for themselves.

The solver evaluates generated NumPy code: one NumPy call per operation, over all points at once.
On a 200-point curve most calls see a few points, and the per-call overhead (about 0.3 µs per
operation, some 300 operations per Newton evaluation of an algebraic system) is most of the time.
A kernel compiled with Numba evaluates the same expressions point by point, about 50 times faster
there and 20 times faster on 10^4 points (docs/performance.md), but compiling it costs about a
second per system and process.

So a kernel is compiled only once the NumPy code it replaces has cost as much as compiling it
(:class:`Budget`, the rule of ski rental: the total time is then at most twice the best possible).
A single call in a fresh process (``symrmt theory``) never compiles; a notebook or a sweep that
evaluates many grids does so within its first second or two. Numba is optional
(``pip install "symrmt[fast]"``); without it every function runs as NumPy code. Compiled kernels
live in memory only: nothing is written to or read from disk.

``SYMRMT_JIT`` sets the rule for the process: ``auto`` (default; the budget above), ``always``
(compile at first use) or ``never``. :func:`mode` changes it in code (tests, benchmarks).
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Callable, Iterator

from .errors import ParameterError

__all__ = ["installed", "available", "current_mode", "mode", "forced", "njit", "Budget", "COMPILE_SECONDS", "MODES"]

#: The rules: compile after the NumPy code has cost COMPILE_SECONDS, at first use, or never.
MODES = ("auto", "always", "never")
#: What compiling one kernel costs, measured (Numba 0.68, one thread): about 1 s for the residuals of an
#: algebraic attention system (48 outputs), 0.3 s for the elimination. The budget before compiling.
COMPILE_SECONDS = 1.0

_forced: list[str] = []


def _numba():
    try:
        import numba
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
    import importlib.util
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


def njit(function: Callable, signature: str) -> Callable:
    """``function`` compiled now by Numba for ``signature``: without the GIL, IEEE arithmetic as NumPy's (no
    fast-math, so no reordering or fused multiply-adds), and NumPy's error model (1/0 is inf, not an exception)."""
    return _numba().njit(signature, nogil=True, fastmath=False, error_model="numpy", cache=False)(function)


class Budget:
    """When to compile a kernel: after ``seconds`` spent in the code it replaces (:data:`COMPILE_SECONDS`).

    ``spend(seconds)`` records a call of the NumPy code; ``native()`` returns the compiled kernel, compiling it
    (once, under a lock) when the rule and the budget say so, or None. A thread that finds another one compiling
    goes on with NumPy. A kernel that fails to compile is never tried again (NumPy is always correct).
    """

    def __init__(self, build: Callable[[], Callable], seconds: float = COMPILE_SECONDS) -> None:
        self._build = build
        self._seconds = seconds
        self._spent = 0.0
        self._kernel: Callable | None = None
        self._failed = False
        self.error: Exception | None = None          # why compiling failed, if it did
        self.compile_seconds: float | None = None
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        """Seconds recorded in the NumPy code so far."""
        return self._spent

    def spend(self, seconds: float) -> None:
        self._spent += seconds

    def native(self) -> Callable | None:
        if self._kernel is not None:
            return self._kernel if current_mode() != "never" else None
        if self._failed or not available() or not (forced() or self._spent >= self._seconds):
            return None
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if self._kernel is None and not self._failed:
                start = time.perf_counter()
                try:
                    self._kernel = self._build()
                except Exception as error:  # noqa: BLE001 - an unsupported construct: NumPy stays in use
                    self._failed = True
                    self.error = error
                self.compile_seconds = time.perf_counter() - start
        finally:
            self._lock.release()
        return self._kernel

"""Child processes stopped at a wall-clock deadline, for SymPy calls that may not return."""
from __future__ import annotations

import multiprocessing as mp_ctx
import signal
import sys
import time
import warnings
from typing import Callable

import sympy as sp


def process_context():
    """fork on Linux: instant, and unlike spawn/forkserver it does not re-import the user's
    ``__main__`` (a script without a ``__name__`` guard would otherwise recurse). The
    children run only pure-Python SymPy and exit, so the usual fork hazards (locks held
    by other threads, BLAS thread pools) do not apply. Elsewhere: spawn."""
    if sys.platform.startswith("linux"):
        return mp_ctx.get_context("fork")
    return mp_ctx.get_context("spawn")


def _cpu_limited(conn, cpu_seconds: float, target: Callable, *args) -> None:  # pragma: no cover - child process
    """Child process: run ``target(conn, *args)`` and die (SIGPROF) after ``cpu_seconds`` of CPU time.

    The parent stops the child at its wall-clock deadline; this limit (the same seconds, counted in CPU time, which
    cannot run faster than the wall clock) only makes sure a child never outlives a parent that stopped waiting.
    ``ITIMER_PROF`` counts this process's user and system time; its default action terminates the process; timers
    are not inherited by ``fork``, so the child sets its own.
    """
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    target(conn, *args)


def _silenced(conn, target: Callable, *args) -> None:  # pragma: no cover - child process
    """Child process: run ``target(conn, *args)``; an exception inside SymPy only means "no
    result" (the parent then sees the pipe close), so it must not print a traceback."""
    try:
        target(conn, *args)
    except Exception:  # noqa: BLE001 - any failure of a closed-form attempt falls back to the quadrature
        pass


class Job:
    """One SymPy call running in a child process until ``deadline`` (``time.monotonic()`` seconds)."""

    def __init__(self, ctx, key: str, deadline: float, target: Callable, *args):
        self.key, (self.receiver, sender) = key, ctx.Pipe(duplex=False)
        target, args = _silenced, (target, *args)
        if hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF"):
            target, args = _cpu_limited, (max(0.05, deadline - time.monotonic()) + 1.0, target, *args)
        self.proc = ctx.Process(target=target, args=(sender, *args), daemon=True)
        with warnings.catch_warnings():  # Python >= 3.12 warns about fork in a threaded process
            warnings.simplefilter("ignore", DeprecationWarning)
            self.proc.start()
        sender.close()
        self.deadline, self.stopped = deadline, False

    def read(self, found: dict) -> bool:
        """Take what the child sent into ``found``; True when the child has nothing more to say."""
        try:
            value = self.receiver.recv()
        except (EOFError, OSError):
            return True
        if value is None:
            return True
        found[self.key] = value
        return False

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(1.0)
        self.receiver.close()


def run_limited(target: Callable, expr: sp.Expr, deadline: float):
    """``target(conn, expr)`` in a child process; the last thing it sent before ``deadline`` (monotonic s), or None."""
    if time.monotonic() >= deadline:
        return None
    job, found = Job(process_context(), "result", deadline, target, expr), {}
    try:
        while job.receiver.poll(max(0.0, job.deadline - time.monotonic())):
            if job.read(found):
                break
    finally:
        job.stop()
    return found.get("result")

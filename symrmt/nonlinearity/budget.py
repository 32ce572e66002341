"""Child processes with a CPU-time budget, for SymPy calls that may not return."""
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


#: Where the child can limit its own CPU time, the wall-clock deadline is only a safety net
#: of this many budgets (a child starved by other processes still gets its full CPU budget).
WALL_CLOCK_FACTOR = 10.0


def _cpu_limited(conn, cpu_seconds: float, target: Callable, *args) -> None:  # pragma: no cover - child process
    """Child process: run ``target(conn, *args)`` and die (SIGPROF) after ``cpu_seconds`` of CPU time.

    The budget is CPU time, not wall-clock time, so that which closed forms are found does
    not depend on how busy the machine is. ``ITIMER_PROF`` counts this process's user and
    system time; its default action terminates the process; timers are not inherited by
    ``fork``, so the child sets its own.
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
    """One SymPy integral running in a child process with a CPU-time budget (wall clock where unsupported)."""

    def __init__(self, ctx, key: str, timeout: float, target: Callable, *args):
        self.key, (self.receiver, sender) = key, ctx.Pipe(duplex=False)
        cpu_limit = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
        target, args = _silenced, (target, *args)
        if cpu_limit:
            target, args = _cpu_limited, (timeout, target, *args)
        self.proc = ctx.Process(target=target, args=(sender, *args), daemon=True)
        with warnings.catch_warnings():  # Python >= 3.12 warns about fork in a threaded process
            warnings.simplefilter("ignore", DeprecationWarning)
            self.proc.start()
        sender.close()
        self.deadline = time.monotonic() + (WALL_CLOCK_FACTOR * timeout + 1.0 if cpu_limit else timeout)

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
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(1.0)
        self.receiver.close()


def run_limited(target: Callable, expr: sp.Expr, timeout: float):
    """``target(conn, expr)`` in a child process; the last thing it sent within ``timeout`` s, or None."""
    job, found = Job(process_context(), "result", timeout, target, expr), {}
    try:
        while job.receiver.poll(max(0.0, job.deadline - time.monotonic())):
            if job.read(found):
                break
    finally:
        job.stop()
    return found.get("result")


"""Where the tasks run: a pool of local processes, or a Dask cluster.

A back end has ``submit(fn, payload, name)``, ``as_completed(futures)`` and ``close(abort)``;
the runner (:mod:`symrmt.sweep.run`) needs nothing else of it.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from typing import Callable, Iterator, Sequence

from .. import __version__
from ..errors import SymrmtInputError

__all__ = ["LocalBackend", "DaskBackend", "single_threaded_workers"]


def _worker_start(parent: int) -> None:
    """Initializer of a local worker process."""
    # Ctrl-C goes to the whole process group; only the parent should react, then stop the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker holds both ends of the pool's queues, so it never sees EOF when the parent is
    # killed (SIGKILL): without this watch it would wait for tasks forever.
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True, name="symrmt-parent-watch").start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


class LocalBackend:
    """A ProcessPoolExecutor of ``workers`` spawned processes.

    Spawned, not forked: a forked worker would inherit the result file's descriptor and
    hold its lock after the parent is killed, and forking a process with BLAS threads is unsafe.
    """

    def __init__(self, workers: int):
        self.executor = concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_start, initargs=(os.getpid(),))

    def submit(self, fn: Callable, payload: dict, name: str):
        return self.executor.submit(fn, payload)

    def as_completed(self, futures: Sequence) -> Iterator:
        return concurrent.futures.as_completed(futures)

    def close(self, abort: bool) -> None:
        if abort:
            _terminate_workers(self.executor)
        else:
            self.executor.shutdown(wait=True)


def _terminate_workers(executor) -> None:
    """Stop the running tasks now instead of waiting for them (nothing of theirs would be written)."""
    terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    # Before 3.14 the only way to interrupt a running task is the private process table,
    # read before shutdown() drops it.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


class DaskBackend:
    """A ``dask.distributed.Client`` connected to ``address``; the workers must have symrmt installed."""

    def __init__(self, address: str):
        try:
            from distributed import Client  # optional: Dask
        except ImportError:
            raise SymrmtInputError("--scheduler needs Dask distributed: pip install 'symrmt[dask]'.") from None
        try:
            self.client = Client(address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise SymrmtInputError(f"--scheduler {address!r}: cannot connect ({exc}); give the address a Dask "
                                   "scheduler prints, e.g. tcp://127.0.0.1:8786.") from None
        self.futures: list = []
        self._check_workers(address)

    def _check_workers(self, address: str) -> None:
        """Every connected worker must import this symrmt version (a different one would give other numbers)."""
        try:
            versions = self.client.run(_symrmt_version)
        except Exception as exc:  # noqa: BLE001 - whatever the worker raised while importing symrmt
            self.client.close()
            raise SymrmtInputError(f"--scheduler {address}: a worker cannot run symrmt ({type(exc).__name__}: "
                                   f"{exc}); install symrmt {__version__} on every worker.") from None
        wrong = {worker: v for worker, v in versions.items() if v != __version__}
        if wrong:
            self.client.close()
            raise SymrmtInputError(f"--scheduler {address}: workers run other symrmt versions {wrong}; this "
                                   f"client has {__version__}. Install the same version everywhere.")

    def submit(self, fn: Callable, payload: dict, name: str):
        # A deterministic key (spec hash + point): resubmitting a point of the same spec reuses a result the
        # cluster still holds; the spec hash keeps two specs sharing a point (another gamma grid) apart.
        future = self.client.submit(fn, payload, key=f"symrmt-sweep-{name}", pure=False)
        self.futures.append(future)
        return future

    def as_completed(self, futures: Sequence) -> Iterator:
        # not concurrent.futures.as_completed: it does not take Dask futures
        from distributed import as_completed  # optional: Dask

        return as_completed(futures)

    def close(self, abort: bool) -> None:
        if abort:
            self.client.cancel(self.futures)
        self.client.close()


def _symrmt_version() -> str:
    """Run on each Dask worker: the symrmt version it imports."""
    return __version__


@contextlib.contextmanager
def single_threaded_workers() -> Iterator[None]:
    """One BLAS and solver thread per local worker (unless the user set them): ``--workers N`` uses N cores.

    Points are independent, so processes parallelize them better than threads; and
    multithreaded OpenBLAS on a core that another process also uses can be 10-25x
    slower than one thread (measured here at n = 512, see docs/performance.md).
    """
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "SYMRMT_THREADS")
    added = [name for name in names if name not in os.environ]
    os.environ.update({name: "1" for name in added})  # read by the spawned workers at start-up
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)

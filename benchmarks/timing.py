"""The one timing helper of the benchmark scripts."""
from __future__ import annotations

import time
from typing import Callable


def best_of(fn: Callable[[], object], repeat: int = 7, clock: Callable[[], float] = time.perf_counter) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds (the least disturbed by other load).

    ``clock=time.process_time``: CPU seconds of this process (all its threads), which other processes
    on a shared machine inflate far less than wall time; for one thread, about the wall time on an idle
    machine.
    """
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)

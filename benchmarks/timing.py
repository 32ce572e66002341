"""The one timing helper of the benchmark scripts."""
from __future__ import annotations

import time
from typing import Callable


def best_of(fn: Callable[[], object], repeat: int = 7) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)

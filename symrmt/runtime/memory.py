r"""The memory this process really has: the address-space limit, the cgroup's limit and MemAvailable.

A run that does not fit is refused before anything is allocated, by comparing an estimate of its
peak bytes with :func:`available`, the tightest of

* the address-space limit (``ulimit -v``, ``RLIMIT_AS``) less the address space already mapped
  (``VmSize`` of ``/proc/self/status``): every mapping counts against it, also memory never touched;
* the memory cgroup's limit less its usage (v2 ``memory.max`` / ``memory.current``, v1
  ``memory.limit_in_bytes`` / ``memory.usage_in_bytes``), as a container sets it;
* ``MemAvailable`` of ``/proc/meminfo``.

**Threads under an address-space limit.** OpenBLAS gives every thread that calls it a buffer of its
own (32 MiB on x86-64, mapped on the thread's first BLAS call), and its allocator retries a failed
``mmap`` of that buffer forever (``blas_memory_alloc`` loops ``while (map_address == -1)``). A new
thread also maps its stack (8 MiB) and glibc reserves it a malloc arena (64 MiB). So under
``ulimit -v`` a second Python thread that calls BLAS once the address space is nearly used up spins
at 100% CPU without end (at n = 32 under 500 MB: the process maps about 420 MB before the two
reductions of a draw start in two threads, and 104 MB more for the second thread), or fails with
"can't start new thread". :func:`room_for_thread` says whether :data:`THREAD_RESERVE` plus the
arrays the threads will allocate still fit; the simulation runs its work one call after the other
(the same numbers: each call's BLAS threads are unchanged) when they do not. The main thread spins
the same way on its first call into a BLAS it has not used yet (NumPy and SciPy each load their own
OpenBLAS) when the address space is gone, so the refusal of a run that does not fit
(:func:`symrmt.simulation.memory.check_memory`, whose estimate holds a 64 MiB allowance for such
buffers) is the other half of the guard: with either half removed, a child limited to 60 to 100 MiB
above its imports spun or failed to start a thread (tests/hostile/test_resources.py).
"""
from __future__ import annotations

import dataclasses
import os
import re

from ..errors import ParameterError

__all__ = ["THREAD_RESERVE", "Budget", "address_space_limit", "address_space_used", "cgroup_memory", "mem_available",
           "available", "room_for_thread", "check_fits", "describe"]

#: Address space a new thread that calls BLAS maps: its stack (8 MiB), glibc's malloc arena (64 MiB),
#: OpenBLAS's per-thread buffer (32 MiB), and a margin for the Python objects around it.
THREAD_RESERVE = 128 * 2**20

#: Limits at or above this many bytes mean "no limit" (cgroup v1 writes 2**63 rounded down to a page).
_UNLIMITED = 2**60

_GIB = 2.0**30


@dataclasses.dataclass(frozen=True)
class Budget:
    """Bytes a process may still allocate, and which limit says so, to follow "available" in a message
    (``"under ulimit -v (RLIMIT_AS)"``, ``"under the cgroup's memory limit"`` or ``"by MemAvailable"``)."""

    bytes: int
    source: str


def address_space_limit() -> int | None:
    """The soft ``RLIMIT_AS`` in bytes, or None when there is none (or the platform has no such limit)."""
    try:
        import resource  # optional: resource, POSIX only
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, AttributeError, OSError, ValueError):  # pragma: no cover - platforms without RLIMIT_AS
        return None
    return None if soft == resource.RLIM_INFINITY or soft >= _UNLIMITED else int(soft)


def address_space_used() -> int | None:
    """Bytes of address space this process maps now (``VmSize``), or None where ``/proc`` does not say."""
    try:
        with open("/proc/self/status") as status:
            match = re.search(r"^VmSize:\s+(\d+)\s*kB", status.read(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def _read_number(path: str) -> int | None:
    try:
        with open(path) as file:
            text = file.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _cgroup_folders() -> list[tuple[str, str, str]]:
    """``(folder, limit file, usage file)`` of this process's memory cgroup, v2 then v1, own cgroup then root."""
    own = {"v2": "", "v1": ""}
    try:
        with open("/proc/self/cgroup") as cgroups:
            for line in cgroups:
                hierarchy, controllers, path = line.rstrip("\n").split(":", 2)
                if hierarchy == "0" and controllers == "":
                    own["v2"] = path
                elif "memory" in controllers.split(","):
                    own["v1"] = path
    except (OSError, ValueError):
        pass
    folders = []
    for path in dict.fromkeys([own["v2"], "/"]):
        folders.append((f"/sys/fs/cgroup{path}", "memory.max", "memory.current"))
    for path in dict.fromkeys([own["v1"], "/"]):
        folders.append((f"/sys/fs/cgroup/memory{path}", "memory.limit_in_bytes", "memory.usage_in_bytes"))
    return folders


def cgroup_memory() -> tuple[int, int] | None:
    """``(limit, usage)`` in bytes of the tightest memory cgroup limit that applies, or None when there is none."""
    best = None
    for folder, limit_file, usage_file in _cgroup_folders():
        limit = _read_number(os.path.join(folder, limit_file))    # "max" (v2, no limit) reads as None
        if limit is None or limit >= _UNLIMITED:
            continue
        usage = _read_number(os.path.join(folder, usage_file)) or 0
        if best is None or limit - usage < best[0] - best[1]:
            best = (limit, usage)
    return best


def mem_available() -> int | None:
    """MemAvailable of /proc/meminfo (bytes), else the free physical pages; None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - platforms without sysconf
        return None


def available() -> Budget | None:
    """The tightest of the three budgets of the module docstring, or None when none is known."""
    budgets = []
    limit, used = address_space_limit(), address_space_used()
    if limit is not None:
        budgets.append(Budget(max(0, limit - (used or 0)), "under ulimit -v (RLIMIT_AS)"))
    group = cgroup_memory()
    if group is not None:
        budgets.append(Budget(max(0, group[0] - group[1]), "under the cgroup's memory limit"))
    free = mem_available()
    if free is not None:
        budgets.append(Budget(free, "by MemAvailable"))
    return min(budgets, key=lambda budget: budget.bytes) if budgets else None


def room_for_thread(extra: float = 0.0) -> bool:
    """Whether one more thread that calls BLAS, and ``extra`` bytes of arrays, fit in the address-space limit.

    True when there is no such limit (a failed allocation is then a clean ``MemoryError``, never a spin).
    """
    limit = address_space_limit()
    if limit is None:
        return True
    used = address_space_used()
    return used is not None and limit - used >= THREAD_RESERVE + extra


def describe(nbytes: float) -> str:
    """A byte count for a message: ``'1.5 GiB'``, ``'230 MiB'``, ``'74.5 TiB'``.

    >>> describe(1.5 * 2**30), describe(230 * 2**20), describe(8.192e13)
    ('1.5 GiB', '230 MiB', '74.5 TiB')
    """
    for unit, size in (("TiB", 2.0**40), ("GiB", 2.0**30)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes / 2**20:.3g} MiB"


def check_fits(need: float, what: str, fix: str) -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) ``what`` when its ``need`` bytes exceed :func:`available`.

    The message gives both figures and the limit that binds, then ``fix``.
    """
    budget = available()
    if budget is not None and need > budget.bytes:
        raise ParameterError(f"{what} needs about {describe(need)} but only {describe(budget.bytes)} are available "
                             f"{budget.source}. {fix}")

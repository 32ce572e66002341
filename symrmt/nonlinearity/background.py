r"""SymPy's search for closed forms after the answer: a detached, niced process that writes them into the cache.

A new f's first answer takes the verified quadrature (milliseconds for a smooth f) and the closed forms that need
no integration (Gaussian moments, the table, parity); SymPy's integration of the rest can take seconds to minutes.
So that it never holds the answer up, :func:`hermite` answers at once and :func:`start` runs the search in another
process:

- detached: its own session (``setsid``, so a terminal's Ctrl-C or hang-up does not reach it), started through
  ``/bin/sh ... &`` so that the caller reaps the shell at once and leaves no zombie; niced by :data:`NICE`;
- bounded: SymPy's children stop at :data:`BUDGET` wall-clock seconds (the deadline of
  :mod:`.closed_forms`), and the process kills itself (``SIGALRM``) after :data:`HARD_LIMIT` whatever happens;
- one at a time per entry: an exclusive ``flock`` on ``.<entry>.lock`` in the cache folder (a second search for
  the same f, in any process, exits at once), and at most :data:`SLOTS` searches at once in a cache folder
  (``.search-slot-K.lock``: a loop over many new f's does not start as many processes; an f that found no slot
  is searched by a later call);
- writing only through the caches' own writers (:func:`.cache.store`, :func:`.parametric_cache.store`: checked
  JSON, written atomically, so that a reader sees the old entry or the new one, never a part), and never an entry
  with fewer closed forms than the one on disk.

The next call reads the entry (checked as any entry is) and prints the exact data. The search is off (and the
foreground waits :data:`FALLBACK_WAIT` seconds for SymPy instead, as before) where it cannot write its result: the
cache off, a platform without ``fork``/``flock``, or ``SYMRMT_BACKGROUND_SEARCH=0`` (the test suite sets it).

The process runs ``python -m symrmt.nonlinearity.background REQUEST``, REQUEST a JSON object: ``kind``
(``"hermite"`` or ``"parametric"``), ``f`` (its ``srepr``, read back by the closed grammar of :mod:`.serial`, never
evaluated), ``center`` and ``names`` or ``timeout`` (the request of the entry to write), and ``budget``.
"""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
from typing import Iterator

import sympy as sp

from ..errors import shortened
from . import cache, parametric_cache
from .coefficients import hermite_compute
from .constants import KEYS, X
from .parametric import closed_forms_at_probes
from .serial import from_srepr, to_srepr

__all__ = ["BUDGET", "COMPLETE", "FALLBACK_WAIT", "ENVIRONMENT", "available", "foreground_wait", "start"]

#: Wall-clock seconds SymPy's search gets in the background (all of f's data together).
BUDGET = 60.0
#: The background process ends itself after this many seconds, whatever it is doing.
HARD_LIMIT = 2 * BUDGET + 60
#: The most searches that run at once (per cache folder).
SLOTS = 2
#: Its niceness: the search yields the CPU to whatever the user runs next.
NICE = 10
#: Seconds the foreground waits for SymPy when no background search can run (no cache to write to, or switched off).
FALLBACK_WAIT = 1.0
#: The ``searched`` of an entry that left nothing for SymPy to find (no later call searches again).
COMPLETE = 600.0
#: The environment variable that switches the background search off (``0``).
ENVIRONMENT = "SYMRMT_BACKGROUND_SEARCH"

#: The shell line that forks the search (niced before Python starts, where ``nice`` exists) and exits.
_SHELL = ('n=$1; shift; if command -v nice >/dev/null 2>&1; then nice -n "$n" "$@"; else "$@"; fi '
          '</dev/null >/dev/null 2>&1 &')
_ROOT = pathlib.Path(__file__).resolve().parents[2]      # the folder that holds the package: the child's sys.path
_announced: set[str] = set()


def available() -> bool:
    """Whether a background search can run and write what it finds (see the module docstring)."""
    if os.environ.get(ENVIRONMENT, "1").strip() == "0" or not sys.executable:
        return False
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return False
    return cache._usable_folder() is not None


def foreground_wait(timeout: float | None) -> float:
    """The seconds the caller waits for SymPy: ``timeout`` when given; by default none when the search can go on in
    the background (:func:`available`), else :data:`FALLBACK_WAIT`."""
    if timeout is not None:
        return float(timeout)
    return 0.0 if available() else FALLBACK_WAIT


def start(kind: str, expr: sp.Expr, entry: pathlib.Path, request: dict) -> bool:
    """Start the background search that will write ``entry`` (unless one runs already) and say so once on stderr.

    ``request`` holds ``center`` (kind ``"hermite"``) or ``names`` and ``timeout`` (``"parametric"``). Returns
    whether a search runs now. Nothing is started where :func:`available` is false."""
    if not available():
        return False
    lock = _lock_path(entry)
    running = False
    with contextlib.suppress(OSError):
        with _locked(lock) as free:
            running = not free
    if not running and not _slot_free(entry.parent):
        return False                                    # SLOTS searches run: a later call starts this one
    if not running:
        payload = json.dumps({"kind": kind, "f": to_srepr(expr), "budget": BUDGET, **request})
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))}
        try:
            shell = subprocess.Popen(
                ["/bin/sh", "-c", _SHELL, "sh", str(NICE), sys.executable, "-m", __name__, payload],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                start_new_session=True, close_fds=True)
            shell.wait()                   # the shell exits as soon as the search is forked: nothing left to reap
        except OSError:
            return False
    key = str(entry)
    if key not in _announced:
        _announced.add(key)
        print(f"symrmt: closed forms for f = {shortened(str(expr), 60)} are being searched in the background (at "
              f"most {BUDGET:g} s); a later call prints them", file=sys.stderr, flush=True)
    return True


def _lock_path(entry: pathlib.Path) -> pathlib.Path:
    return entry.with_name(f".{entry.stem}.lock")


@contextlib.contextmanager
def _locked(path: pathlib.Path) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path`` for the block if it is free: yields whether it was."""
    import fcntl  # optional: POSIX

    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(descriptor)           # closing releases the lock


def _slot_paths(folder: pathlib.Path) -> list[pathlib.Path]:
    return [folder / f".search-slot-{k}.lock" for k in range(SLOTS)]


def _slot_free(folder: pathlib.Path) -> bool:
    for path in _slot_paths(folder):
        with contextlib.suppress(OSError), _locked(path) as free:
            if free:
                return True
    return False


@contextlib.contextmanager
def _slot(folder: pathlib.Path) -> Iterator[bool]:
    """Hold one of the :data:`SLOTS` for the block if one is free: yields whether one was."""
    with contextlib.ExitStack() as stack:
        for path in _slot_paths(folder):
            if stack.enter_context(_locked(path)):
                yield True
                return
            stack.close()
        yield False


def _numeric_count(sources) -> int:
    return sum(source == "numeric" for source in sources)


def _search_hermite(request: dict) -> None:
    expr, center, budget = from_srepr(request["f"]), bool(request["center"]), float(request["budget"])
    pending: set[str] = set()
    fc, values, centered_by, shift = hermite_compute(expr, center, "auto", budget, pending=pending)
    old = cache.load(expr, center, "auto")
    if old is not None and _numeric_count(s for _, _, s in old[0].values()) < \
            _numeric_count(s for _, _, s in values.values()):
        return                                          # the entry on disk knows more (a longer foreground search)
    cache.store(expr, center, "auto", (values, shift, centered_by), searched=budget if pending else COMPLETE)


def _search_parametric(request: dict) -> None:
    expr, names, budget = from_srepr(request["f"]), list(request["names"]), float(request["budget"])
    timeout = request["timeout"]
    symbols = tuple(sorted(expr.free_symbols - {X}, key=lambda s: names.index(s.name)))
    pending: set[str] = set()
    exact, source = closed_forms_at_probes(expr, symbols, "auto", budget, pending)
    old = parametric_cache.load(expr, symbols, "auto", timeout)
    if old is not None and _numeric_count(old[1][k] for k in KEYS) < _numeric_count(source[k] for k in KEYS):
        return
    parametric_cache.store(expr, "auto", timeout, exact, source, searched=budget if pending else COMPLETE)


def main(argv: list[str]) -> int:  # pragma: no cover - runs in the detached process (tests/nonlinearity/test_background.py)
    """The background process: the search of ``argv[0]`` (see the module docstring), under its lock."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    request = json.loads(argv[0])
    signal.alarm(int(HARD_LIMIT))
    expr = from_srepr(request["f"])
    if request["kind"] == "hermite":
        entry = cache.entry_path(expr, bool(request["center"]), "auto")
    else:
        entry = parametric_cache.entry_path(expr, "auto", request["timeout"])
    if entry is None:
        return 0
    with _locked(_lock_path(entry)) as free, _slot(entry.parent) as slot:
        if free and slot:
            (_search_hermite if request["kind"] == "hermite" else _search_parametric)(request)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))

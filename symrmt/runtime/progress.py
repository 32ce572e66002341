"""Progress on stderr, the same everywhere: only on a terminal, and only for what lasts.

Progress bars (tqdm) appear after 2 s; a command that works for over a second without one says what it is doing
(:func:`notice_after`, naming the innermost :func:`activity`). Logs and pipes stay clean (nothing when stderr is
not a terminal), and short runs show nothing at all.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import Iterable, Iterator

from .. import validate

__all__ = ["progress_bar", "activity", "notice_after", "NOTICE_DELAY"]

#: Seconds before a bar appears: a run shorter than this shows none.
DELAY = 2.0
#: Seconds before a command that is still working says so (:func:`notice_after`).
NOTICE_DELAY = 1.0

#: What the process is doing now, innermost last (:func:`activity`), for the notice.
_activities: list[str] = []


def progress_bar(items: Iterable | None = None, *, desc: str, unit: str = "it", total: int | None = None,
                 initial: int = 0, enabled: bool = True):
    """``items`` under a tqdm bar (or a bar to ``update`` by hand when ``items`` is None).

    Returns ``items`` itself when the bar is off (``enabled`` false or stderr not a terminal)
    and ``items`` is given; otherwise a ``tqdm`` object (disabled when off).
    """
    shown = validate.boolean("progress", enabled) and sys.stderr.isatty()
    if not shown and items is not None:
        return items
    from tqdm import tqdm  # heavy: tqdm, only a bar needs it

    return tqdm(items, desc=desc, unit=unit, total=total, initial=initial, delay=DELAY, file=sys.stderr,
                leave=False, dynamic_ncols=True, disable=not shown)


@contextlib.contextmanager
def activity(text: str) -> Iterator[None]:
    """Name what the block does (``"the Hermite data of f = ..."``), for a :func:`notice_after` that fires in it."""
    _activities.append(text)
    try:
        yield
    finally:
        _activities.pop()


@contextlib.contextmanager
def notice_after(prefix: str, seconds: float = NOTICE_DELAY, enabled: bool = True) -> Iterator[None]:
    """One line on stderr if the block still runs after ``seconds``: ``"<prefix>: working on <activity> ..."``.

    Only when stderr is a terminal (as the bars); the line names the innermost :func:`activity` at that moment
    (or just says ``working``), so that a first call for a new f is never silent.
    """
    if not (enabled and sys.stderr.isatty()):
        yield
        return

    def say() -> None:
        doing = f"working on {_activities[-1]}" if _activities else "working"
        print(f"{prefix}: {doing} ...", file=sys.stderr, flush=True)

    timer = threading.Timer(seconds, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()

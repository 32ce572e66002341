"""Progress bars on stderr (tqdm), the same everywhere: only on a terminal, and only after 2 s.

Logs and pipes stay clean (no bar when stderr is not a terminal), and short runs show no
bar at all (tqdm's ``delay``).
"""
from __future__ import annotations

import sys
from typing import Iterable

from .. import validate

__all__ = ["progress_bar"]

#: Seconds before a bar appears: a run shorter than this shows none.
DELAY = 2.0


def progress_bar(items: Iterable | None = None, *, desc: str, unit: str = "it", total: int | None = None,
                 initial: int = 0, enabled: bool = True):
    """``items`` under a tqdm bar (or a bar to ``update`` by hand when ``items`` is None).

    Returns ``items`` itself when the bar is off (``enabled`` false or stderr not a terminal)
    and ``items`` is given; otherwise a ``tqdm`` object (disabled when off).
    """
    shown = validate.boolean("progress", enabled) and sys.stderr.isatty()
    if not shown and items is not None:
        return items
    from tqdm import tqdm  # lazy: only a bar needs it

    return tqdm(items, desc=desc, unit=unit, total=total, initial=initial, delay=DELAY, file=sys.stderr,
                leave=False, dynamic_ncols=True, disable=not shown)

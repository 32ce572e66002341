"""Where symrmt keeps what it caches on disk: one rule for every cache (Hermite data, compiled kernels)."""
from __future__ import annotations

import os
import pathlib

__all__ = ["cache_root"]


def cache_root() -> pathlib.Path | None:
    """The root folder of symrmt's disk caches, or None when caching on disk is off.

    ``$SYMRMT_CACHE_DIR`` (``off`` or empty: None), else ``$XDG_CACHE_HOME/symrmt``
    (an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says), else
    ``~/.cache/symrmt``; ``~`` is expanded. Each cache uses a folder of its own under it.
    """
    explicit = os.environ.get("SYMRMT_CACHE_DIR")
    if explicit is not None:
        explicit = explicit.strip()
        if not explicit or explicit.lower() == "off":
            return None
        return pathlib.Path(os.path.expanduser(explicit))
    xdg = os.path.expanduser(os.environ.get("XDG_CACHE_HOME", "").strip())
    return pathlib.Path(xdg) / "symrmt" if os.path.isabs(xdg) else pathlib.Path.home() / ".cache" / "symrmt"

"""Output paths checked before any computation, so that a long run never ends on an unwritable file."""
from __future__ import annotations

import os
import pathlib

from ..errors import SymrmtInputError

__all__ = ["check_plot_path"]


def check_plot_path(path: str) -> None:
    """Refuse, before any computation, a plot file that cannot be written."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.use("Agg")
    target = pathlib.Path(path).expanduser()
    formats = Figure().canvas.get_supported_filetypes()
    extension = target.suffix.lower().lstrip(".")
    if target.is_dir() or path.endswith(("/", os.sep)):
        raise SymrmtInputError(f"--plot {path!r}: is a folder; give a file name such as {str(target / 'compare.png')!r}.")
    if extension not in formats:
        raise SymrmtInputError(f"--plot {path!r}: unknown extension {target.suffix!r}; use one of "
                               f"{', '.join('.' + f for f in sorted(formats))}.")
    parent = target.parent
    if not parent.is_dir():
        raise SymrmtInputError(f"--plot {path!r}: the folder {str(parent)!r} does not exist; create it first.")
    if not os.access(parent, os.W_OK):
        raise SymrmtInputError(f"--plot {path!r}: the folder {str(parent)!r} is not writable.")

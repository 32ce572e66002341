"""Output paths checked before any computation, so that a long run never ends on a file it cannot write.

A path is refused, with one line naming the flag and the fix, when its name is one the system
does not allow (a component over ``NAME_MAX`` bytes, a path over ``PATH_MAX``), when it lies in a
virtual file system of the kernel (``/proc``, ``/sys``), when it names a folder (or, for a folder,
a file), when an existing target is not a regular file or not writable, or when the folder that
would receive it does not exist or is not writable. Symbolic links are followed, as ``open`` does.
Nothing is created by a check. An output that is one of the command's inputs, or another of its
outputs, is refused by :func:`symrmt.runtime.files.check_not_an_input` and
:func:`~symrmt.runtime.files.check_outputs` (by identity, not by name).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..errors import SymrmtInputError

__all__ = ["PLOT_FORMATS", "check_output_file", "check_output_folder"]

#: Extensions of ``--plot`` files (matplotlib picks the format from the extension).
PLOT_FORMATS = ("png", "pdf", "svg")

_VIRTUAL = ("/proc", "/sys")          # kernel interfaces: "files" there are settings, never results
_NAME_MAX, _PATH_MAX = 255, 4096      # POSIX defaults, used where pathconf cannot tell


def check_output_file(path: str, flag: str, formats: Sequence[str] | None = None) -> None:
    """Refuse a file ``path`` given with ``flag`` that could not be written (see the module docstring).

    ``formats``: the accepted extensions (lower case, no dot), or None for any name.

    >>> check_output_file("/proc/figure.png", "--plot", PLOT_FORMATS)
    Traceback (most recent call last):
    ...
    symrmt.errors.SymrmtInputError: --plot '/proc/figure.png': is under /proc, ...
    """
    _check_name(path, flag)
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        example = os.path.join(path, "out." + (formats[0] if formats else "txt"))
        raise SymrmtInputError(f"{flag} {path!r}: is a folder; give a file name such as {example!r}.")
    extension = os.path.splitext(path)[1]
    if formats is not None and extension.lower().lstrip(".") not in formats:
        raise SymrmtInputError(f"{flag} {path!r}: the extension {extension or '(none)'!r} is not supported; "
                               f"use one of {', '.join('.' + f for f in formats)}.")
    target = Path(os.path.realpath(path))
    if os.path.lexists(target):
        if not target.is_file():
            raise SymrmtInputError(f"{flag} {path!r}: exists and is not a regular file; give a file name.")
        if not os.access(target, os.W_OK):
            raise SymrmtInputError(f"{flag} {path!r}: the file exists and is not writable.")
        return
    _check_folder_writable(target.parent, path, flag)


def check_output_folder(path: str, flag: str) -> None:
    """Refuse a folder ``path`` that could not be created (with its parents) or written into."""
    _check_name(path, flag)
    target = Path(os.path.realpath(path))
    if os.path.lexists(target) and not target.is_dir():
        raise SymrmtInputError(f"{flag} {path!r}: is a file, not a folder; give a folder name.")
    existing = target
    while not os.path.lexists(existing):            # the part that exists; the rest is created
        existing = existing.parent
    if not existing.is_dir():
        raise SymrmtInputError(f"{flag} {path!r}: {str(existing)!r} is a file, so the folder cannot be created.")
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "the folder" if existing == target else "cannot create it: the folder"
        raise SymrmtInputError(f"{flag} {path!r}: {what} {str(existing)!r} is not writable.")


def _check_name(path: str, flag: str) -> None:
    """A non-empty name the system allows, outside the kernel's virtual file systems."""
    if not path.strip():
        raise SymrmtInputError(f"{flag} {path!r}: give a file or folder name.")
    if path == "-":                          # a Unix tool's name for stdout: here it would be a file named '-'
        raise SymrmtInputError(f"{flag} '-': the output is a file, not standard output; give a file name "
                               "(./- for a file named '-').")
    absolute = os.path.abspath(path)
    name_max, path_max = _limits(absolute)
    too_long = [part for part in Path(absolute).parts if len(os.fsencode(part)) > name_max]
    if too_long:
        raise SymrmtInputError(f"{flag}: the name {too_long[0][:40] + '...'!r} is {len(os.fsencode(too_long[0]))} "
                               f"bytes long; the system allows at most {name_max}.")
    if len(os.fsencode(absolute)) >= path_max:
        raise SymrmtInputError(f"{flag}: the path is {len(os.fsencode(absolute))} bytes long; the system allows "
                               f"at most {path_max - 1}.")
    real = os.path.realpath(absolute)
    for root in _VIRTUAL:
        if real == root or real.startswith(root + "/"):
            raise SymrmtInputError(f"{flag} {path!r}: is under {root}, a virtual file system of the kernel; "
                                   "write to a folder on a disk.")


def _limits(absolute: str) -> tuple[int, int]:
    """``(NAME_MAX, PATH_MAX)`` of the file system holding the part of ``absolute`` that exists."""
    existing = absolute
    while not os.path.isdir(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    try:
        return os.pathconf(existing, "PC_NAME_MAX"), os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows) or no answer: the POSIX defaults
        return _NAME_MAX, _PATH_MAX


def _check_folder_writable(folder: Path, path: str, flag: str) -> None:
    if not folder.is_dir():
        reason = "is not a folder" if os.path.lexists(folder) else "does not exist; create it first"
        raise SymrmtInputError(f"{flag} {path!r}: the folder {str(folder)!r} {reason}.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SymrmtInputError(f"{flag} {path!r}: the folder {str(folder)!r} is not writable.")

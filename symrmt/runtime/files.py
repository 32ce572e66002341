"""The one way the package writes a file: atomically, and never onto one of the command's own inputs.

:func:`write_atomically` writes to a temporary file in the same folder, flushes it to disk, then renames it
over the target (``os.replace``, atomic on POSIX and Windows): a write that fails (a full disk, a file-size
limit, a kill) leaves the old file as it was, or no file, never half of one. :func:`check_not_an_input`
compares files by identity (``os.path.samefile``), so a symbolic or hard link or ``sub/..`` is caught too.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Callable, Iterable

from ..errors import SymrmtInputError

__all__ = ["write_atomically", "write_text_atomically", "check_not_an_input"]


def write_atomically(path: str | os.PathLike, write: Callable[[IO], None], binary: bool = False,
                     encoding: str = "utf-8") -> Path:
    """Call ``write(stream)`` on a temporary file beside ``path``, then put it in place of ``path`` at once.

    The temporary file gets the target's permissions when the target exists (else the user's default);
    on any failure it is removed and the exception propagates, the target untouched.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb" if binary else "w", **({} if binary else {"encoding": encoding,
                                                                                  "newline": ""})) as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        _copy_mode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


def write_text_atomically(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """:func:`write_atomically` of one string."""
    return write_atomically(path, lambda stream: stream.write(text), encoding=encoding)


def check_not_an_input(path: str | os.PathLike, flag: str, inputs: Iterable[tuple[str | os.PathLike, str]]) -> None:
    """Refuse an output ``path`` that is the same file as one of ``inputs`` (``(path, flag)`` pairs), by identity."""
    for other, other_flag in inputs:
        with contextlib.suppress(OSError):
            if os.path.samefile(path, other):
                raise SymrmtInputError(f"{flag} {str(path)!r} is the file given to {other_flag}: writing it would "
                                       "replace that input; choose another name.")


def _copy_mode(target: Path, temporary: str) -> None:
    """Keep the permissions of a file being replaced; a new file gets the default a plain open would give."""
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)

"""What the command line writes: the JSON text, one-line messages and warnings, table cells, stdout's fate.

Standard output is flushed before the exit status is decided, so that a reader that went away
(``| head``) or a full device (``> /dev/full``) is seen by :func:`symrmt.cli.main`, not by the
interpreter's last flush after it returned.
"""
from __future__ import annotations

import codecs
import errno
import json
import os
import sys

import numpy as np

from ..errors import printable, shortened, shown

#: What a write to an already open file can fail with: a full device or quota, a file too large, an I/O error.
_WRITE_ERRORS = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)}

#: The longest message the command line prints on one line (after its ``symrmt CMD: error:`` prefix): the last
#: guard behind :func:`symrmt.errors.shown`, which already keeps each quoted user value short.
MESSAGE_WIDTH = 360

__all__ = ["MESSAGE_WIDTH", "THEORY_JSON", "json_text", "one_line", "show_warning", "cell", "flush_stdout", "stdout_failed",
           "discard_stdout", "environment_line"]


#: The stable JSON contract of ``symrmt theory --json``: each shape it prints, as (the keys always there, the keys
#: there in some cases). The README's "JSON contract" lists the same keys (tests/cli/test_json_contract.py holds
#: both to the output); a change here is a change of the contract.
THEORY_JSON: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # one value of c, d and the geometry, and one value per --param (or none): curves over gamma
    "curves": (frozenset({"gamma", "attention", "linear", "a1", "nu", "failed"}),
               frozenset({"params", "f", "temperature"})),          # params: with --param; f, temperature: softmax
    # a grid of some --param: one axis per parameter, gamma last
    "parameter grid": (frozenset({"gamma", "params", "attention", "linear", "a1", "nu", "failed"}), frozenset()),
    # a list or grid of --c, --diag or a geometry flag: one row per point
    "points": (frozenset({"f", "columns", "points", "failed"}), frozenset()),
    # --weights FILE: the general-M theory of a real model's head
    "weights": (frozenset({"weights", "layer", "head", "p", "c", "f", "signal", "mu_norm", "weights_scale", "sigma",
                           "gamma", "attention", "linear", "failed"}), frozenset()),
}


def json_text(out: dict) -> str:
    """The ``--json`` document: indented, and never NaN or inf (``allow_nan=False`` raises instead)."""
    return json.dumps(out, indent=2, allow_nan=False)


def one_line(exc: BaseException | str) -> str:
    """An exception's message with its line breaks and runs of blanks folded into single spaces, and at most
    :data:`MESSAGE_WIDTH` characters (a longer one is cut in the middle, :func:`symrmt.errors.shortened`), its
    control characters escaped (:func:`symrmt.errors.printable`: a value quoted in it cannot drive the terminal)."""
    return shortened(printable(" ".join(str(exc).split())), MESSAGE_WIDTH)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Replacement of :func:`warnings.showwarning`: ``symrmt: warning: <one line>`` on stderr.

    A message that names the package itself (``symrmt: ...``, so that it reads well from Python) loses that
    prefix here, which would otherwise be printed twice.
    """
    text = one_line(message)
    print(f"symrmt: warning: {text.removeprefix('symrmt: ')}", file=sys.stderr)


def cell(value: float | None, width: int) -> str:
    """A table cell of ``width`` with 5 decimals, or ``-`` for a missing or non-finite value."""
    return f"{value:{width}.5f}" if value is not None and np.isfinite(value) else f"{'-':>{width}}"


def flush_stdout() -> None:
    """Write out what is buffered for stdout; raises the OSError of a closed pipe or a full device."""
    if sys.stdout is not None:
        sys.stdout.flush()


def stdout_failed() -> bool:
    """Whether stdout can no longer be written (a flush fails)."""
    try:
        flush_stdout()
    except (OSError, ValueError):            # ValueError: flush of a closed file
        return True
    return False


def discard_stdout() -> None:
    """Send what stdout still buffers to the null device, so that the interpreter's final flush cannot fail.

    This is the ``BrokenPipeError`` recipe of the Python documentation (signal module); where stdout
    has no file descriptor (captured by a test), nothing is done.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def environment_line(exc: OSError | MemoryError | UnicodeEncodeError) -> str:
    """One line for a limit of the system rather than a bug of symrmt; stdout is silenced if it cannot be written.

    >>> environment_line(PermissionError(13, "Permission denied", "out/plot.png"))
    "Permission denied: 'out/plot.png'."
    """
    if isinstance(exc, MemoryError):
        return "out of memory; use smaller sizes (--n, --seeds, fewer grid points)."
    if isinstance(exc, UnicodeEncodeError):
        line = f"cannot write {shown(exc.object[exc.start:exc.end])} in the encoding {exc.encoding}"
        hint = "" if codecs.lookup(exc.encoding).name == "utf-8" else "; run with PYTHONUTF8=1 (or use --json)"
        return line + hint + "."
    if stdout_failed():                      # keep the interpreter's last flush from failing again
        discard_stdout()
    reason = exc.strerror or one_line(exc)
    if exc.filename is not None:
        return f"{reason}: {shown(os.fsdecode(exc.filename))}."
    if exc.errno in _WRITE_ERRORS:           # a write to an open file: stdout, a plot, a CSV
        return f"cannot write the output: {reason}."
    return reason + "."

"""The ``symrmt`` command line: parses arguments, calls the library, prints tables or JSON.

Commands: ``hermite``, ``theory``, ``simulate``, ``compare``, ``converge``, ``latex``, ``spectrum``, ``heads``,
``demo``, ``figure``, ``sweep``, ``weights``, ``check``. Every command takes ``--json``; the JSON shapes are a
stable contract documented in the README (and never hold NaN or inf). Exit statuses: 0 done, 2 bad input or an
output that cannot be written (one line naming the problem), 3 a solver that did not
converge at any point (or at some point, with ``--strict``; otherwise the points it could
not solve are listed under ``failed``, :mod:`.failures`), 130 interrupted, 141 the reader of stdout went away (as a Unix tool killed by
SIGPIPE), 1 a bug, or for ``symrmt check`` a property that failed; ``--debug`` shows the traceback.

The package is a thin dispatcher: :mod:`.parser` builds the parser from one module per command
group in :mod:`.commands`, which share the flag groups of :mod:`.arguments` and the parsers of
:mod:`.values`; :mod:`.output` writes JSON and messages.
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import sys
import traceback
import warnings
from typing import Sequence

import numpy as np

from ..errors import ConvergenceError, SymrmtInputError, shortened
from ..runtime.progress import notice_after
from .arguments import check_finite_numbers, hermite_flags
from .commands import COMMANDS
from .output import discard_stdout, environment_line, flush_stdout, json_text, one_line, show_warning
from .parser import build_parser, parse_arguments

__all__ = ["main", "build_parser", "COMMANDS", "EXIT_STATUS"]

#: The status of a Unix tool killed by SIGPIPE, returned when the reader of stdout went away.
BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)

#: Every exit status of the command line, stated once: the README's "Exit codes" lists exactly these
#: (tests/cli/test_main.py). 1 is Python's own status for an uncaught exception, so it means a bug wherever it
#: comes from; ``symrmt check`` reports a failing property with its own status.
EXIT_STATUS = {
    0: "success",
    1: "a bug (an unexpected exception)",
    2: "bad input, an output that cannot be written, or another I/O error",
    3: "valid input the solver could not solve",
    4: "symrmt check: a property of the theory failed",
    120: "stdout could not be written at the end",
    130: "interrupted",
    BROKEN_PIPE: "the reader of the output went away",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``symrmt`` console script; returns the exit status.

    Exit statuses (:data:`EXIT_STATUS`): 0 done; 2 bad input (any :class:`~symrmt.errors.SymrmtInputError`, and
    argparse's refusals) or an output that cannot be written (an ``OSError`` such as a full
    device, out of memory, an encoding stdout cannot show); 3 valid input that did not converge
    (:class:`~symrmt.errors.ConvergenceError`: every point of the curves failed, or some did
    with ``--strict``); 4 ``symrmt check`` found a property that fails; 130 interrupted (Ctrl-C); 141
    (128 + SIGPIPE, as a Unix tool killed by the signal) when the reader of stdout went away, without a message;
    1 a bug. Every failure is one line on stderr; ``--debug`` adds the traceback. Floating-point
    warnings of NumPy (from generated code) are not shown: results are checked for non-finite
    values instead.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``symrmt`` (default ``sys.argv[1:]``), e.g. ``["theory", "--f", "tanh(x)", "--c", "1",
        "--gamma", "0.1"]``.

    Returns
    -------
    int
        The exit status above.

    Raises
    ------
    Nothing
        Every failure becomes an exit status and one line on stderr.

    See Also
    --------
    build_parser : The parser of every command.

    Examples
    --------
    >>> import contextlib, io, json
    >>> from symrmt.cli import main
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main(["hermite", "--f", "erf(x)", "--json"])
    >>> status, round(json.loads(out.getvalue())["a1"], 6)
    (0, 0.65147)
    >>> main(["theory", "--f", "x^2", "--c", "1", "--gamma", "0.1"])       # bad input: one line on stderr
    2
    """
    parser = build_parser()
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    try:
        args, status = parse_arguments(parser, argv)
        flush_stdout()                                          # --help went to stdout
    except BrokenPipeError:
        discard_stdout()
        return BROKEN_PIPE
    except OSError as exc:
        _say(f"symrmt: error: {environment_line(exc)}")
        return 2
    return status if args is None else _run(args)


def console(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``symrmt`` console script and of ``python -m symrmt``: :func:`main`, then the process ends.

    It ends without the interpreter's teardown, which frees every object of SymPy's caches one by one (about a
    quarter of the CPU time of a short call such as ``symrmt theory``): what was registered with :mod:`atexit`
    still runs and the standard streams are flushed; a stdout that cannot be flushed then gives the status 120, as
    the interpreter's own exit does. Only for a process that ends here: a library calls :func:`main`.
    """
    status = main(argv)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and status == 0:
                status = 120
    os._exit(status)


def _run(args: argparse.Namespace) -> int:
    """Run the command of ``args``, print its JSON with ``--json``, and map what went wrong to a status."""
    command = f"symrmt {args.command}"
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)      # NumPy's warnings from generated code
            warnings.showwarning = show_warning
            check_finite_numbers(args)
            with notice_after(command), _hermite_options(args):
                out = COMMANDS[args.command](args)
            if getattr(args, "json", False):
                print(json_text(out))
            flush_stdout()
    except BrokenPipeError:                  # `symrmt ... | head`: the reader has all it wanted
        discard_stdout()
        return BROKEN_PIPE
    except KeyboardInterrupt:
        _report(args, f"{command}: interrupted")
        return 130
    except SymrmtInputError as exc:
        _report(args, f"{command}: error: {one_line(exc)}")
        return 2
    except ConvergenceError as exc:
        _report(args, f"{command}: the solver did not converge: {one_line(exc)}")
        return 3
    except (OSError, MemoryError, UnicodeEncodeError) as exc:       # the system's limits, not a bug of symrmt
        _report(args, f"{command}: error: {environment_line(exc)}")
        return 2
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is a bug, said in one line
        reason = shortened(one_line(exc), 160)
        _report(args, f"{command}: internal error ({type(exc).__name__}: {reason}); this is a bug, "
                      "please report it with the command line (run with --debug for the traceback)")
        return 1
    return getattr(out, "exit_status", 0)          # symrmt check: 4 when a property fails


def _hermite_options(args: argparse.Namespace):
    """``--method`` and ``--timeout`` for every Hermite computation of the command (nothing without ``--f``: then
    SymPy is not imported here)."""
    flags = hermite_flags(args)
    if not flags or getattr(args, "f", None) is None:
        return contextlib.nullcontext()
    from ..nonlinearity.api import DEFAULT_TIMEOUT, hermite_options  # heavy: SymPy

    return hermite_options(**{"method": "auto", "timeout": DEFAULT_TIMEOUT, **flags})


def _report(args: argparse.Namespace, line: str) -> None:
    if args.debug:
        traceback.print_exc()
    _say(line)


def _say(line: str) -> None:
    """``line`` on stderr; if stderr itself cannot be written there is no one left to tell."""
    try:
        print(line, file=sys.stderr)
    except OSError:
        pass

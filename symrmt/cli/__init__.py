"""The ``symrmt`` command line: parses arguments, calls the library, prints tables or JSON.

Commands: ``hermite``, ``theory``, ``simulate``, ``compare``, ``latex``, ``spectrum``, ``demo``,
``figure``, ``sweep``. Every command takes ``--json``; the JSON shapes are a stable contract
documented in the README (and never hold NaN or inf). Exit statuses: 0 done, 2 bad input (one
line naming the problem), 3 a solver that did not converge, 1 a bug; ``--debug`` shows the
traceback.

The package is a thin dispatcher: :mod:`.parser` builds the parser from one module per command
group in :mod:`.commands`, which share the flag groups of :mod:`.arguments` and the parsers of
:mod:`.values`; :mod:`.output` writes JSON and messages.
"""
from __future__ import annotations

import argparse
import sys
import traceback
import warnings
from typing import Sequence

import numpy as np

from ..errors import ConvergenceError, SymrmtInputError
from .arguments import check_finite_numbers
from .commands import COMMANDS
from .output import json_text, one_line, show_warning
from .parser import build_parser, parse_arguments

__all__ = ["main", "build_parser", "COMMANDS"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``symrmt`` console script; returns the exit status.

    Exit statuses: 0 done; 2 bad input (any :class:`~symrmt.errors.SymrmtInputError`, and
    argparse's refusals); 3 valid input that did not converge
    (:class:`~symrmt.errors.ConvergenceError`); 1 a bug. Every failure is one line on
    stderr; ``--debug`` adds the traceback. Floating-point warnings of NumPy (from
    generated code) are not shown: results are checked for non-finite values instead.
    """
    parser = build_parser()
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    args, status = parse_arguments(parser, argv)
    if args is None:
        return status
    command = f"symrmt {args.command}"
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)      # NumPy's warnings from generated code
            warnings.showwarning = show_warning
            check_finite_numbers(args)
            out = COMMANDS[args.command](args)
            text = json_text(out) if getattr(args, "json", False) else None
    except SymrmtInputError as exc:
        _report(args, f"{command}: error: {one_line(exc)}")
        return 2
    except ConvergenceError as exc:
        _report(args, f"{command}: the solver did not converge: {one_line(exc)}")
        return 3
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is a bug, said in one line
        _report(args, f"{command}: internal error ({type(exc).__name__}: {one_line(exc)[:300]}); this is a bug, "
                      "please report it with the command line (run with --debug for the traceback)")
        return 1
    if text is not None:
        print(text)
    return 0


def _report(args: argparse.Namespace, line: str) -> None:
    if args.debug:
        traceback.print_exc()
    print(line, file=sys.stderr)

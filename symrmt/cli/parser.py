"""The argument parser of ``symrmt``: one sub-parser per command, and argparse's refusals cut to one line."""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
from typing import Sequence

from .commands.check import add_check
from .commands.converge import add_converge
from .commands.demo import add_demo
from .commands.figure import add_figure
from .commands.heads import add_heads
from .commands.hermite import add_hermite
from .commands.simulate import add_compare, add_simulate
from .commands.sweep import add_sweep
from .commands.theory import add_latex, add_spectrum, add_theory
from .commands.weights import add_weights

__all__ = ["build_parser", "parse_arguments"]

DESCRIPTION = "The ``symrmt`` command line: parses arguments, calls the library, prints tables or JSON."

#: The sub-parsers in the order ``symrmt --help`` lists them.
_SUBPARSERS = (add_hermite, add_theory, add_simulate, add_compare, add_converge, add_latex, add_spectrum, add_heads,
               add_demo, add_figure, add_sweep, add_weights, add_check)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (without ``--debug``, which :func:`symrmt.cli.main` adds).

    Examples
    --------
    >>> from symrmt.cli import build_parser
    >>> args = build_parser().parse_args(["heads", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--heads", "2",
    ...                                   "--gram", "[[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0],[0,0,0,1,0],[0,0,0,0,1]]"])
    >>> args.command, args.heads, args.gamma.tolist(), args.gram.shape
    ('heads', 2, [0.1, 1.0], (5, 5))
    """
    parser = argparse.ArgumentParser(prog="symrmt", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for add in _SUBPARSERS:
        add(sub)
    return parser


def parse_arguments(parser: argparse.ArgumentParser,
                    argv: Sequence[str] | None) -> tuple[argparse.Namespace | None, int | None]:
    """``(args, None)``, or ``(None, status)`` after argparse refused: its usage text is cut to one line."""
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return parser.parse_args(argv), None
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
        text = captured.getvalue()
        if status == 0:
            sys.stderr.write(text)
        else:
            lines = [line for line in text.splitlines() if line.strip()]
            print(lines[-1] if lines else "symrmt: error: bad arguments", file=sys.stderr)
            status = 2
        return None, status

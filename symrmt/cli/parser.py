"""The argument parser of ``symrmt``: one sub-parser per command, and argparse's refusals cut to one line.

A value that starts with '-' is taken as the value of the option before it when it looks like a number, a
list or a grid (``--x -3:3:13``, ``--gamma -1e-3``, ``--c -1,2``): argparse alone would read it as an option
and refuse ``--x`` with "expected one argument" (:func:`joined_values`).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import warnings
from typing import Sequence

from ..errors import printable, shortened
from ..validate import GridSpacingWarning
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
from .output import MESSAGE_WIDTH, show_warning

__all__ = ["build_parser", "parse_arguments"]

DESCRIPTION = "The symrmt command line: parses arguments, calls the library, prints tables or JSON."

#: The sub-parsers in the order ``symrmt --help`` lists them.
_SUBPARSERS = (add_hermite, add_theory, add_simulate, add_compare, add_converge, add_latex, add_spectrum, add_heads,
               add_demo, add_figure, add_sweep, add_weights, add_check)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (without ``--debug``, which :func:`symrmt.cli.main` adds).

    Returns
    -------
    argparse.ArgumentParser
        The parser, one sub-parser per command.

    Raises
    ------
    Nothing
        It only builds the parser.

    See Also
    --------
    main : Parses and runs a command.

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


#: A token that starts with '-' but is a value: a number, a list or a grid (-3, -.5, -1e-3, -3:3:13, -1,2, -inf).
_NEGATIVE_VALUE = re.compile(r"-(\.?\d|inf|nan)", re.IGNORECASE)


def joined_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``argv`` with every ``--opt VALUE`` whose VALUE looks like a negative number written ``--opt=VALUE``.

    Only options that take exactly one value are joined (also when abbreviated, as argparse allows); a
    token after ``--`` and the values of flags are left alone.

    >>> joined_values(build_parser(), ["spectrum", "--f", "x", "--x", "-3:3:13", "--json"])
    ['spectrum', '--f', 'x', '--x=-3:3:13', '--json']
    """
    argv = list(argv)
    commands = next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})
    start = next((i for i, token in enumerate(argv) if token in commands), None)
    if start is None:
        return argv
    options = [option for action in commands[argv[start]]._actions if action.nargs is None
               for option in action.option_strings]
    out, i = argv[:start + 1], start + 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        matches = [o for o in options if o == token] or \
            [o for o in options if token.startswith("--") and o.startswith(token)]
        if len(matches) == 1 and i + 1 < len(argv) and _NEGATIVE_VALUE.match(argv[i + 1]):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def parse_arguments(parser: argparse.ArgumentParser,
                    argv: Sequence[str] | None) -> tuple[argparse.Namespace | None, int | None]:
    """``(args, None)``, or ``(None, status)`` after argparse refused: its usage text is cut to one line."""
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GridSpacingWarning)
            args = parser.parse_args(joined_values(parser, sys.argv[1:] if argv is None else argv))
        for warning in caught:          # a flag's warning (a gamma grid without 'log'), said after parsing
            show_warning(warning.message, warning.category, warning.filename, warning.lineno)
        return args, None
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
        text = captured.getvalue()
        if status == 0:
            sys.stderr.write(text)
        else:
            lines = [line for line in text.splitlines() if line.strip()]
            print(shortened(printable(lines[-1]), MESSAGE_WIDTH) if lines else "symrmt: error: bad arguments",
                  file=sys.stderr)
            status = 2
        return None, status

"""``symrmt check``: the property catalogue of :mod:`symrmt.testing` run on one f, as a table; status 4 if one fails."""
from __future__ import annotations

import argparse

from ...errors import SymrmtInputError
from ..arguments import add_hermite_flags, integer_argument, seed_argument
from ..arguments import add_f, add_params, parameter_values, single_point

__all__ = ["add_check", "cmd_check", "FAILED"]

#: The exit status when a property fails (0: every property held; 2: bad input, or no Hypothesis; 1 is a bug,
#: as everywhere: :data:`symrmt.cli.EXIT_STATUS`).
FAILED = 4


class CheckResult(dict):
    """The JSON of ``symrmt check``, with the exit status :func:`symrmt.cli.main` returns (``exit_status``)."""

    exit_status = 0


def add_check(sub) -> None:
    p = sub.add_parser("check", help="verify the theory of f by the property catalogue of symrmt.testing "
                                     "(exit 0: all hold, 1: one fails)")
    add_f(p, help="the nonlinearity whose theory is checked")
    add_hermite_flags(p)
    add_params(p)
    p.add_argument("--examples", type=integer_argument, default=None, metavar="N",
                   help="points per property, drawn by Hypothesis (default 3)")
    p.add_argument("--seed", type=seed_argument, default=0, help="seed of the draws (reproducible)")
    p.add_argument("--property", action="append", default=None, metavar="NAME",
                   help="run only this property (repeatable; default: the whole catalogue)")
    p.add_argument("--json", action="store_true", help="print JSON: f, a1, nu, passed and one row per property")
    p.add_argument("--allow-long", action="store_true",
                   help="run although the estimate (examples x properties x 0.5 s) is over five minutes")


def cmd_check(args: argparse.Namespace) -> dict:
    try:
        from ...testing import verify  # optional: hypothesis
        from ...testing.verification import DEFAULT_EXAMPLES  # optional: hypothesis
    except ImportError as exc:
        if "symrmt[testing]" in str(exc):
            raise SymrmtInputError(str(exc)) from None
        raise
    point = single_point(parameter_values(args))
    result = verify(args.f, point or None, center=args.center,
                    examples=DEFAULT_EXAMPLES if args.examples is None else args.examples, seed=args.seed,
                    properties=args.property, allow_long=args.allow_long)
    if not args.json:
        print(result.table())
    out = CheckResult(result.as_dict())
    out.exit_status = 0 if result.passed else FAILED
    return out

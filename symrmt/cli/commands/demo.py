"""``symrmt demo``: the whole pipeline on f = tanh in a few seconds (:mod:`symrmt.presentation.demo`)."""
from __future__ import annotations

import argparse

from ...runtime.files import fresh_path
from ..paths import PLOT_FORMATS, check_output_file
from ..arguments import integer_argument, seeds_argument

__all__ = ["add_demo", "cmd_demo"]

#: The plot's name when ``--plot`` is not given.
DEFAULT_PLOT = "symrmt-demo.png"


def add_demo(sub) -> None:
    p = sub.add_parser("demo", help="tanh: Hermite data, theory vs linear regression vs Monte Carlo, plot")
    p.add_argument("--n", type=integer_argument, default=400, help="tokens in the Monte Carlo (default 400)")
    p.add_argument("--seeds", type=seeds_argument, default=4)
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help=f"the plot (.png, .pdf or .svg; replaced if it exists; default {DEFAULT_PLOT}, or "
                        f"{DEFAULT_PLOT[:-4]}-1.png, ... if that exists; '' for none)")
    p.set_defaults(empty_allowed=("plot",))          # --plot '' means no plot (check_finite_numbers)
    p.add_argument("--json", action="store_true")


def cmd_demo(args: argparse.Namespace) -> dict:
    from ...presentation.demo import run_demo  # heavy: SciPy

    named = args.plot is not None            # a default name never replaces a file (docs/usage.md)
    plot = args.plot if named else str(fresh_path(DEFAULT_PLOT))
    if plot:                                 # '' draws no plot
        check_output_file(plot, "--plot", PLOT_FORMATS)
    return run_demo(n=args.n, seeds=args.seeds, plot=plot, quiet=args.json, replace=named)

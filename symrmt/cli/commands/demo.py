"""``symrmt demo``: the whole pipeline on f = tanh in a few seconds (:mod:`symrmt.presentation.demo`)."""
from __future__ import annotations

import argparse

from ..paths import PLOT_FORMATS, check_output_file
from ..arguments import integer_argument, seeds_argument

__all__ = ["add_demo", "cmd_demo"]


def add_demo(sub) -> None:
    p = sub.add_parser("demo", help="tanh: Hermite data, theory vs linear regression vs Monte Carlo, plot")
    p.add_argument("--n", type=integer_argument, default=400, help="tokens in the Monte Carlo (default 400)")
    p.add_argument("--seeds", type=seeds_argument, default=4)
    p.add_argument("--plot", default="symrmt-demo.png", metavar="FILE.png",
                   help="the plot (.png, .pdf or .svg; default symrmt-demo.png; '' for none)")
    p.add_argument("--json", action="store_true")


def cmd_demo(args: argparse.Namespace) -> dict:
    from ...presentation.demo import run_demo

    if args.plot:                            # '' draws no plot
        check_output_file(args.plot, "--plot", PLOT_FORMATS)
    return run_demo(n=args.n, seeds=args.seeds, plot=args.plot, quiet=args.json)

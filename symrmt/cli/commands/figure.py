"""``symrmt figure NAME``: draw one of the paper's results (:mod:`symrmt.figures`); ``--list`` names them."""
from __future__ import annotations

import argparse

from ...errors import SymrmtInputError
from ..arguments import integer_argument, seeds_argument
from ..arguments import add_f, add_params, parameter_values, single_point
from ..paths import check_output_folder
from ...figures import DEFAULT_OUT, FIGURES, IMAGE_FORMATS, TAKE_F, FigureUnavailable, figure, run

__all__ = ["add_figure", "cmd_figure"]


def add_figure(sub) -> None:
    """``symrmt figure NAME [--quick] [--out DIR] [--format F] [--f EXPR [--center] [--param NAME=VALUE ...]]``
    and ``symrmt figure --list``."""
    p = sub.add_parser("figure", help="draw one of the paper's results (image + CSV of the plotted numbers)",
                       description="Draw a figure of symrmt.figures: theory lines, Monte Carlo markers with 95% t "
                                   "intervals over seeds; writes NAME.png (or .pdf, .svg) and NAME.csv (exactly the "
                                   "plotted numbers).")
    p.add_argument("name", nargs="?", metavar="NAME", help="figure name (see --list)")
    p.add_argument("--list", action="store_true", help="list the figures and exit")
    p.add_argument("--quick", action="store_true", help="small n, few points: seconds instead of minutes")
    p.add_argument("--out", default=None, metavar="DIR",
                   help=f"output folder (default: ./{DEFAULT_OUT}, created in the current directory)")
    p.add_argument("--format", default="png", choices=IMAGE_FORMATS, help="image format (default png)")
    p.add_argument("--n", type=integer_argument, default=None, help="override the mode's Monte Carlo n (tokens)")
    p.add_argument("--seeds", type=seeds_argument, default=None, help="override the mode's number of seeds")
    add_f(p, required=False, help=f"the nonlinearity of {', '.join(TAKE_F)} instead of tanh (the title then names "
                                  "f and states no claim; the other figures draw a fixed set of f)")
    add_params(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true")


def cmd_figure(args: argparse.Namespace) -> dict:
    if args.list and args.name is not None:
        raise SymrmtInputError(f"--list lists every figure and draws none, so the name {args.name!r} would be "
                               "ignored: run `symrmt figure --list`, or `symrmt figure NAME` to draw one")
    if args.list or args.name is None:
        if not args.json:
            width = max(map(len, FIGURES))
            for name, text in FIGURES.items():
                print(f"{name:<{width}}  {text}")
        return {"figures": dict(FIGURES)}
    check_output_folder(str(DEFAULT_OUT if args.out is None else args.out), "--out")
    override = _f_override(args)
    try:
        sizes = {k: v for k, v in (("n", args.n), ("seeds", args.seeds)) if v is not None}

        figure.QUIET = bool(args.quiet)
        written = run(args.name, quick=args.quick, out=args.out, fmt=args.format, **override, **sizes)
    except FigureUnavailable as exc:
        raise SymrmtInputError(f"figure {args.name!r} is not available in this installation: {exc}") from None
    out = {"figure": args.name, "quick": bool(args.quick), "format": written["format"], "image": str(written["image"]),
           "csv": str(written["csv"]), **override}
    if not args.json:
        print(f"{out['image']}\n{out['csv']}")
    return out


def _f_override(args: argparse.Namespace) -> dict:
    """``f``, ``params`` (one value each, exactly the names in f) and ``center`` of ``run``, when ``--f`` is given."""
    if args.f is None:
        if args.param or args.center:
            flag = "--param" if args.param else "--center"
            raise SymrmtInputError(f"{flag} applies to --f: give the figure's f as well, e.g. --f 'tanh(s*x)' "
                                   "--param s=2.")
        return {}
    return {"f": args.f, "params": single_point(parameter_values(args)), "center": bool(args.center)}

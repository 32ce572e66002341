r"""``symrmt heads``: the deterministic equivalent of H attention heads summed, :math:`K = \sum_h K_h`.

The heads share the tokens, f and the identity part of their weights; their rank-r parts are given by one
``--gram`` of :math:`(\mu, w_K^{(1..R)}, w_Q^{(1..R)})` with :math:`R = H r` weight pairs (head h holds pairs
:math:`(h-1)r+1, \dots, hr`; the summed theory does not depend on which pair is whose). The theory is
:func:`symrmt.theory.heads.summed_heads_error`: one head with the averaged weights at :math:`\gamma/H^2`
(docs/theory.md, section 16). E_lin, linear regression on the same tokens, is printed beside it.
"""
from __future__ import annotations

import argparse
import csv

import numpy as np

from ..arguments import (add_hermite_flags, add_common, add_f, add_params, argument_type, check_c, integer_argument, parameter_values,
                         single_point)
from ..output import cell
from ..paths import check_output_file
from ..values import parse_gram
from ... import hermite, solve_linear
from ...runtime.files import write_atomically
from ...theory.heads import summed_heads_error

__all__ = ["add_heads", "cmd_heads"]


def add_heads(sub) -> None:
    p = sub.add_parser("heads", help="deterministic equivalent of E_attn for H heads summed (and E_lin)",
                       description="H attention heads summed, K = sum_h K_h: one head with the averaged weights "
                                   "at gamma/H^2 (docs/theory.md, section 16).")
    add_f(p)
    add_hermite_flags(p)
    add_common(p)
    p.add_argument("--heads", type=integer_argument, required=True, metavar="H",
                   help="the number of heads H >= 1; --gram holds H*r weight pairs, r per head")
    p.add_argument("--gram", type=argument_type(parse_gram), required=True, metavar="JSON",
                   help="Gram matrix of (mu, w_K^(1..R), w_Q^(1..R)) of all the heads' vectors, R = H*r pairs, "
                        "size 1+2R, as a JSON nested list")
    p.add_argument("--diag", type=float, default=0.0, metavar="D", help="each head's diagonal K_ii = d (default 0)")
    add_params(p)
    p.add_argument("--csv", metavar="FILE.csv", default=None,
                   help="also write the curve as CSV, one row per gamma (replaced atomically if it exists)")


def cmd_heads(args: argparse.Namespace) -> dict:
    """The body of ``symrmt heads``: E_attn of the summed heads and E_lin over ``--gamma``."""
    check_c(args.c)
    if args.csv is not None:
        check_output_file(args.csv, "--csv", ("csv",))
    point = single_point(parameter_values(args, len(args.gamma)))
    h = hermite(args.f, center=args.center)
    if h.parameters:
        h = h.at(**point)
    attention = np.asarray(summed_heads_error(h, args.c, args.gamma, args.gram, heads=args.heads, d=args.diag))
    mu_only = np.zeros((3, 3))
    mu_only[0, 0] = args.gram[0, 0]                    # E_lin sees the signal only
    linear = np.ma.filled(solve_linear(args.c, args.gamma, gram=mu_only, partial=True).error, np.nan)
    out = {"f": args.f, "heads": args.heads, "rank": (args.gram.shape[0] - 1) // 2 // args.heads, "c": args.c,
           "d": args.diag, "gamma": args.gamma.tolist(), "attention": attention.tolist(),
           "linear": [None if not np.isfinite(v) else float(v) for v in linear], "a1": h.a1, "nu": h.nu,
           **({"params": point} if point else {})}
    if args.csv is not None:
        _write_curve(args.csv, args.gamma, attention, linear)
    if not args.json:
        at = "".join(f", {k} = {v:g}" for k, v in point.items())
        print(f"f = {args.f}{at}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c:g}; {args.heads} heads of rank "
              f"{out['rank']} summed")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, attention, linear):
            print(f"{g:10.4g} {cell(a, 10)} {cell(l, 10)}")
    return out


def _write_curve(path: str, gamma: np.ndarray, attention: np.ndarray, linear: np.ndarray) -> None:
    """``gamma,attention,linear``, one row per gamma, written atomically."""
    def write(stream) -> None:
        out = csv.writer(stream)
        out.writerow(["gamma", "attention", "linear"])
        out.writerows([("" if not np.isfinite(v) else repr(float(v))) for v in row]
                      for row in zip(gamma, attention, linear))

    write_atomically(path, write)

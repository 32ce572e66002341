"""``symrmt converge``: the Monte Carlo on a ladder of sizes, extrapolated to n = infinity, beside the theory."""
from __future__ import annotations

import argparse

import numpy as np

from ... import converge, hermite
from ...analysis.convergence import DEFAULT_SEEDS, DEFAULT_TARGET
from ...presentation.plotting import plot_convergence
from ..arguments import seed_argument
from ..arguments import (add_attention, add_common, add_f, add_geometry, add_params, argument_type, attention_kwargs,
                         attention_model, check_attention, check_c, geometry, geometry_kwargs, parameter_values, single_point)
from ...errors import SymrmtInputError
from ..output import cell
from ..paths import PLOT_FORMATS, check_output_file
from ..values import parse_seed_count, parse_sizes

__all__ = ["add_converge", "cmd_converge"]


def add_converge(sub) -> None:
    p = sub.add_parser("converge", help="Monte Carlo at n = 256..4096 extrapolated to n = infinity, against the theory")
    add_f(p, required=False)
    add_attention(p, normalize=True)
    add_common(p)
    add_geometry(p)
    add_params(p)
    p.add_argument("--ns", type=argument_type(parse_sizes), default=None, metavar="N1,N2,...",
                   help="at least three sizes (default 256,512,1024,2048,4096)")
    p.add_argument("--seeds", type=argument_type(_seed_counts), default=DEFAULT_SEEDS, metavar="S|S1,S2,...",
                   help=f"seeds at the largest size; each smaller size is timed on this machine and gets the "
                        f"seeds that cost about the same (default {DEFAULT_SEEDS}); or one count per size, in the "
                        f"order of --ns, which repeats a run exactly (the JSON's 'seeds' of an earlier run)")
    p.add_argument("--target", type=float, default=DEFAULT_TARGET, metavar="REL",
                   help=f"relative half-width of the 95%% interval of the limit below which the ladder decides "
                        f"(default {DEFAULT_TARGET:g}); wider: it says so and estimates the seeds that would reach it")
    p.add_argument("--seed", type=seed_argument, default=0, help="root seed (reproducible)")
    p.add_argument("--method", choices=("auto", "exact", "tridiagonal", "lanczos"), default="auto",
                   help="how the Monte Carlo computes y^T (G + gamma)^-2 y (default auto)")
    p.add_argument("--quiet", action="store_true", help="no progress bars on stderr")
    p.add_argument("--allow-long", action="store_true",
                   help="run a ladder with more than 2000 seeds at a size or estimated above an hour (refused "
                        "otherwise, with the estimate)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="write |MC - theory| against n and E against n^-alpha with the extrapolation (.png, .pdf or .svg)")


def cmd_converge(args: argparse.Namespace) -> dict:
    if args.plot:
        check_output_file(args.plot, "--plot", PLOT_FORMATS)
    check_c(args.c)
    check_attention(args)
    if not 0 < args.target < 1:
        raise SymrmtInputError(f"--target {args.target:g}: give the relative half-width as a number in (0, 1), "
                               "e.g. 0.03 for 3%.")
    shape = geometry(args)
    takes_f = attention_model(args).takes_f                # a model that fixes f (softmax) takes none
    point = single_point(parameter_values(args)) if takes_f else {}
    f = hermite(args.f, center=args.center, params=point or None) if takes_f else None
    result = converge(f, args.c, args.gamma, d=args.diag, ns=args.ns, seeds=args.seeds, seed=args.seed,
                      method=args.method, progress=not args.quiet, target=args.target, allow_long=args.allow_long,
                      **geometry_kwargs(args, shape), **attention_kwargs(args))
    out = {**result.as_dict(), **({"params": point} if point else {})}
    if not args.json:
        _print_convergence(result)
    if args.plot:
        plot_convergence(result, args.plot)
        if not args.json:
            print(f"plot written to {args.plot}")
    return out


def _print_convergence(result) -> None:
    ladder = ", ".join(f"{int(n)} ({int(s)})" for n, s in zip(result.ns, result.seeds))
    print(f"f = {result.f}, c = {result.c:g}, d = {result.d:g}; n (seeds): {ladder}")
    if np.all(np.isfinite(result.seed_seconds)):
        costs = ", ".join(f"{t:.3g}" for t in result.seed_seconds)
        print(f"seeds allocated by the measured seconds per seed ({costs}): each size costs about the same; "
              f"total {float(np.sum(result.seconds)):.0f} s")
    print("E(n) = E_inf + b n^-alpha fitted per gamma; limit with its 95% bootstrap interval and its relative "
          f"half-width (target {100 * result.target:g}%)")
    print(f"{'quantity':>9} {'gamma':>9} {'n = ' + str(int(result.ns[-1])):>10} {'limit':>9} "
          f"{'95% interval':>19} {'±':>6} {'alpha':>5} {'theory':>9} decision")
    decisions = result.decisions()
    notes = []
    for quantity in result.quantities:
        for g, fit in enumerate(quantity.fits):
            decision = decisions[quantity.name][g]
            half = decision["half_width"]
            print(f"{quantity.name:>9} {result.gamma[g]:9.4g} {cell(quantity.mean[-1, g], 10)} {cell(fit.limit, 9)} "
                  f"[{cell(fit.lo, 8)}, {cell(fit.hi, 8)}] {'-' if half is None else f'{100 * half:5.1f}%':>6} "
                  f"{fit.exponent:5.2f} {cell(quantity.theory[g], 9)} {decision['decision']}")
            if decision["decision"] != "agrees":
                notes.append(f"{quantity.name}, gamma = {result.gamma[g]:.4g}: {decision['reason']}.")
    for note in notes:
        print(note)


def _seed_counts(text: str) -> int | list[int]:
    """``--seeds 6`` (the largest size's; the others by their measured cost) or ``--seeds 24,12,6`` (one per size)."""
    if "," not in text:
        return parse_seed_count(text)
    return [parse_seed_count(item.strip()) for item in text.split(",")]

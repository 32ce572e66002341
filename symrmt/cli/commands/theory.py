"""``symrmt theory``, ``spectrum`` and ``latex``: the deterministic equivalents, the density, the printed system."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from ...errors import SymrmtInputError
from ...geometry import Geometry
from ...theory import MAX_DIGITS, MAX_RANK
from ..arguments import add_common, add_f, add_geometry, add_params, argument_type, check_c, geometry
from ..failures import add_strict, failed_points, print_failures, settle
from ..output import cell
from ..paths import check_output_file
from ..values import MAX_GRID_POINTS, formula_parameters, parse_grid

__all__ = ["add_theory", "add_latex", "add_spectrum", "cmd_theory", "cmd_latex", "cmd_spectrum", "theory_curves",
           "MAX_RANK", "MAX_DIGITS"]


def add_theory(sub) -> None:
    p = sub.add_parser("theory", help="deterministic equivalents of E_attn and E_lin")
    add_f(p)
    add_common(p)
    add_geometry(p)
    add_params(p)
    add_strict(p)


def add_latex(sub) -> None:
    p = sub.add_parser("latex", help="print the derived system as LaTeX")
    add_f(p, required=False)
    p.add_argument("--kind", choices=("attention", "linear", "gram_density", "kernel_density", "kernel_ridge"),
                   default="attention")
    p.add_argument("--rank", type=int, default=1, help=f"rank r of the attention weights, 1..{MAX_RANK} (default 1)")
    p.add_argument("--digits", type=int, default=6,
                   help=f"significant digits of numbers put in with --f, 1..{MAX_DIGITS} (default 6)")
    p.add_argument("--numeric", action="store_true",
                   help="also round f's closed forms (a_1, nu, b^2) to --digits significant digits")
    p.add_argument("--document", metavar="FILE.tex", default=None,
                   help="write a complete LaTeX document (numbered, labelled equations) instead of printing fragments")
    p.add_argument("--json", action="store_true")


def add_spectrum(sub) -> None:
    p = sub.add_parser("spectrum", help="predicted eigenvalue density of K^T X^T X K/n or of K")
    add_f(p)
    p.add_argument("--c", type=float, required=True, help="c = p/n > 0")
    p.add_argument("--x", type=argument_type(parse_grid), required=True, metavar="LO:HI:NUM|x1,x2,...")
    p.add_argument("--eta", type=float, default=0.0, help="distance to the real axis (default 0: the density itself)")
    p.add_argument("--matrix", choices=("gram", "kernel"), default="gram",
                   help="gram: K^T X^T X K/n (default); kernel: K itself (symmetric weights only)")
    add_geometry(p)
    add_strict(p)
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")


def theory_curves(args: argparse.Namespace, geometry: Geometry | None):
    """``(h, E_attn, E_lin, failed)`` of ``args``: the Hermite data, both curves over ``args.gamma``, failed points.

    With ``--param`` the attention error has one axis per parameter, in the order given, and γ last.
    The curves are masked arrays (null in JSON) where the solver failed; ``failed`` lists those
    points (:func:`symrmt.cli.failures.failed_points`), and :func:`~symrmt.cli.failures.settle`
    has decided the status (an error if all failed or with ``--strict``).
    """
    from ... import hermite, solve_attention, solve_linear

    check_c(args.c)
    params = _parameter_grid(getattr(args, "param", []) or [], len(args.gamma))
    named = formula_parameters(args.f)
    if set(named) != set(params):
        missing, extra = sorted(set(named) - set(params)), sorted(set(params) - set(named))
        raise SymrmtInputError(
            (f"f = {args.f} has the parameters {missing}: give their values with --param {missing[0]}=LO:HI:NUM. "
             if missing else "") + (f"--param {', '.join(extra)}: not a name in f." if extra else ""))
    h = hermite(args.f, center=args.center, parameters=list(params) or None)
    gamma = args.gamma
    if params:                               # one axis per parameter, gamma last
        axes = len(params)
        params = {k: v.reshape((-1,) + (1,) * (axes - i)) for i, (k, v) in enumerate(params.items())}
    attention = solve_attention(h, args.c, gamma, geometry, args.diag, gram=args.gram, params=params or None,
                                partial=True)
    linear = solve_linear(args.c, gamma, geometry, gram=args.gram, partial=True)
    axes = [*((k, v) for k, v in (getattr(args, "param", []) or [])), ("gamma", gamma)]
    failed = (failed_points(attention.failures, axes, "attention")
              + failed_points(linear.failures, [("gamma", gamma)], "linear"))
    settle(failed, attention.error.size + linear.error.size, args.strict)
    return h, attention.error, linear.error, failed


def _parameter_grid(given: list[tuple[str, object]], gammas: int) -> dict:
    """The ``--param`` values by name: each name once, and at most MAX_GRID_POINTS values in the whole output."""
    params: dict = {}
    for name, values in given:
        if name in params:
            raise SymrmtInputError(f"--param {name} is given twice; give each parameter once, with all its values "
                                   f"(e.g. --param {name}=0.5:2:20 or {name}=0.5,1,2).")
        params[name] = values
    size = math.prod(len(v) for v in params.values()) * gammas
    if size > MAX_GRID_POINTS:
        raise SymrmtInputError(f"--param and --gamma ask for {size} values (the product of their sizes); "
                               f"at most {MAX_GRID_POINTS}: use coarser grids.")
    return params


def cmd_theory(args: argparse.Namespace) -> dict:
    h, attention, linear, failed = theory_curves(args, geometry(args))
    attention_cells, linear_cells = np.ma.filled(attention, np.nan), np.ma.filled(linear, np.nan)
    if args.param:
        out = {"gamma": args.gamma.tolist(), "params": {k: v.tolist() for k, v in args.param},
               "attention": attention.tolist(), "linear": linear.tolist(), "failed": failed}
        if not args.json:
            print(f"f = {h.f} in {', '.join(k for k, _ in args.param)}; c = {args.c}; attention error, "
                  "one row per parameter point (gamma across):")
            print("\n".join(" ".join(cell(v, 9) for v in row)
                            for row in attention_cells.reshape(-1, attention.shape[-1])))
            print_failures(failed)
        return out
    out = {"gamma": args.gamma.tolist(), "attention": attention.tolist(), "linear": linear.tolist(),
           "a1": h.a1, "nu": h.nu, "failed": failed}
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, attention_cells, linear_cells):
            print(f"{g:10.4g} {cell(a, 10)} {cell(l, 10)}")
        print_failures(failed)
    return out


def cmd_latex(args: argparse.Namespace) -> dict:
    from ... import latex

    if not 1 <= args.rank <= MAX_RANK:
        raise SymrmtInputError(f"--rank {args.rank}: the rank must be in 1..{MAX_RANK} (the printed system grows "
                               "like r^2).")
    if not 1 <= args.digits <= MAX_DIGITS:
        raise SymrmtInputError(f"--digits {args.digits}: give 1..{MAX_DIGITS} significant digits "
                               f"(a float64 holds {MAX_DIGITS}).")
    if args.document is not None:
        check_output_file(args.document, "--document", ("tex",))
    note = None
    if args.f is not None and args.kind == "linear":
        note = "linear regression does not depend on f: --f is ignored"
        print(f"symrmt latex: note: {note}", file=sys.stderr)
    text = latex(args.f, kind=args.kind, digits=args.digits, rank=args.rank, center=args.center,
                 parameters=formula_parameters(args.f) or None, numeric=args.numeric,
                 document=args.document is not None)
    out = {"kind": args.kind, "f": args.f, "latex": text}
    if args.document is not None:
        Path(args.document).write_text(text, encoding="utf-8")
        out["document"] = args.document
        if not args.json:
            print(f"document written to {args.document}")
    elif not args.json:
        print(text)
    if args.kind in ("attention", "kernel_ridge"):
        out["rank"] = args.rank
    if note:
        out["note"] = note
    return out


def cmd_spectrum(args: argparse.Namespace) -> dict:
    from ... import hermite, spectral_density

    check_c(args.c)
    h = hermite(args.f, center=args.center)
    result = spectral_density(h, args.c, args.x, eta=args.eta, matrix=args.matrix, d=args.diag,
                              geometry=geometry(args), gram=args.gram, partial=True)
    failed = failed_points(result.failures, [("x", result.x)])
    settle(failed, result.x.size, args.strict)
    out = result.as_dict()
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}; density of the {args.matrix} matrix, "
              f"eta = {args.eta}; atom at 0: {out['atom']:.6g}")
        print(f"{'x':>10} {'density':>12}")
        for x, rho in zip(result.x, np.ma.filled(result.density, np.nan)):
            print(f"{x:10.4g} " + (f"{rho:12.6g}" if np.isfinite(rho) else f"{'-':>12}"))
        print_failures(failed)
    return out

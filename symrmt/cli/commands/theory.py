"""``symrmt theory``, ``spectrum`` and ``latex``: the deterministic equivalents, the density, the printed system."""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
import sys
from pathlib import Path

from ...errors import SymrmtInputError
from ...geometry import Geometry
from ..arguments import (add_attention, add_common, add_f, add_geometry, add_params, argument_type, attention_kwargs,
                         check_attention, check_c, geometry)
from ..paths import check_output_file
from ..values import MAX_GRID_POINTS, formula_parameters, parse_grid

__all__ = ["add_theory", "add_latex", "add_spectrum", "cmd_theory", "cmd_latex", "cmd_spectrum", "theory_curves",
           "SoftmaxData", "describe", "MAX_RANK", "MAX_DIGITS"]

#: The largest ``latex --rank``: the printed system grows like r^2 (rank 64: about 1 MB of LaTeX, 3 s to build);
#: beyond it the text is too long to read and to build.
MAX_RANK = 64
#: The most significant digits of ``latex --digits``: a float64 holds 17.
MAX_DIGITS = 17


def add_theory(sub) -> None:
    p = sub.add_parser("theory", help="deterministic equivalents of E_attn and E_lin")
    add_f(p, required=False)
    add_attention(p)
    add_common(p)
    add_geometry(p)
    add_params(p)


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
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")


@dataclass(frozen=True)
class SoftmaxData:
    """What the commands print of softmax attention: its centered f as a formula, and that f's Hermite data."""

    f: str
    a1: float
    nu: float
    temperature: float

    @classmethod
    def of(cls, temperature: float) -> SoftmaxData:
        from ...softmax import softmax_formula, softmax_hermite

        a1, nu = softmax_hermite(temperature)
        return cls(softmax_formula(temperature), float(a1), float(nu), float(temperature))

    def pair(self) -> tuple[float, float]:
        """``(a_1, nu)``, the Hermite data as the theory takes them."""
        return self.a1, self.nu


def theory_curves(args: argparse.Namespace, geometry: Geometry | None):
    """``(h, E_attn, E_lin)`` of ``args``: the Hermite data and both curves over ``args.gamma``.

    With ``--param`` the attention error has one axis per parameter, in the order given, and γ last.
    With ``--attention softmax``, ``h`` is a :class:`SoftmaxData`.
    """
    from ... import attention_error, hermite, linear_error

    check_c(args.c)
    check_attention(args)
    if args.attention == "softmax":
        from ...softmax import softmax_error

        h = SoftmaxData.of(attention_kwargs(args)["temperature"])
        attention = softmax_error(args.c, args.gamma, temperature=h.temperature, geometry=geometry, gram=args.gram)
        return h, attention, linear_error(args.c, args.gamma, geometry, gram=args.gram)
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
    attention = attention_error(h, args.c, gamma, geometry, args.diag, gram=args.gram, params=params or None)
    linear = linear_error(args.c, gamma, geometry, gram=args.gram)
    return h, attention, linear


def describe(h) -> str:
    """``f = ...``, or for softmax attention its temperature and the f of its theory."""
    if isinstance(h, SoftmaxData):
        return f"softmax attention, T = {h.temperature:g} (theory: f = {h.f})"
    return f"f = {h.f}"


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
    h, attention, linear = theory_curves(args, geometry(args))
    if getattr(args, "param", None):
        out = {"gamma": args.gamma.tolist(), "params": {k: v.tolist() for k, v in args.param},
               "attention": attention.tolist(), "linear": linear.tolist()}
        if not args.json:
            print(f"f = {h.f} in {', '.join(k for k, _ in args.param)}; c = {args.c}; attention error, "
                  "one row per parameter point (gamma across):")
            print("\n".join(" ".join(f"{v:9.5f}" for v in row) for row in attention.reshape(-1, attention.shape[-1])))
        return out
    out = {"gamma": args.gamma.tolist(), "attention": attention.tolist(), "linear": linear.tolist(),
           "a1": h.a1, "nu": h.nu}
    if isinstance(h, SoftmaxData):
        out.update(f=h.f, temperature=h.temperature)
    if not args.json:
        print(f"{describe(h)}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, attention, linear):
            print(f"{g:10.4g} {a:10.5f} {l:10.5f}")
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
                              geometry=geometry(args), gram=args.gram)
    out = result.as_dict()
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}; density of the {args.matrix} matrix, "
              f"eta = {args.eta}; atom at 0: {out['atom']:.6g}")
        print(f"{'x':>10} {'density':>12}")
        for x, rho in zip(result.x, result.density):
            print(f"{x:10.4g} {rho:12.6g}")
    return out

"""``symrmt hermite``: the Hermite coefficients of f, exact when possible."""
from __future__ import annotations

import argparse

from ...errors import SymrmtInputError
from ..arguments import add_f

__all__ = ["add_hermite", "cmd_hermite"]


def add_hermite(sub) -> None:
    p = sub.add_parser("hermite", help="Hermite coefficients a_0, a_1, a_2, nu of f (exact when possible)")
    add_f(p)
    p.add_argument("--k", type=int, default=None, help="also a_k for this k")
    p.add_argument("--json", action="store_true")


def _hermite_json(h) -> dict:
    return {"f": str(h.f), "a0": h.a0, "a1": h.a1, "a2": h.a2, "nu": h.nu,
            "exact": h.latex(), "source": dict(h.source), "centered_by": h.centered_by}


def cmd_hermite(args: argparse.Namespace) -> dict:
    import sympy

    from ... import hermite

    h = hermite(args.f, center=args.center)
    out = _hermite_json(h)
    if args.k is not None:
        if args.k < 0:
            raise SymrmtInputError(f"--k {args.k}: the order must be >= 0.")
        value, exact = h.coefficient(args.k)
        out[f"a{args.k}"] = value
        out["exact"][f"a{args.k}"] = None if exact is None else sympy.latex(exact)
    if not args.json:
        print(f"f = {out['f']}" + (f"   (centered: subtracted a_0 = {h.centered_by:.12g})" if h.centered_by else ""))
        for key in [k for k in out if k.startswith("a") or k == "nu"]:
            exact = out["exact"].get(key)
            print(f"  {key:>3} = {out[key]: .15g}" + (f"   = {exact}" if exact else "   (numeric)"))
    return out

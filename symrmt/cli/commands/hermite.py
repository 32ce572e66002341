"""``symrmt hermite``: the Hermite coefficients of any f, exact when possible; at parameter values or over grids."""
from __future__ import annotations

import argparse

import numpy as np
import sympy

from ... import hermite
from ...errors import SymrmtInputError, shown
from ..arguments import add_hermite_flags, integer_argument
from ..arguments import add_f, add_params, parameter_axes, parameter_values, single_point

__all__ = ["add_hermite", "cmd_hermite"]

_KEYS = ("a0", "a1", "a2", "nu")


def add_hermite(sub) -> None:
    p = sub.add_parser("hermite", help="Hermite coefficients a_0, a_1, a_2, nu of any f (exact when possible)")
    add_f(p)
    add_hermite_flags(p, shows_closed_forms=True)
    add_params(p, grids=True)
    p.add_argument("--k", type=integer_argument, default=None, help="also a_k for this k (0..30)")
    p.add_argument("--json", action="store_true")


def _hermite_json(h) -> dict:
    return {"f": str(h.f), **{k: h.values[k] for k in _KEYS}, "exact": h.latex(), "source": dict(h.source),
            "centered_by": h.centered_by}


def cmd_hermite(args: argparse.Namespace) -> dict:
    params = parameter_values(args, optional=True)
    h = hermite(args.f, center=args.center)
    point = single_point(params)
    if h.parameters and not params:
        return _symbolic(args, h)
    if point is None:
        return _grid(args, h, params)
    h = h.at(**point)
    out = {**_hermite_json(h), **({"params": point} if point else {})}
    if args.k is not None:
        _add_coefficient(h, args.k, out)
    if not args.json:
        at = f"{args.f} at {_point_text(point)}: " if point else ""
        centered = f"   (centered: subtracted a_0 = {h.centered_by:.12g})" if h.centered_by else ""
        print(f"f = {at}{out['f']}{centered}")
        for key in [k for k in out if k.startswith("a") or k == "nu"]:
            exact = out["exact"].get(key)
            print(f"  {key:>3} = {out[key]: .15g}" + (f"   = {exact}" if exact else "   (numeric)"))
    return out


def _add_coefficient(h, k: int, out: dict) -> None:
    if not 0 <= k <= 30:
        raise SymrmtInputError(f"--k {shown(k)}: the order must be in 0..30.")
    value, exact = h.coefficient(k)
    out[f"a{k}"] = value
    out["exact"][f"a{k}"] = None if exact is None else sympy.latex(exact)


def _symbolic(args: argparse.Namespace, h) -> dict:
    """An f with parameters and no values: its closed forms in them (numbers need --param)."""
    names = [s.name for s in h.parameters]
    if args.k is not None:
        raise SymrmtInputError(f"--k {args.k}: a_k of f = {args.f} needs a value of each parameter "
                               f"(--param {names[0]}=VALUE).")
    out = {"f": str(h.f), "parameters": names, "exact": h.latex(), "source": dict(h.source),
           "centered_by": _subtracted(h.centered_by)}
    if not args.json:
        print(f"f = {h.f} with the parameter{'s' if len(names) > 1 else ''} {', '.join(names)} "
              f"(numbers: --param {names[0]}=VALUE or a grid {names[0]}=LO:HI:NUM[log])")
        if h.center:
            print("  centered: subtracted a_0 = " + ("its value at each point (no closed form)"
                                                     if h.centered_by is None else str(h.centered_by)))
        for key in _KEYS:
            exact = out["exact"][key]
            print(f"  {key:>3} = {exact}" if exact else f"  {key:>3}   (numeric: give --param)")
    return out


def _subtracted(value) -> float | str | None:
    """``centered_by`` of an f with parameters for JSON: a number, the LaTeX of its closed form, or None (per point)."""
    return value if value is None or isinstance(value, float) else sympy.latex(value)


def _grid(args: argparse.Namespace, h, params: dict) -> dict:
    """The data over the grids of the parameters, one axis per parameter in the order given."""
    if args.k is not None:
        raise SymrmtInputError(f"--k {args.k}: a_k is computed at one point; give one value per parameter.")
    axes = parameter_axes(params)
    values = h.numeric(**axes)
    out = {"f": str(h.f), "parameters": list(params), "params": {k: v.tolist() for k, v in params.items()},
           **{k: values[k].tolist() for k in _KEYS}, "exact": h.latex(), "source": dict(h.source)}
    if not args.json:
        print(f"f = {h.f} on the grid of {', '.join(params)} (one row per point)")
        print(" ".join(f"{name:>12}" for name in [*params, *_KEYS]))
        grids = np.broadcast_arrays(*axes.values(), *values.values())
        for row in zip(*(g.ravel() for g in grids)):
            print(" ".join(f"{v:12.6g}" for v in row))
    return out


def _point_text(point: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in point.items())

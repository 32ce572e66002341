"""The ``symrmt`` command line: parses arguments, calls the library, prints tables or JSON.

Commands: ``hermite``, ``theory``, ``simulate``, ``compare``, ``latex``, ``demo``.
Every command takes ``--json``; the JSON shapes are a stable contract documented
in the README. Bad input exits with status 2 and one line naming the problem;
a solver that did not converge exits with status 3.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

import numpy as np

from .errors import ConvergenceError, SymrmtInputError
from .geometry import Geometry

__all__ = ["main", "build_parser"]

GEOMETRY_FLAGS = ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq")


def parse_gamma(text: str) -> np.ndarray:
    """``"0.01,0.1,1"`` (a list) or ``"1e-3:10:50"`` (50 log-spaced values from 1e-3 to 10)."""
    try:
        if ":" in text:
            lo, hi, num = text.split(":")
            values = np.logspace(np.log10(float(lo)), np.log10(float(hi)), int(num))
        else:
            values = np.array([float(v) for v in text.split(",") if v.strip()])
    except ValueError as exc:
        raise SymrmtInputError(
            f"--gamma {text!r}: give comma-separated numbers (0.01,0.1,1) or LO:HI:NUM for a log grid ({exc})."
        ) from None
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise SymrmtInputError(f"--gamma {text!r}: every gamma must be a finite number > 0.")
    return values


def _argument(parse):
    """Wrap a parser so that argparse shows its message (argparse hides a plain ValueError's text)."""
    def wrapped(text: str):
        try:
            return parse(text)
        except SymrmtInputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    wrapped.__name__ = parse.__name__
    return wrapped


def _add_f(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--f", required=required, metavar="EXPR",
                   help="nonlinearity in x, e.g. tanh(x), 'relu(x)' with --center, x**3-3*x; "
                        "a formula starting with '-' must be written --f=-tanh(x)")
    p.add_argument("--center", action="store_true", help="subtract a_0 = E f(xi) so that f is centered")


def _add_geometry(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("geometry of (mu, w_K, w_Q) (default: all 0)")
    for flag in GEOMETRY_FLAGS:
        g.add_argument("--" + flag.replace("_", "-"), dest=flag, type=float, default=0.0, metavar="X")
    p.add_argument("--diag", type=float, default=0.0, metavar="D", help="diagonal K_ii = d (default 0)")


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--c", type=float, required=True, help="c = p/n > 0")
    p.add_argument("--gamma", type=_argument(parse_gamma), required=True, metavar="G1,G2,...|LO:HI:NUM")
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")


def _add_mc(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, required=True, help="number of tokens n >= 2")
    p.add_argument("--seeds", type=int, default=4, help="independent draws (>= 2 for a standard error)")
    p.add_argument("--seed", type=int, default=0, help="base seed (reproducible)")
    p.add_argument("--method", choices=("auto", "exact", "tridiagonal", "lanczos"), default="auto",
                   help="how the Monte Carlo computes y^T (G + gamma)^-2 y; all agree to ~1e-8 (default auto)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--spectrum", action="store_true",
                   help="also return all eigenvalues of the simulated matrix, pooled over seeds (JSON 'eigenvalues')")
    p.add_argument("--matrix", choices=("gram", "kernel"), default="gram",
                   help="with --spectrum: K^T X^T X K/n (gram, default) or K itself (kernel; needs w_K = w_Q)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="symrmt", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("hermite", help="Hermite coefficients a_0, a_1, a_2, nu of f (exact when possible)")
    _add_f(p)
    p.add_argument("--k", type=int, default=None, help="also a_k for this k")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("theory", help="deterministic equivalents of E_attn and E_lin")
    _add_f(p)
    _add_common(p)
    _add_geometry(p)

    p = sub.add_parser("simulate", help="Monte Carlo of the finite model (THEORY.md section 1)")
    _add_f(p)
    _add_common(p)
    _add_geometry(p)
    _add_mc(p)

    p = sub.add_parser("compare", help="theory and Monte Carlo side by side")
    _add_f(p)
    _add_common(p)
    _add_geometry(p)
    _add_mc(p)
    p.add_argument("--plot", metavar="FILE.png", help="also write a plot")

    p = sub.add_parser("latex", help="print the derived system as LaTeX")
    _add_f(p, required=False)
    p.add_argument("--kind", choices=("attention", "linear"), default="attention")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("demo", help="tanh: Hermite data, theory vs linear regression vs Monte Carlo, plot")
    p.add_argument("--n", type=int, default=400, help="tokens in the Monte Carlo (default 400)")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--plot", default="symrmt-demo.png", metavar="FILE.png")
    p.add_argument("--json", action="store_true")
    return parser


def _geometry(args) -> Geometry:
    return Geometry(**{k: getattr(args, k) for k in GEOMETRY_FLAGS})


def _check_c(c: float) -> None:
    if not np.isfinite(c) or c <= 0:
        raise SymrmtInputError(f"--c {c}: c = p/n must be a finite number > 0.")


def _hermite_json(h) -> dict:
    return {"f": str(h.f), "a0": h.a0, "a1": h.a1, "a2": h.a2, "nu": h.nu,
            "exact": h.latex(), "source": dict(h.source), "centered_by": h.centered_by}


def cmd_hermite(args) -> dict:
    from .nonlinearity import hermite

    h = hermite(args.f, center=args.center)
    out = _hermite_json(h)
    if args.k is not None:
        if args.k < 0:
            raise SymrmtInputError(f"--k {args.k}: the order must be >= 0.")
        value, exact = h.coefficient(args.k)
        out[f"a{args.k}"] = value
        out["exact"][f"a{args.k}"] = None if exact is None else __import__("sympy").latex(exact)
    if not args.json:
        print(f"f = {out['f']}" + (f"   (centered: subtracted a_0 = {h.centered_by:.12g})" if h.centered_by else ""))
        for key in [k for k in out if k.startswith("a") or k == "nu"]:
            exact = out["exact"].get(key)
            print(f"  {key:>3} = {out[key]: .15g}" + (f"   = {exact}" if exact else "   (numeric)"))
    return out


def _theory(args, geometry: Geometry):
    from .nonlinearity import hermite
    from .theory import attention_error, linear_error

    _check_c(args.c)
    h = hermite(args.f, center=args.center)
    attention = attention_error(h, args.c, args.gamma, geometry, args.diag)
    linear = linear_error(args.c, args.gamma, geometry)
    return h, attention, linear


def cmd_theory(args) -> dict:
    h, attention, linear = _theory(args, _geometry(args))
    out = {"gamma": args.gamma.tolist(), "attention": attention.tolist(), "linear": linear.tolist(),
           "a1": h.a1, "nu": h.nu}
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, attention, linear):
            print(f"{g:10.4g} {a:10.5f} {l:10.5f}")
    return out


def _simulate(args, geometry: Geometry):
    from .nonlinearity import hermite
    from .simulation import simulate

    _check_c(args.c)
    f = hermite(args.f, center=args.center).f if args.center else args.f
    return simulate(f, n=args.n, c=args.c, gamma=args.gamma, geometry=geometry, d=args.diag,
                    seeds=args.seeds, seed=args.seed, method=args.method, progress=not args.quiet)


def _eigenvalues(args, geometry: Geometry) -> list[float]:
    """The pooled eigenvalues of ``--spectrum``: the same seeds, hence the same draws, as the simulation."""
    from .nonlinearity import hermite
    from .simulation import simulate_spectrum

    f = hermite(args.f, center=args.center).f if args.center else args.f
    return simulate_spectrum(f, n=args.n, c=args.c, matrix=args.matrix, geometry=geometry, d=args.diag,
                             seeds=args.seeds, seed=args.seed, progress=not args.quiet).tolist()


def cmd_simulate(args) -> dict:
    geometry = _geometry(args)
    eigenvalues = _eigenvalues(args, geometry) if args.spectrum else None  # first: refuses kernel for w_K != w_Q
    result = _simulate(args, geometry)
    out = result.as_dict()
    if eigenvalues is not None:
        out["eigenvalues"], out["matrix"] = eigenvalues, args.matrix
    if not args.json:
        print(f"Monte Carlo: n = {result.n}, p = {result.p}, {result.seeds} seeds (mean ± standard error)")
        print(f"{'gamma':>10} {'E_attn':>18} {'E_lin':>18}")
        for i, g in enumerate(result.gamma):
            print(f"{g:10.4g} {result.attention_mean[i]:10.5f} ± {result.attention_se[i]:.5f}"
                  f" {result.linear_mean[i]:10.5f} ± {result.linear_se[i]:.5f}")
        if eigenvalues is not None:
            print(f"{len(eigenvalues)} eigenvalues of the {args.matrix} matrix (pooled) in "
                  f"[{min(eigenvalues):.6g}, {max(eigenvalues):.6g}]; --json lists them")
    return out


def cmd_compare(args) -> dict:
    geometry = _geometry(args)
    h, attention, linear = _theory(args, geometry)
    eigenvalues = _eigenvalues(args, geometry) if args.spectrum else None
    mc = _simulate(args, geometry)
    out = {"gamma": args.gamma.tolist(),
           "theory": {"attention": attention.tolist(), "linear": linear.tolist()},
           "simulation": mc.as_dict()}
    if eigenvalues is not None:
        out["simulation"]["eigenvalues"], out["simulation"]["matrix"] = eigenvalues, args.matrix
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}; c = {args.c}; Monte Carlo n = {mc.n}, {mc.seeds} seeds")
        print(f"{'gamma':>9} | {'attn theory':>11} {'attn MC':>17} | {'lin theory':>10} {'lin MC':>17}")
        for i, g in enumerate(args.gamma):
            print(f"{g:9.4g} | {attention[i]:11.5f} {mc.attention_mean[i]:9.5f} ± {mc.attention_se[i]:.4f} | "
                  f"{linear[i]:10.5f} {mc.linear_mean[i]:9.5f} ± {mc.linear_se[i]:.4f}")
    if args.plot:
        from .plotting import comparison_panel, plot_panels

        grid = np.logspace(np.log10(args.gamma.min()) - 0.3, np.log10(args.gamma.max()) + 0.3, 120)
        panel = comparison_panel(f"f = {h.f}, c = {args.c}", h, args.c, grid, geometry, args.diag, mc)
        out["plot"] = plot_panels([panel], args.plot)
        if not args.json:
            print(f"plot written to {args.plot}")
    return out


def cmd_latex(args) -> dict:
    from .derive import derive_attention, derive_linear
    from .derive.latex import hermite_substitution, system_latex

    derivation = derive_attention() if args.kind == "attention" else derive_linear()
    substitution = None
    if args.f is not None and args.kind == "attention":
        from .nonlinearity import hermite

        h = hermite(args.f, center=args.center)
        a1 = h.exact.get("a1") if h.exact.get("a1") is not None else h.a1
        nu = h.exact.get("nu") if h.exact.get("nu") is not None else h.nu
        substitution = hermite_substitution(a1, nu)
    text = system_latex(derivation, substitution)
    if not args.json:
        print(text)
    return {"kind": args.kind, "f": args.f, "latex": text}


def cmd_demo(args) -> dict:
    from .demo import run_demo

    return run_demo(n=args.n, seeds=args.seeds, plot=args.plot, quiet=args.json)


COMMANDS = {"hermite": cmd_hermite, "theory": cmd_theory, "simulate": cmd_simulate,
            "compare": cmd_compare, "latex": cmd_latex, "demo": cmd_demo}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``symrmt`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:           # argparse already printed usage and the problem
        return int(exc.code or 0)
    try:
        out = COMMANDS[args.command](args)
    except SymrmtInputError as exc:
        print(f"symrmt {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ConvergenceError as exc:
        print(f"symrmt {args.command}: the solver did not converge: {exc}", file=sys.stderr)
        return 3
    if getattr(args, "json", False):
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

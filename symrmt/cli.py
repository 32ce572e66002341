"""The ``symrmt`` command line: parses arguments, calls the library, prints tables or JSON.

Commands: ``hermite``, ``theory``, ``simulate``, ``compare``, ``latex``, ``spectrum``, ``demo``.
Every command takes ``--json``; the JSON shapes are a stable contract documented
in the README (and never hold NaN or inf). Exit statuses: 0 done, 2 bad input (one
line naming the problem), 3 a solver that did not converge, 1 a bug; ``--debug``
shows the traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import sys
import traceback
import warnings
from typing import Sequence

import numpy as np

from .errors import ConvergenceError, SymrmtInputError
from .geometry import Geometry

__all__ = ["main", "build_parser"]

GEOMETRY_FLAGS = ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq")


def _numbers(text: str, flag: str, hint: str, grid, finite: str = "every value must be finite") -> np.ndarray:
    """Comma-separated numbers, or ``LO:HI:NUM`` expanded by ``grid(lo, hi, num)``; empty items are refused."""
    items = text.split(":") if ":" in text else text.split(",")
    if any(not item.strip() for item in items):
        raise SymrmtInputError(f"{flag} {text!r}: has an empty item; {hint}.")
    try:
        if ":" in text:
            if len(items) != 3:
                raise ValueError("LO:HI:NUM takes exactly three parts")
            lo, hi, num = float(items[0]), float(items[1]), int(items[2])
            if not 1 <= num <= 100_000:
                raise ValueError(f"NUM = {num} must be in 1..100000")
            values = grid(lo, hi, num)
        else:
            values = np.array([float(v) for v in items])
    except ValueError as exc:
        raise SymrmtInputError(f"{flag} {text!r}: {hint} ({exc}).") from None
    if not np.all(np.isfinite(values)):
        raise SymrmtInputError(f"{flag} {text!r}: {finite}.")
    return values


def _log_grid(lo: float, hi: float, num: int) -> np.ndarray:
    if not (np.isfinite(lo) and np.isfinite(hi) and lo > 0 and hi > 0):
        raise ValueError("LO and HI must be finite numbers > 0")
    return np.logspace(np.log10(lo), np.log10(hi), num)


def parse_gamma(text: str) -> np.ndarray:
    """``"0.01,0.1,1"`` (a list) or ``"1e-3:10:50"`` (50 log-spaced values from 1e-3 to 10).

    Every item must be a finite number > 0; an empty item (``1,,2``) is refused, not skipped.
    """
    values = _numbers(text, "--gamma", "give comma-separated numbers (0.01,0.1,1) or LO:HI:NUM for a log grid "
                      "(1e-3:10:50)", _log_grid, finite="every gamma must be a finite number > 0")
    if np.any(values <= 0):
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


def parse_gram(text: str) -> np.ndarray:
    """``--gram '[[1, 0.5, 0.5], [0.5, 1, 1], [0.5, 1, 1]]'``: a JSON nested list (never evaluated as code)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SymrmtInputError(f"--gram {text!r}: not valid JSON ({exc.msg}); give a nested list such as "
                               "[[1,0,0],[0,1,0],[0,0,1]].") from None
    if not (isinstance(value, list) and value and all(isinstance(row, list) for row in value)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for row in value for x in row)
            and len({len(row) for row in value}) == 1):
        raise SymrmtInputError(f"--gram {text!r}: give a square nested list of numbers, the (1+2r) x (1+2r) Gram "
                               "matrix of (mu, w_K^(1..r), w_Q^(1..r)).")
    return np.array(value, dtype=float)


def _add_geometry(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("geometry of (mu, w_K, w_Q) (default: all 0), or --gram for rank-r weights")
    for flag in GEOMETRY_FLAGS:
        g.add_argument("--" + flag.replace("_", "-"), dest=flag, type=float, default=None, metavar="X")
    g.add_argument("--gram", type=_argument(parse_gram), default=None, metavar="JSON",
                   help="Gram matrix of (mu, w_K^(1..r), w_Q^(1..r)) as a JSON nested list, size 1+2r "
                        "(instead of the six flags)")
    p.add_argument("--diag", type=float, default=0.0, metavar="D", help="diagonal K_ii = d (default 0)")


def parse_param(text: str) -> tuple[str, np.ndarray]:
    """``--param s=0.5:2:20`` (20 evenly spaced values) or ``--param s=0.5,1,2``: a parameter of f and its values."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise SymrmtInputError(f"--param {text!r}: write NAME=LO:HI:NUM or NAME=v1,v2,... (e.g. s=0.5:2:20).")
    return name.strip(), parse_grid(values, flag=f"--param {name.strip()}=")


def _add_params(p: argparse.ArgumentParser) -> None:
    p.add_argument("--param", type=_argument(parse_param), action="append", default=[], metavar="NAME=LO:HI:NUM",
                   help="values of a symbolic parameter of f (repeatable; each is one axis of the output, "
                        "gamma last), e.g. --f 'tanh(s*x)' --param s=0.5:2:20")


def formula_parameters(formula) -> list[str]:
    """Names in a formula that are not x, a constant or a whitelisted function: its symbolic parameters."""
    import ast

    from .nonlinearity.parse import FUNCTIONS

    if not isinstance(formula, str):
        return []
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError:
        return []                                    # the parser itself will say what is wrong
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return sorted(names - {"x", "pi", "e", "E"} - set(FUNCTIONS))


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
    _add_params(p)

    p = sub.add_parser("simulate", help="Monte Carlo of the finite model (docs/theory.md section 1)")
    _add_f(p)
    _add_common(p)
    _add_geometry(p)
    _add_mc(p)
    p.add_argument("--plot", metavar="FILE.png",
                   help="with --spectrum: the histogram of the eigenvalues under the predicted density")

    p = sub.add_parser("compare", help="theory and Monte Carlo side by side")
    _add_f(p)
    _add_common(p)
    _add_geometry(p)
    _add_mc(p)
    p.add_argument("--plot", metavar="FILE.png", help="also write a plot")

    p = sub.add_parser("latex", help="print the derived system as LaTeX")
    _add_f(p, required=False)
    p.add_argument("--kind", choices=("attention", "linear", "gram_density", "kernel_density"), default="attention")
    p.add_argument("--rank", type=int, default=1, help="rank r of the attention weights (default 1)")
    p.add_argument("--digits", type=int, default=6, help="significant digits of numbers put in with --f (default 6)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("spectrum", help="predicted eigenvalue density of K^T X^T X K/n or of K")
    _add_f(p)
    p.add_argument("--c", type=float, required=True, help="c = p/n > 0")
    p.add_argument("--x", type=_argument(parse_grid), required=True, metavar="LO:HI:NUM|x1,x2,...")
    p.add_argument("--eta", type=float, default=0.0, help="distance to the real axis (default 0: the density itself)")
    p.add_argument("--matrix", choices=("gram", "kernel"), default="gram",
                   help="gram: K^T X^T X K/n (default); kernel: K itself (symmetric weights only)")
    _add_geometry(p)
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")

    p = sub.add_parser("demo", help="tanh: Hermite data, theory vs linear regression vs Monte Carlo, plot")
    p.add_argument("--n", type=int, default=400, help="tokens in the Monte Carlo (default 400)")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--plot", default="symrmt-demo.png", metavar="FILE.png")
    p.add_argument("--json", action="store_true")
    _add_figure_parser(sub)
    _add_sweep_parser(sub)
    return parser


def _geometry(args) -> Geometry | None:
    """The six-flag geometry, or None when --gram is given (both at once is an error)."""
    given = {k: getattr(args, k) for k in GEOMETRY_FLAGS if getattr(args, k) is not None}
    if getattr(args, "gram", None) is not None:
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            raise SymrmtInputError(f"give the geometry either with --gram or with the six flags, not both ({flags}).")
        return None
    return Geometry(**given)


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
    params = dict(getattr(args, "param", []) or [])
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


def cmd_theory(args) -> dict:
    h, attention, linear = _theory(args, _geometry(args))
    if args.param:
        out = {"gamma": args.gamma.tolist(), "params": {k: v.tolist() for k, v in args.param},
               "attention": attention.tolist(), "linear": linear.tolist()}
        if not args.json:
            print(f"f = {h.f} in {', '.join(k for k, _ in args.param)}; c = {args.c}; attention error, "
                  "one row per parameter point (gamma across):")
            print("\n".join(" ".join(f"{v:9.5f}" for v in row) for row in attention.reshape(-1, attention.shape[-1])))
        return out
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
    return simulate(f, n=args.n, c=args.c, gamma=args.gamma, d=args.diag, seeds=args.seeds, seed=args.seed,
                    method=args.method, progress=not args.quiet, **_geometry_kwargs(args, geometry))


def _geometry_kwargs(args, geometry) -> dict:
    """``gram=`` when --gram is given, else ``geometry=`` (the six flags)."""
    return {"gram": args.gram} if args.gram is not None else {"geometry": geometry}


def _eigenvalues(args, geometry: Geometry) -> list[float]:
    """The pooled eigenvalues of ``--spectrum``: the same seeds, hence the same draws, as the simulation."""
    from .nonlinearity import hermite
    from .simulation import simulate_spectrum

    f = hermite(args.f, center=args.center).f if args.center else args.f
    return simulate_spectrum(f, n=args.n, c=args.c, matrix=args.matrix, d=args.diag, seeds=args.seeds,
                             seed=args.seed, progress=not args.quiet, **_geometry_kwargs(args, geometry)).tolist()


def cmd_simulate(args) -> dict:
    geometry = _geometry(args)
    eigenvalues = _eigenvalues(args, geometry) if args.spectrum else None  # first: refuses kernel for w_K != w_Q
    result = _simulate(args, geometry)
    out = result.as_dict()
    if eigenvalues is not None:
        out["eigenvalues"], out["matrix"] = eigenvalues, args.matrix
    if getattr(args, "plot", None):
        out["plot"] = _spectrum_plot(args, geometry, np.asarray(eigenvalues))
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


def _spectrum_plot(args, geometry, eigenvalues: np.ndarray) -> str:
    """The simulated eigenvalues' histogram under the predicted density (eta = 0), written to ``args.plot``."""
    from .nonlinearity import hermite
    from .plotting import plot_spectrum
    from .density import spectral_density

    h = hermite(args.f, center=args.center)
    lo, hi = np.quantile(eigenvalues, [0.0, 0.995]) if args.matrix == "gram" else \
        np.quantile(eigenvalues, [0.0025, 0.9975])
    start = max(lo, 1e-3 * hi) if args.matrix == "gram" else lo      # a hair above a hard edge at 0
    x = np.linspace(start, hi, 300)
    density = spectral_density(h, args.c, x, matrix=args.matrix, d=args.diag, geometry=geometry, gram=args.gram)
    title = (f"{'K^T X^T X K/n' if args.matrix == 'gram' else 'K'}: f = {h.f}, c = {args.c}, d = {args.diag}; "
             f"n = {args.n}, {args.seeds} seeds; mass at 0: {density.atom:.3g}")
    return plot_spectrum(eigenvalues, x, density.density, args.plot, title, (lo, hi))


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
        panel = comparison_panel(f"f = {h.f}, c = {args.c}", h, args.c, grid, geometry, args.diag, mc, gram=args.gram)
        out["plot"] = plot_panels([panel], args.plot)
        if not args.json:
            print(f"plot written to {args.plot}")
    return out


def cmd_latex(args) -> dict:
    from .theory import latex

    note = None
    if args.f is not None and args.kind == "linear":
        note = "linear regression does not depend on f: --f is ignored"
        print(f"symrmt latex: note: {note}", file=sys.stderr)
    text = latex(args.f, kind=args.kind, digits=args.digits, rank=args.rank, center=args.center,
                 parameters=formula_parameters(args.f) or None)
    if not args.json:
        print(text)
    out = {"kind": args.kind, "f": args.f, "latex": text}
    if args.kind == "attention":
        out["rank"] = args.rank
    if note:
        out["note"] = note
    return out


def parse_grid(text: str, flag: str = "--x") -> np.ndarray:
    """``"-1:3:200"`` (200 evenly spaced points from -1 to 3) or ``"0.5,1,2"`` (a list)."""
    return _numbers(text, flag, "give LO:HI:NUM (evenly spaced) or comma-separated numbers", np.linspace)


def cmd_spectrum(args) -> dict:
    from .nonlinearity import hermite
    from .density import spectral_density

    _check_c(args.c)
    h = hermite(args.f, center=args.center)
    result = spectral_density(h, args.c, args.x, eta=args.eta, matrix=args.matrix, d=args.diag,
                              geometry=_geometry(args), gram=args.gram)
    out = result.as_dict()
    if not args.json:
        print(f"f = {h.f}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}; density of the {args.matrix} matrix, "
              f"eta = {args.eta}; atom at 0: {out['atom']:.6g}")
        print(f"{'x':>10} {'density':>12}")
        for x, rho in zip(result.x, result.density):
            print(f"{x:10.4g} {rho:12.6g}")
    return out


def cmd_demo(args) -> dict:
    from .demo import run_demo

    return run_demo(n=args.n, seeds=args.seeds, plot=args.plot, quiet=args.json)


# --------------------------------------------------------------------------- symrmt figure

def _add_figure_parser(sub) -> None:
    """``symrmt figure NAME [--quick] [--out DIR]`` and ``symrmt figure --list``."""
    p = sub.add_parser("figure", help="draw one of the paper's results (PNG + CSV of the plotted numbers)",
                       description="Draw a figure of symrmt.figures: theory lines, Monte Carlo markers with "
                                   "error bars; writes NAME.png and NAME.csv (exactly the plotted numbers).")
    p.add_argument("name", nargs="?", metavar="NAME", help="figure name (see --list)")
    p.add_argument("--list", action="store_true", help="list the figures and exit")
    p.add_argument("--quick", action="store_true", help="small n, few points: seconds instead of minutes")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default derivations/out)")
    p.add_argument("--n", type=int, default=None, help="override the mode's Monte Carlo n (tokens)")
    p.add_argument("--seeds", type=int, default=None, help="override the mode's number of seeds")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true")


def cmd_figure(args) -> dict:
    from .figures import FIGURES, FigureUnavailable, run

    if args.list or args.name is None:
        if not args.json:
            width = max(map(len, FIGURES))
            for name, text in FIGURES.items():
                print(f"{name:<{width}}  {text}")
        return {"figures": dict(FIGURES)}
    try:
        sizes = {k: v for k, v in (("n", args.n), ("seeds", args.seeds)) if v is not None}
        from .figures import _core

        _core.QUIET = bool(args.quiet)
        written = run(args.name, quick=args.quick, out=args.out, **sizes)
    except FigureUnavailable as exc:
        raise SymrmtInputError(f"figure {args.name!r} is not available in this installation: {exc}") from None
    out = {"figure": args.name, "quick": bool(args.quick), "png": str(written["png"]), "csv": str(written["csv"])}
    if not args.json:
        print(f"{out['png']}\n{out['csv']}")
    return out


COMMANDS = {"hermite": cmd_hermite, "theory": cmd_theory, "simulate": cmd_simulate,
            "compare": cmd_compare, "latex": cmd_latex, "spectrum": cmd_spectrum, "demo": cmd_demo,
            "figure": cmd_figure}


def _check_plot_path(path: str) -> None:
    """Refuse, before any computation, a plot file that cannot be written."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.use("Agg")
    target = pathlib.Path(path).expanduser()
    formats = Figure().canvas.get_supported_filetypes()
    extension = target.suffix.lower().lstrip(".")
    if target.is_dir() or path.endswith(("/", os.sep)):
        raise SymrmtInputError(f"--plot {path!r}: is a folder; give a file name such as {str(target / 'compare.png')!r}.")
    if extension not in formats:
        raise SymrmtInputError(f"--plot {path!r}: unknown extension {target.suffix!r}; use one of "
                               f"{', '.join('.' + f for f in sorted(formats))}.")
    parent = target.parent
    if not parent.is_dir():
        raise SymrmtInputError(f"--plot {path!r}: the folder {str(parent)!r} does not exist; create it first.")
    if not os.access(parent, os.W_OK):
        raise SymrmtInputError(f"--plot {path!r}: the folder {str(parent)!r} is not writable.")


def _check_finite_numbers(args: argparse.Namespace) -> None:
    """argparse's ``type=float`` accepts nan and inf: no option of symrmt means anything with them."""
    for name, value in vars(args).items():
        if isinstance(value, float) and not np.isfinite(value):
            flag = "--" + name.replace("_", "-")
            raise SymrmtInputError(f"{flag} {value}: must be a finite number.")


def _parse_arguments(parser: argparse.ArgumentParser, argv):
    """``(args, None)``, or ``(None, status)`` after argparse refused: its usage text is cut to one line."""
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            return parser.parse_args(argv), None
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 2
        text = captured.getvalue()
        if status == 0:
            sys.stderr.write(text)
        else:
            lines = [line for line in text.splitlines() if line.strip()]
            print(lines[-1] if lines else "symrmt: error: bad arguments", file=sys.stderr)
            status = 2
        return None, status


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"symrmt: warning: {_one_line(message) if isinstance(message, Warning) else message}", file=sys.stderr)


# -- sweep: grids of points in a resumable JSONL file (symrmt/sweep.py) ------------------------

def _add_sweep_parser(sub) -> None:
    p = sub.add_parser("sweep", help="theory and Monte Carlo on a grid of settings, resumable (--summary to tabulate)",
                       description="Run every point of SPEC (JSON or TOML; format in symrmt.sweep), appending one "
                                   "JSON line per finished point to --out; rerun the same command to resume. "
                                   "Or tabulate a result file with --summary.")
    p.add_argument("spec", nargs="?", metavar="SPEC", help="the sweep spec, a .json or .toml file")
    p.add_argument("--out", metavar="FILE.jsonl", help="result file (created, or resumed if from the same spec)")
    p.add_argument("--workers", type=int, metavar="N", help="local worker processes (default: the usable CPUs)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786 "
                                                          "(needs pip install 'symrmt[dask]')")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--summary", metavar="FILE.jsonl", help="print means and standard errors over seeds of a result "
                                                           "file and write them as CSV")
    p.add_argument("--csv", metavar="PATH", help="with --summary: the CSV file (default FILE.summary.csv)")
    p.add_argument("--json", action="store_true", help="print JSON (the run's counts, or the summary rows)")


def cmd_sweep(args) -> dict:
    from . import sweep

    if args.summary is not None:
        if args.spec is not None or args.out is not None:
            raise SymrmtInputError("--summary FILE reads a result file; give it without SPEC and --out.")
        return _sweep_summary(args, sweep)
    if args.spec is None or args.out is None:
        raise SymrmtInputError("give SPEC and --out FILE.jsonl to run a sweep, or --summary FILE to tabulate one.")
    try:
        spec = sweep.load_spec(args.spec)
        out = sweep.run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                              progress=not args.quiet)
    except KeyboardInterrupt:
        print(f"symrmt sweep: interrupted; finished points are in {args.out}. Run the same command to resume.",
              file=sys.stderr)
        raise SystemExit(130) from None
    if not args.json:
        dropped = f"; dropped a partial last line ({out['dropped_bytes']} bytes)" if out["dropped_bytes"] else ""
        print(f"{out['out']}: {out['points']} points, {out['computed']} computed now, "
              f"{out['skipped']} already there{dropped}")
    return out


def _sweep_summary(args, sweep) -> dict:
    info, rows = sweep.summarize(args.summary)
    path = sweep.write_summary_csv(rows, args.csv or sweep.default_csv_path(args.summary))
    if not args.json:
        print(f"{args.summary}: {info['finished']} of {info['points']} points (mean ± standard error over seeds)")
        geometries = list(dict.fromkeys(json.dumps(r["geometry"], sort_keys=True) for r in rows))
        print(f"{'f':>10} {'c':>6} {'d':>6} {'geom':>4} {'n':>6} {'gamma':>9} {'seeds':>5} | "
              f"{'attn theory':>11} {'attn MC':>18} | {'lin theory':>10} {'lin MC':>18}")
        for r in rows:
            g = geometries.index(json.dumps(r["geometry"], sort_keys=True))
            print(f"{r['f']:>10} {r['c']:6.3g} {r['d']:6.3g} {'g' + str(g):>4} {r['n']:6d} {r['gamma']:9.4g} "
                  f"{r['seeds']:5d} | {_cell(r['attention_theory'], 11)} {_cell(r['attention_mean'], 8)} ± "
                  f"{_cell(r['attention_se'], 7)} | {_cell(r['linear_theory'], 10)} {_cell(r['linear_mean'], 8)} ± "
                  f"{_cell(r['linear_se'], 7)}")
        for g, text in enumerate(geometries):
            print(f"  g{g} = {text}")
        print(f"CSV written to {path}")
    return {**info, "csv": str(path), "rows": rows}


def _cell(value, width: int) -> str:
    return f"{value:{width}.5f}" if value is not None and np.isfinite(value) else f"{'-':>{width}}"


COMMANDS["sweep"] = cmd_sweep


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``symrmt`` console script; returns the exit status.

    Exit statuses: 0 done; 2 bad input (any :class:`~symrmt.errors.SymrmtInputError`, and
    argparse's refusals); 3 valid input that did not converge
    (:class:`~symrmt.errors.ConvergenceError`); 1 a bug. Every failure is one line on
    stderr; ``--debug`` adds the traceback. Floating-point warnings of NumPy (from
    generated code) are not shown: results are checked for non-finite values instead.
    """
    parser = build_parser()
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    args, status = _parse_arguments(parser, argv)
    if args is None:
        return status
    command = f"symrmt {args.command}"
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)      # NumPy's warnings from generated code
            warnings.showwarning = _show_warning
            _check_finite_numbers(args)
            if getattr(args, "plot", None) and args.command in ("compare", "simulate"):
                if args.command == "simulate" and not args.spectrum:
                    raise SymrmtInputError("simulate --plot draws the eigenvalue histogram: add --spectrum "
                                           "(for the error curves against the theory use compare --plot).")
                _check_plot_path(args.plot)
            out = COMMANDS[args.command](args)
            text = json.dumps(out, indent=2, allow_nan=False) if getattr(args, "json", False) else None
    except SymrmtInputError as exc:
        _report(args, f"{command}: error: {_one_line(exc)}")
        return 2
    except ConvergenceError as exc:
        _report(args, f"{command}: the solver did not converge: {_one_line(exc)}")
        return 3
    except Exception as exc:  # noqa: BLE001 - the boundary: anything else is a bug, said in one line
        _report(args, f"{command}: internal error ({type(exc).__name__}: {_one_line(exc)[:300]}); this is a bug, "
                      "please report it with the command line (run with --debug for the traceback)")
        return 1
    if text is not None:
        print(text)
    return 0


def _report(args: argparse.Namespace, line: str) -> None:
    if args.debug:
        traceback.print_exc()
    print(line, file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

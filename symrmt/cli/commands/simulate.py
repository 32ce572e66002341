"""``symrmt simulate`` and ``compare``: the Monte Carlo of the finite model, alone or beside the theory."""
from __future__ import annotations

import argparse

import numpy as np
from sympy import latex

from ... import hermite, spectral_density
from ...analysis.agreement import agreement_of, verdict_seeds
from ...errors import SymrmtInputError
from ...geometry import Geometry
from ..arguments import (add_attention, add_common, add_f, add_geometry, add_mc, add_params, attention_kwargs,
                         attention_model, check_attention, check_c, geometry, geometry_kwargs, parameter_values,
                         single_point)
from ..failures import add_strict, print_failures
from ..output import cell
from ..paths import PLOT_FORMATS, check_output_file
from ...models.cli_hooks import FixedF
from .theory import describe, theory_curves
from ...presentation.plotting import comparison_panel, comparison_title, plot_panels, plot_spectrum
from ...runtime.cost import check_seconds

__all__ = ["add_simulate", "add_compare", "cmd_simulate", "cmd_compare"]


def add_simulate(sub) -> None:
    p = _add_monte_carlo(sub, "simulate", "Monte Carlo of the finite model (docs/theory.md section 1)",
                         "with --spectrum: the histogram of the eigenvalues under the predicted density")
    p.add_argument("--tokens", metavar="LAW", default=None,
                   help="the law of the noise tokens' entries: gaussian (default, the theory's), rademacher, "
                        "two_point:Q, student_t:NU (NU > 4), sparse:S; each centred with unit variance, its fourth "
                        "moment m4 printed")
    p.add_argument("--test-tokens", metavar="N", type=int, default=None,
                   help="also the in-context test error of the same probe on N fresh tokens per draw")


def add_compare(sub) -> None:
    p = _add_monte_carlo(sub, "compare", "theory and Monte Carlo side by side", "also write a plot")
    add_strict(p)
    # A verdict needs seeds with power: by default as many as detect a 3% miss with probability 0.8 at --n.
    seeds = next(action for action in p._actions if action.dest == "seeds")
    seeds.default = None
    seeds.help = ("independent draws, at least 2 (default: as many as detect a 3%% miss of the theory with "
                  "probability 0.8 at --n, about 27 * 1024/n; the verdict states the power of the seeds used)")


def _add_monte_carlo(sub, name: str, help: str, plot_help: str) -> argparse.ArgumentParser:
    """A command with the flags of f, c and gamma, the geometry, the Monte Carlo, and ``--plot``."""
    p = sub.add_parser(name, help=help)
    add_f(p, required=False)
    add_attention(p, normalize=True)
    add_common(p)
    add_geometry(p)
    add_params(p)
    add_mc(p)
    p.add_argument("--plot", metavar="FILE.png", help=plot_help + " (.png, .pdf or .svg)")
    return p


def _hermite(args: argparse.Namespace):
    """The Hermite data of f at the ``--param`` values, centered with ``--center``: what the Monte Carlo draws
    with (the simulator refuses it if it is not centered); None for a model that fixes f (softmax attention)."""
    check_attention(args)
    if not attention_model(args).takes_f:
        return None
    return hermite(args.f, center=args.center, params=single_point(parameter_values(args)) or None)


def _params_json(args: argparse.Namespace) -> dict:
    """``{"params": {NAME: value}}`` when ``--param`` is given (one value each), else nothing."""
    return {"params": {name: float(values[0]) for name, values in args.param}} if args.param else {}


def _check_time(args: argparse.Namespace) -> None:
    """Refuse a run estimated over five minutes without --allow-long (symrmt.simulation.memory.seconds_estimate)."""
    from ...simulation.memory import available_memory, memory_estimate, seconds_estimate  # heavy: SciPy

    check_c(args.c)
    if not 2 <= args.n <= 2**40 or not args.c * args.n <= 2**40:   # the simulator's own readers word these
        return
    p = max(1, int(round(args.c * args.n)))
    budget = available_memory()
    if budget is not None and memory_estimate(args.n, p, args.seeds, len(args.gamma), args.method,
                                              args.matrix if args.spectrum else None) > budget:
        return                                     # the simulator refuses it by its memory, the first limit
    seconds = seconds_estimate(args.n, p, args.seeds, len(args.gamma), args.spectrum)
    check_seconds(seconds, f"n = {args.n}, p = {p}, {args.seeds} seeds, {len(args.gamma)} gamma",
                  "Use fewer seeds or a smaller n", args.allow_long)


def _simulate(args: argparse.Namespace, geometry: Geometry | None):
    from ... import simulate  # heavy: SciPy

    check_c(args.c)
    extra = {"tokens": args.tokens, "test_tokens": args.test_tokens} if args.command == "simulate" else {}
    return simulate(_hermite(args), n=args.n, c=args.c, gamma=args.gamma, d=args.diag, seeds=args.seeds, seed=args.seed,
                    method=args.method, progress=not args.quiet, **geometry_kwargs(args, geometry),
                    **attention_kwargs(args), **extra)


def _eigenvalues(args: argparse.Namespace, geometry: Geometry | None) -> list[float]:
    """The pooled eigenvalues of ``--spectrum``: the same seeds, hence the same draws, as the simulation."""
    from ... import simulate_spectrum  # heavy: SciPy

    return simulate_spectrum(_hermite(args), n=args.n, c=args.c, matrix=args.matrix, d=args.diag, seeds=args.seeds,
                             seed=args.seed, progress=not args.quiet, **geometry_kwargs(args, geometry),
                             **attention_kwargs(args)).tolist()


def _check_matrix(args: argparse.Namespace) -> None:
    """--matrix only chooses whose eigenvalues --spectrum keeps: without --spectrum it would be ignored in silence."""
    if args.matrix != "gram" and not args.spectrum:
        raise SymrmtInputError(f"--matrix {args.matrix} chooses the matrix of --spectrum: add --spectrum, or leave "
                               "--matrix out.")


def cmd_simulate(args: argparse.Namespace) -> dict:
    _check_matrix(args)
    if args.spectrum and args.tokens not in (None, "gaussian"):
        raise SymrmtInputError("--tokens applies to the errors; --spectrum draws Gaussian tokens: leave one out.")
    if args.plot:
        if not args.spectrum:
            raise SymrmtInputError("simulate --plot draws the eigenvalue histogram: add --spectrum "
                                   "(for the error curves against the theory use compare --plot).")
        check_output_file(args.plot, "--plot", PLOT_FORMATS)
    shape = geometry(args)
    _check_time(args)
    eigenvalues = _eigenvalues(args, shape) if args.spectrum else None  # first: refuses kernel for w_K != w_Q
    result = _simulate(args, shape)
    out = {**result.as_dict(), **_params_json(args)}
    if eigenvalues is not None:
        out["eigenvalues"], out["matrix"] = eigenvalues, args.matrix
    if args.plot:
        out["plot"] = _spectrum_plot(args, shape, np.asarray(eigenvalues))
    if not args.json:
        _print_simulation(result, eigenvalues, args.matrix)
    return out


def _print_simulation(result, eigenvalues: list[float] | None, matrix: str) -> None:
    law = "" if result.tokens is None else (f"; tokens {result.tokens['name']}, m4 = {result.tokens['m4']:.4g}"
                                            + (f" ± {result.tokens['m4_error']:.2g}" if result.tokens["m4_error"] else ""))
    print(f"Monte Carlo: n = {result.n}, p = {result.p}, {result.seeds} seeds (mean ± standard error){law}")
    test = result.test
    print(f"{'gamma':>10} {'E_attn':>18} {'E_lin':>18}" + ("" if test is None else f" {'E_attn test':>18} {'E_lin test':>18}"))
    for i, g in enumerate(result.gamma):
        row = (f"{g:10.4g} {result.attention_mean[i]:10.5f} ± {result.attention_se[i]:.5f}"
               f" {result.linear_mean[i]:10.5f} ± {result.linear_se[i]:.5f}")
        if test is not None:
            row += (f" {test.attention_mean[i]:10.5f} ± {test.attention_se[i]:.5f}"
                    f" {test.linear_mean[i]:10.5f} ± {test.linear_se[i]:.5f}")
        print(row)
    if eigenvalues is not None:
        print(f"{len(eigenvalues)} eigenvalues of the {matrix} matrix (pooled) in "
              f"[{min(eigenvalues):.6g}, {max(eigenvalues):.6g}]; --json lists them")


def _fixed_f(args: argparse.Namespace) -> FixedF | None:
    """The f the model ``--attention`` picks fixes (softmax's, at its temperature), or None if it takes ``--f``."""
    model = attention_model(args)
    return None if model.takes_f else model.fixed_f(**model.arguments(vars(args)))


def _theory_f(args: argparse.Namespace):
    """What the theory takes as f: the Hermite data of ``--f``, or the fixed f's ``(a_1, nu)``."""
    fixed = _fixed_f(args)
    return _hermite(args) if fixed is None else fixed.pair()


def _label(args: argparse.Namespace) -> str:
    fixed = _fixed_f(args)
    return f"f = {_hermite(args).f}" if fixed is None else fixed.label()


def _f_tex(h, latex) -> str:
    """f in LaTeX for the plot's title; a fixed f (softmax): its own words (:meth:`FixedF.tex`)."""
    if isinstance(h, FixedF):
        return h.tex()
    return latex(h.f)


def _spectrum_plot(args: argparse.Namespace, geometry: Geometry | None, eigenvalues: np.ndarray) -> str:
    """The simulated eigenvalues' histogram under the predicted density (eta = 0), written to ``args.plot``."""
    h = _theory_f(args)
    lo, hi = np.quantile(eigenvalues, [0.0, 0.995]) if args.matrix == "gram" else \
        np.quantile(eigenvalues, [0.0025, 0.9975])
    start = max(lo, 1e-3 * hi) if args.matrix == "gram" else lo      # a hair above a hard edge at 0
    x = np.linspace(start, hi, 300)
    # Hermite data given as numbers (softmax's: nu = Var e^(xi/tau) = 4.5e9 at tau = 0.3) put the K^T X^T X K/n
    # eigenvalues at order nu, beyond the x the theory takes: they are nu times those of f/sqrt(nu), whose data
    # (a_1/sqrt(nu), 1) keep x of order one. The identity holds for every f; formulas keep their own scale.
    scale, f = (h[1], (h[0] / np.sqrt(h[1]), 1.0)) if isinstance(h, tuple) else (1.0, h)
    density = spectral_density(f, args.c, x / scale, matrix=args.matrix, d=args.diag, geometry=geometry,
                               gram=args.gram)
    title = (f"{'K^T X^T X K/n' if args.matrix == 'gram' else 'K'}: {_label(args)}, c = {args.c}, d = {args.diag}; "
             f"n = {args.n}, {args.seeds} seeds; mass at 0: {density.atom:.3g}")
    return plot_spectrum(eigenvalues, x, density.density / scale, args.plot, title, (lo, hi))


def cmd_compare(args: argparse.Namespace) -> dict:
    _check_matrix(args)
    if args.plot:
        check_output_file(args.plot, "--plot", PLOT_FORMATS)
    if args.seeds is None:
        args.seeds = verdict_seeds(args.n)
    shape = geometry(args)
    _check_time(args)
    h, attention, linear, failed = theory_curves(args, shape)
    eigenvalues = _eigenvalues(args, shape) if args.spectrum else None
    mc = _simulate(args, shape)
    agreement = _agreement(args, h, mc, attention, linear)
    out = {"gamma": args.gamma.tolist(),
           "theory": {"attention": attention.tolist(), "linear": linear.tolist(), "failed": failed},
           "simulation": mc.as_dict(), "agreement": agreement.as_dict(), **_params_json(args)}
    if eigenvalues is not None:
        out["simulation"]["eigenvalues"], out["simulation"]["matrix"] = eigenvalues, args.matrix
    if not args.json:
        _print_comparison(h, args.c, agreement, mc)
        print_failures(failed)
    if args.plot:
        grid = np.logspace(np.log10(args.gamma.min()) - 0.3, np.log10(args.gamma.max()) + 0.3, 120)
        theory_f = h.pair() if isinstance(h, FixedF) else h
        panel = comparison_panel("", theory_f, args.c, grid, shape, args.diag, mc, gram=args.gram,
                                 agreement=agreement)
        title = f"{comparison_title(_f_tex(h, latex), mc)}\nverdict: {agreement.overall} (marked points: |z| > t)"
        out["plot"] = plot_panels([panel], args.plot, title=title)
        if not args.json:
            print(f"plot written to {args.plot}")
    return out


def _agreement(args: argparse.Namespace, h, mc, attention, linear):
    """The verdicts of the comparison (:func:`symrmt.analysis.agreement.agreement_of`) at the simulated ridges."""
    if isinstance(h, FixedF):
        kwargs = attention_kwargs(args)
        return agreement_of(mc, attention, linear, a1=h.a1, nu=h.nu, **h.options,
                            normalize=kwargs.get("normalize"))
    return agreement_of(mc, attention, linear, a1=float(h.a1), nu=float(h.nu), f=str(h.f))


def _print_comparison(h, c: float, agreement, mc) -> None:
    """The table: per gamma and quantity, the theory, the Monte Carlo (mean ± s.e.), z = (MC - theory)/se and
    the verdict; then the overall verdict and, where it is undecided, the converge command."""
    print(f"{describe(h)}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}; c = {c}; Monte Carlo n = {mc.n}, {mc.seeds} seeds")
    print(f"z = (MC - theory)/se; |z| <= t_{mc.seeds - 1} = {agreement.quantile:.2f} is inside the 95% t interval")
    print(f"{'gamma':>9} | {'attn theory':>11} {'attn MC':>17} {'z':>6} {'verdict':<15} | "
          f"{'lin theory':>10} {'lin MC':>17} {'z':>6} {'verdict':<15}")
    attention, linear = agreement.attention, agreement.linear
    for i, g in enumerate(mc.gamma):
        print(f"{g:9.4g} | {cell(attention.theory[i], 11)} {mc.attention_mean[i]:9.5f} ± {mc.attention_se[i]:.4f} "
              f"{_z(attention.z[i])} {attention.verdicts[i]:<15} | {cell(linear.theory[i], 10)} "
              f"{mc.linear_mean[i]:9.5f} ± {mc.linear_se[i]:.4f} {_z(linear.z[i])} {linear.verdicts[i]:<15}")
    for line in agreement.lines():
        print(line)


def _z(value: float) -> str:
    return f"{value:+6.1f}" if np.isfinite(value) else f"{'-':>6}"

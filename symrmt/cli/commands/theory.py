"""``symrmt theory``, ``spectrum`` and ``latex``: the deterministic equivalents, the density, the printed system."""
from __future__ import annotations

import argparse
import csv

import numpy as np

from ... import hermite, latex, models, solve_attention, solve_linear, spectral_density
from ...errors import SymrmtInputError, shown
from ...geometry import Geometry, gram_rank
from ...models.cli_hooks import FixedF, default_attention
from ...theory import solve_model
from ...theory.softmax import SoftmaxData
from ...theory.forms import DEFAULT_FORM, FORMS, check_compile_cost
from ...theory.latex import MAX_DIGITS, MAX_RANK
from ..arguments import add_hermite_flags, GRID, GRID_HELP, integer_argument
from ..arguments import (add_attention, add_common, add_f, add_geometry, add_params, argument_type, attention_model,
                         axis_parser, check_attention, check_c, geometry, parameter_axes, parameter_values,
                         picked_model, single_point)
from ..failures import add_strict, failed_points, print_failures, settle
from ..output import cell
from ..grids import AXES, collapse_axes, grid_axes, gram_grid
from ..paths import check_output_file
from ...runtime.files import write_atomically, write_text_atomically
from ..values import parse_grid
from .theory_kind import kind_theory, theory_kinds
from .theory_weights import add_weights_arguments, refuse_weights_flags, weights_theory

_FORM_HELP = ("form of the derived system: auto (the default: algebraic, quadrature where it does not hold; "
              "faster), algebraic (closed-form averages, no quadrature) or quadrature (the reference)")

__all__ = ["add_theory", "add_latex", "add_spectrum", "cmd_theory", "cmd_latex", "cmd_spectrum", "theory_curves",
           "SoftmaxData", "describe", "MAX_RANK", "MAX_DIGITS"]


def add_theory(sub) -> None:
    p = sub.add_parser("theory", help="deterministic equivalents of E_attn and E_lin")
    add_f(p, required=False)
    add_hermite_flags(p)
    add_attention(p)
    add_common(p, grids=True)
    add_geometry(p, grids=True)
    add_params(p, grids=True)
    add_strict(p)
    p.add_argument("--form", choices=FORMS, default=DEFAULT_FORM, help=_FORM_HELP)
    p.add_argument("--csv", metavar="FILE.csv", default=None,
                   help="also write the points as CSV, one row per point (replaced atomically if it exists)")
    p.add_argument("--allow-long", action="store_true",
                   help="solve with a --gram of high rank although its systems take minutes to compile (refused "
                        "otherwise, with the estimate)")
    add_weights_arguments(p)
    p.add_argument("--kind", choices=theory_kinds(), default=None,
                   help="the theory of any registered model over --gamma, with the flags it takes (default: attention "
                        "and linear regression side by side)")
    p.add_argument("--rank", type=integer_argument, default=None, metavar="K",
                   help="with --kind NAME: the rank argument of a model that takes one (the singular part kept)")


def add_latex(sub) -> None:
    p = sub.add_parser("latex", help="print the derived system as LaTeX")
    add_f(p, required=False)
    add_hermite_flags(p, shows_closed_forms=True)
    add_params(p)
    p.add_argument("--kind", choices=models.names(), default=models.ATTENTION.name,
                   help="the model whose system is printed (default: %(default)s); a model solved numerically prints "
                        "its own statement where it gives one")
    p.add_argument("--rank", type=integer_argument, default=None,
                   help=f"rank r of the attention weights, 1..{MAX_RANK} (default 1)")
    p.add_argument("--digits", type=integer_argument, default=None,
                   help=f"significant digits of numbers put in with --f, 1..{MAX_DIGITS} (default 6)")
    p.add_argument("--numeric", action="store_true",
                   help="print f's data a_1, b^2 and nu as numbers (--digits significant digits) where their "
                        "symbols stand, the equations keeping their form: a_1 (lambda - 1) becomes "
                        "0.605706 (lambda - 1) for tanh (default: they stay symbols, their values are given once)")
    p.add_argument("--document", metavar="FILE.tex", default=None,
                   help="write a complete LaTeX document (numbered, labelled equations) instead of printing fragments")
    p.add_argument("--body", metavar="FILE.tex", default=None,
                   help="write the body of a paper to \\input (amsmath, amssymb): the model, its numbered and "
                        "labelled equations, the definitions")
    p.add_argument("--part", action="append", choices=("model", "assumptions", "theorem", "definitions"),
                   default=None,
                   help="with --body or --document: print only this part (repeatable; default all): the model, its "
                        "assumptions (a numbered list), the theorem (the statement and its system) or the "
                        "definitions (f's data), so that a paper with several nonlinearities states the model and "
                        "the assumptions once")
    p.add_argument("--theorem-env", metavar="NAME", default=None,
                   help="with --body or --document: the environment of the statement, e.g. proposition (default: "
                        "theorem where it is proven, claim where it is heuristic; define it with amsthm's "
                        "\\newtheorem)")
    p.add_argument("--label-prefix", default=None,
                   help="prefix of the \\label's of --body and --document (default: the system's name, e.g. "
                        "attention), so that two systems can share one paper")
    p.add_argument("--solver-data", action="store_true",
                   help="also print the solver's data (continuation start, branch conditions, admissible ranges), "
                        "in an environment symrmtsolverdata of their own with --body or --document")
    p.add_argument("--form", choices=FORMS, default="quadrature",
                   help="form printed: quadrature (spectral averages E_lambda, the default) or algebraic "
                        "(polynomial equations, no average; auto prints it too)")
    p.add_argument("--weights", action="store_true",
                   help="the system for any weight matrix M (scores X^T M X/sqrt(p)) with M kept symbolic: scalar "
                        "equations in normalized traces of words in M, M^T and p x p resolvents (docs/theory.md, "
                        "section 18); with --f, --body, --document, --label-prefix")
    p.add_argument("--json", action="store_true")


def add_spectrum(sub) -> None:
    p = sub.add_parser("spectrum", help="predicted eigenvalue density of K^T X^T X K/n or of K")
    add_f(p)
    add_hermite_flags(p)
    p.add_argument("--c", type=axis_parser("c"), required=True, metavar=f"C|C1,C2,...|{GRID}",
                   help="c = p/n > 0 (a list or grid: one density per value)")
    p.add_argument("--x", type=argument_type(parse_grid), required=True, metavar=f"{GRID}|x1,x2,...",
                   help=f"the points x of the density: a list or a grid; {GRID_HELP}")
    p.add_argument("--eta", type=float, default=0.0, help="distance to the real axis (default 0: the density itself)")
    p.add_argument("--matrix", choices=("gram", "kernel"), default="gram",
                   help="gram: K^T X^T X K/n (default); kernel: K itself (symmetric weights only)")
    add_geometry(p, diag_grid=True)
    add_params(p, grids=True)
    add_strict(p)
    p.add_argument("--form", choices=FORMS, default=DEFAULT_FORM, help=_FORM_HELP)
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")


def describe(h) -> str:
    """``f = ...``, or for a model that fixes f (softmax attention) its own words (:meth:`FixedF.describe`)."""
    if isinstance(h, FixedF):
        return h.describe()
    return f"f = {h.f}"


def theory_curves(args: argparse.Namespace, geometry: Geometry | None):
    """``(h, E_attn, E_lin, failed)`` of ``args``: the Hermite data, both curves over ``args.gamma``, failed points.

    With one value per ``--param``, ``h`` is the data at that point; with grids, ``h`` keeps its
    parameters and the attention error has one axis per parameter, in the order given, and γ last.
    The curves are masked arrays (null in JSON) where the solver failed; ``failed`` lists those
    points (:func:`symrmt.cli.failures.failed_points`), and :func:`~symrmt.cli.failures.settle`
    has decided the status (an error if all failed or with ``--strict``). With a model that fixes f (``--attention
    softmax``), ``h`` is its :class:`~symrmt.models.cli_hooks.FixedF` and its curve is the model's own theory (all or
    nothing).
    """
    check_c(args.c)
    check_attention(args)
    model = attention_model(args)
    if not model.takes_f:
        return _fixed_f_curves(args, model, geometry)
    params = parameter_values(args, len(args.gamma))
    h = hermite(args.f, center=args.center)
    point = single_point(params)
    if point is not None:
        h = h.at(**point)
    grids = parameter_axes(params, trailing=1) if point is None else None
    form = getattr(args, "form", "auto")
    attention = solve_attention(h, args.c, args.gamma, geometry, args.diag, gram=args.gram, params=grids,
                                partial=True, form=form)
    linear = solve_linear(args.c, args.gamma, geometry, gram=args.gram, partial=True, form=form)
    axes = [*((k, v) for k, v in params.items() if point is None), ("gamma", args.gamma)]
    failed = (failed_points(attention.failures, axes, "attention")
              + failed_points(linear.failures, [("gamma", args.gamma)], "linear"))
    settle(failed, attention.error.size + linear.error.size, args.strict)
    return h, attention.error, linear.error, failed


def _fixed_f_curves(args: argparse.Namespace, model, geometry: Geometry | None):
    """:func:`theory_curves` for a model that fixes f: its theory (:func:`symrmt.theory.solve_model`, all or nothing),
    and linear regression's with its failed points."""
    options = model.arguments(vars(args))
    h = model.fixed_f(**options)
    attention = np.ma.masked_array(solve_model(model.model, c=args.c, gamma=args.gamma, geometry=geometry,
                                               gram=args.gram, **options).error)
    linear = solve_linear(args.c, args.gamma, geometry, gram=args.gram, partial=True)
    failed = failed_points(linear.failures, [("gamma", args.gamma)], "linear")
    settle(failed, attention.size + linear.error.size, args.strict)
    return h, attention, linear.error, failed


def cmd_theory(args: argparse.Namespace) -> dict:
    if args.kind is not None:
        return kind_theory(args)
    return _LAYOUTS[picked_model(args).layout](args)


def _curves_theory(args: argparse.Namespace) -> dict:
    """``symrmt theory`` of the attention model ``--attention`` picks, beside linear regression: one row per gamma
    (the ``curves`` layout), or one per point of grids of c, d and the geometry."""
    refuse_weights_flags(args)
    if args.rank is not None:
        raise SymrmtInputError("--rank is the rank argument of a model picked with --kind NAME; give --kind, or leave "
                               "--rank out.")
    if args.csv is not None:
        check_output_file(args.csv, "--csv", ("csv",))
    if args.gram is not None:
        check_compile_cost(gram_rank(args.gram), args.allow_long)
    axes = grid_axes(args)
    if axes:
        return _theory_points(args, axes)
    collapse_axes(args)
    h, attention, linear, failed = theory_curves(args, geometry(args))
    params = dict(args.param)
    if h.parameters:
        return _theory_grid(args, h, params, attention, linear, failed)
    point = {k: float(v[0]) for k, v in params.items()}
    out = {"gamma": args.gamma.tolist(), "attention": attention.tolist(), "linear": linear.tolist(),
           "a1": h.a1, "nu": h.nu, **({"params": point} if point else {}), "failed": failed}
    if isinstance(h, FixedF):
        out.update(f=h.f, **h.options)
    if args.csv is not None:
        _write_points(args.csv, ["gamma", "attention", "linear"],
                      zip(args.gamma, np.ma.filled(attention, np.nan), np.ma.filled(linear, np.nan)))
    if not args.json:
        at = "".join(f", {k} = {v:g}" for k, v in point.items())
        shown = describe(h) if isinstance(h, FixedF) else f"f = {args.f}"
        print(f"{shown}{at}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, np.ma.filled(attention, np.nan), np.ma.filled(linear, np.nan)):
            print(f"{g:10.4g} {cell(a, 10)} {cell(l, 10)}")
        print_failures(failed)
    return out


def _theory_points(args: argparse.Namespace, axes: dict[str, np.ndarray]) -> dict:
    """Grids of c, d or the geometry: one output axis each (then f's parameters, then gamma), one row per point."""
    check_attention(args)
    if not attention_model(args).grids:
        raise SymrmtInputError(f"grids of {', '.join('--' + k.replace('_', '-') for k in axes)} are for "
                               f"{default_attention()} attention; for {args.attention} give one value each and a grid "
                               "of --gamma.")
    params = parameter_values(args, len(args.gamma) * int(np.prod([len(v) for v in axes.values()])))
    h = hermite(args.f, center=args.center)
    names = [*axes, *params, "gamma"]
    shaped = parameter_axes({**axes, **params, "gamma": args.gamma})
    values = {name: shaped[name] if name in shaped else _single(args, name) for name in AXES}
    gram = gram_grid(args, values)
    grids = {k: shaped[k] for k in params} or None
    form = getattr(args, "form", "auto")
    attention = solve_attention(h, values["c"], shaped["gamma"], d=values["diag"], gram=gram, params=grids,
                                partial=True, form=form)
    linear = solve_linear(values["c"], shaped["gamma"], gram=gram, partial=True, form=form)
    shape = np.broadcast_shapes(*(v.shape for v in shaped.values()))
    columns = [np.broadcast_to(shaped[name], shape).ravel() for name in names]
    e_attn = np.ma.filled(np.broadcast_to(attention.error, shape), np.nan).ravel()
    e_lin = np.ma.filled(np.broadcast_to(linear.error, shape), np.nan).ravel()
    axes_list = [(name, np.ravel(shaped[name])) for name in names]
    failed = failed_points(attention.failures, axes_list, "attention") + failed_points(linear.failures, axes_list,
                                                                                          "linear")
    settle(failed, 2 * e_attn.size, args.strict)
    header = [*names, "attention", "linear"]
    rows = list(zip(*columns, e_attn, e_lin))
    if args.csv is not None:
        _write_points(args.csv, header, rows)
    out = {"f": args.f, "columns": header,
           "points": [{k: (None if not np.isfinite(v) else float(v)) for k, v in zip(header, row)} for row in rows],
           "failed": failed}
    if not args.json:
        print(f"f = {h.f} on the grid of {', '.join(names)} (one row per point; E_lin does not depend on f or d)")
        print(" ".join(f"{n:>10}" for n in [*names, "E_attn", "E_lin"]))
        for row in rows:
            print(" ".join(f"{v:10.4g}" for v in row[:-2]) + f" {cell(row[-2], 10)} {cell(row[-1], 10)}")
        print_failures(failed)
    return out


#: How ``symrmt theory`` prints each layout a model declares (:data:`symrmt.models.cli_hooks.LAYOUTS`).
_LAYOUTS = {"curves": _curves_theory, "matrix": weights_theory}


def _single(args: argparse.Namespace, name: str):
    """The one value of an axis flag that is not a grid (None for a geometry flag not given)."""
    value = getattr(args, name, None)
    return None if value is None else float(np.ravel(value)[0])


def _write_points(path: str, header: list[str], rows) -> None:
    """The points as CSV, one row per point, written atomically."""
    def write(stream) -> None:
        out = csv.writer(stream)
        out.writerow(header)
        out.writerows([("" if not np.isfinite(v) else repr(float(v))) for v in row] for row in rows)

    write_atomically(path, write)


def _theory_grid(args: argparse.Namespace, h, params: dict, attention, linear, failed: list) -> dict:
    """One axis per parameter, gamma last; the table has one row per (parameter point, gamma), with headers."""
    data = h.numeric(**parameter_axes(params))
    out = {"gamma": args.gamma.tolist(), "params": {k: v.tolist() for k, v in params.items()},
           "attention": attention.tolist(), "linear": linear.tolist(),
           "a1": data["a1"].tolist(), "nu": data["nu"].tolist(), "failed": failed}
    if not args.json:
        print(f"f = {h.f} on the grid of {', '.join(params)}; c = {args.c} (E_lin does not depend on f)")
        names = [*params, "a_1", "nu"]
        print(" ".join(f"{n:>10}" for n in [*names, "gamma", "E_attn", "E_lin"]))
        columns = np.broadcast_arrays(*parameter_axes(params).values(), data["a1"], data["nu"])
        cells = np.ma.filled(attention, np.nan).reshape(-1, len(args.gamma))
        lines = np.ma.filled(linear, np.nan)
        for i, row in enumerate(zip(*(c.ravel() for c in columns))):
            head = " ".join(f"{v:10.4g}" for v in row)
            for j, g in enumerate(args.gamma):
                print(f"{head} {g:10.4g} {cell(cells[i, j], 10)} {cell(lines[j], 10)}")
        print_failures(failed)
    return out


def cmd_latex(args: argparse.Namespace) -> dict:
    """``symrmt latex``: the system of the model the flags pick, printed as its layout says (``--weights``: general
    M's system in words of M, :func:`_weights_latex`; otherwise the derived system of ``--kind``)."""
    return _LATEX_LAYOUTS[picked_model(args).layout](args)


def _derived_latex(args: argparse.Namespace) -> dict:
    """``symrmt latex [--kind NAME]``: a registered model's derived system, or the statement of a numeric model
    (its latex hook; one line of refusal, exit 2, where it has none)."""
    _refuse_latex_flags(args)
    if not 1 <= args.rank <= MAX_RANK:
        raise SymrmtInputError(f"--rank {shown(args.rank)}: the rank must be in 1..{MAX_RANK} (the printed system "
                               "grows like r^2).")
    if not 1 <= args.digits <= MAX_DIGITS:
        raise SymrmtInputError(f"--digits {shown(args.digits)}: give 1..{MAX_DIGITS} significant digits "
                               f"(a float64 holds {MAX_DIGITS}).")
    model = models.get(args.kind)
    if args.document is not None and args.body is not None:
        raise SymrmtInputError("--document and --body: give one (the document is the body in a preamble).")
    target, flag = (args.body, "--body") if args.body is not None else (args.document, "--document")
    if target is not None:
        check_output_file(target, flag, ("tex",))
    if args.f is not None and model.derived and not _depends_on_f(model):
        given = [flag for flag, on in (("--center", args.center), ("--param", bool(args.param)),
                                       ("--numeric", args.numeric), ("--digits", args.digits_given)) if on]
        raise SymrmtInputError(f"the {model.name} model does not depend on f: leave out --f"
                               + (f" and {', '.join(given)}" if given else "") + ".")
    params = parameter_values(args, optional=True) if args.f is not None else {}
    text = latex(args.f, kind=args.kind, digits=args.digits if args.digits_given else None, rank=args.rank,
                 center=args.center,
                 params=single_point(params) if params else None, numeric=args.numeric,
                 document=args.document is not None, form=args.form, body=args.body is not None,
                 label_prefix=args.label_prefix, solver_data=args.solver_data, part=args.part,
                 theorem_env=args.theorem_env)
    out = {"kind": args.kind, "f": args.f, "form": args.form, "latex": text,
           **({"params": single_point(params)} if params else {})}
    _emit_latex(text, target, flag, args.json, out)
    if model.takes_rank:
        out["rank"] = args.rank
    return out


def _refuse_latex_flags(args: argparse.Namespace) -> None:
    """Refuse the flags that would change nothing (f's options without --f, --label-prefix without a labelled
    output, --rank for a model without one), and resolve the defaults of --rank and --digits."""
    args.digits_given, args.rank_given = args.digits is not None, args.rank is not None
    args.digits = 6 if args.digits is None else args.digits
    args.rank = 1 if args.rank is None else args.rank
    if args.f is None:
        given = [flag for flag, on in (("--center", args.center), ("--param", bool(args.param)),
                                       ("--numeric", args.numeric), ("--digits", args.digits_given)) if on]
        if given:
            raise SymrmtInputError(f"{', '.join(given)} without --f changes nothing: give "
                                   f"--f, or leave {'them' if len(given) > 1 else 'it'} out.")
    if args.label_prefix is not None and args.body is None and args.document is None:
        raise SymrmtInputError("--label-prefix names the \\label's of --body and --document; the printed fragments "
                               "have none: give --body or --document, or leave it out.")
    if args.rank_given and not models.get(args.kind).takes_rank:
        raise SymrmtInputError(f"--rank {shown(args.rank)}: the {args.kind} model takes no rank of weights; leave "
                               "--rank out.")


def _weights_latex(args: argparse.Namespace) -> dict:
    """``symrmt latex --weights``: the general-M system (:func:`symrmt.derive.general_weights.weights_latex`)."""
    from ...derive.general_weights import weights_latex  # heavy: SymPy
    from ...derive.paper import check_label_prefix  # heavy: SymPy

    given = [flag for flag, used in (("--kind", args.kind != models.ATTENTION.name), ("--rank", args.rank is not None),
                                     ("--numeric", args.numeric), ("--form", args.form != "quadrature"),
                                     ("--solver-data", args.solver_data), ("--param", bool(getattr(args, "param", None))),
                                     ("--digits", args.digits is not None)) if used]
    if given:
        raise SymrmtInputError(f"--weights cannot be combined with {', '.join(given)}: the general-M system keeps M "
                               "and f's Hermite data symbolic (give --f, --body or --document, --label-prefix).")
    if args.document is not None and args.body is not None:
        raise SymrmtInputError("--document and --body: give one (the document is the body in a preamble).")
    if args.label_prefix is not None:
        check_label_prefix(args.label_prefix)
        if args.body is None and args.document is None:
            raise SymrmtInputError("--label-prefix names the \\label's of --body and --document; the printed "
                                   "fragments have none: give --body or --document, or leave it out.")
    if args.center and args.f is None:
        raise SymrmtInputError("--center without --f changes nothing: give --f, or leave it out.")
    target, flag = (args.body, "--body") if args.body is not None else (args.document, "--document")
    if target is not None:
        check_output_file(target, flag, ("tex",))
    f = args.f
    if f is not None:
        from ...nonlinearity.api import hermite, printing_options  # heavy: SymPy
        with printing_options():
            f = hermite(f, center=args.center).f
    if (args.part or args.theorem_env is not None) and args.body is None and args.document is None:
        raise SymrmtInputError("--part and --theorem-env shape --body and --document; the printed fragments have "
                               "neither: give --body or --document, or leave them out.")
    text = weights_latex(body=args.body is not None, document=args.document is not None, f=f,
                         label_prefix=args.label_prefix, parts=args.part or None, theorem_env=args.theorem_env)
    out = {"kind": "weights", "f": args.f, "latex": text}
    _emit_latex(text, target, flag, args.json, out)
    return out


#: How ``symrmt latex`` prints each layout a model declares (:data:`symrmt.models.cli_hooks.LAYOUTS`).
_LATEX_LAYOUTS = {"curves": _derived_latex, "matrix": _weights_latex}


def _depends_on_f(model) -> bool:
    """Whether ``model``'s system takes f's Hermite data (a_1 among its parameters)."""
    from ...derive import symbols as S  # heavy: SymPy

    return S.a1 in model.system(1).parameters


def cmd_spectrum(args: argparse.Namespace) -> dict:
    axes = grid_axes(args)
    if axes:
        return _spectrum_points(args, axes)
    collapse_axes(args)
    check_c(args.c)
    params = parameter_values(args, len(args.x))
    h = hermite(args.f, center=args.center)
    point = single_point(params)
    if point is None:
        return _spectrum_grid(args, h, params)
    h = h.at(**point)
    result = spectral_density(h, args.c, args.x, eta=args.eta, matrix=args.matrix, d=args.diag,
                              geometry=geometry(args), gram=args.gram, partial=True, form=args.form)
    failed = failed_points(result.failures, [("x", result.x)])
    settle(failed, result.x.size, args.strict)
    out = {**result.as_dict(), **({"params": point} if point else {})}
    if not args.json:
        at = "".join(f", {k} = {v:g}" for k, v in point.items())
        print(f"f = {args.f}{at}: a_1 = {h.a1:.6g}, nu = {h.nu:.6g}, c = {args.c}; density of the {args.matrix} "
              f"matrix, eta = {args.eta}; atom at 0: {out['atom']:.6g}")
        print(f"{'x':>10} {'density':>12}")
        for x, rho in zip(result.x, np.ma.filled(result.density, np.nan)):
            print(f"{x:10.4g} " + (f"{rho:12.6g}" if np.isfinite(rho) else f"{'-':>12}"))
        print_failures(failed)
    return out


def _spectrum_points(args: argparse.Namespace, axes: dict[str, np.ndarray]) -> dict:
    """Lists or grids of c and d: one density per point (then f's parameters), one row per (point, x)."""
    params = parameter_values(args, len(args.x) * int(np.prod([len(v) for v in axes.values()])))
    h = hermite(args.f, center=args.center)
    names = [*axes, *params]
    grid = [np.ravel(v) for v in np.meshgrid(*axes.values(), *params.values(), indexing="ij")]
    shown = geometry(args)
    header, rows, atoms = [*names, "x", "density"], [], []
    for values in zip(*grid):
        point = dict(zip(names, values))
        data = h.at(**{k: point[k] for k in params}) if params else h
        result = spectral_density(data, point.get("c", _single(args, "c")), args.x, eta=args.eta,
                                  matrix=args.matrix, d=point.get("diag", _single(args, "diag")), geometry=shown,
                                  gram=args.gram, form=args.form)
        atoms.append({**{k: float(v) for k, v in point.items()}, "atom": result.atom})
        rows += [(*values, x, rho) for x, rho in zip(result.x, np.asarray(result.density, float))]
    out = {"f": args.f, "matrix": args.matrix, "eta": args.eta, "columns": header,
           "points": [dict(zip(header, map(float, row))) for row in rows], "atoms": atoms}
    if not args.json:
        print(f"f = {h.f}: density of the {args.matrix} matrix on the grid of {', '.join(names)}, eta = {args.eta}")
        print(" ".join(f"{n:>10}" for n in header))
        for row in rows:
            print(" ".join(f"{v:10.4g}" for v in row))
    return out


def _spectrum_grid(args: argparse.Namespace, h, params: dict) -> dict:
    """One density per point of the parameter grids (one axis per parameter, x last), from the numeric data."""
    axes = parameter_axes(params)
    data = h.numeric(**axes)
    h.require_centered(data, axes)
    shape, shown = data["a1"].shape, geometry(args)
    curves = [spectral_density((a1, nu), args.c, args.x, eta=args.eta, matrix=args.matrix, d=args.diag,
                               geometry=shown, gram=args.gram)
              for a1, nu in zip(data["a1"].ravel(), data["nu"].ravel())]
    density = np.array([c.density for c in curves]).reshape(*shape, len(args.x))
    atom = np.array([c.atom for c in curves]).reshape(shape)
    out = {"x": args.x.tolist(), "params": {k: v.tolist() for k, v in params.items()}, "density": density.tolist(),
           "atom": atom.tolist(), "eta": args.eta, "matrix": args.matrix}
    if not args.json:
        print(f"f = {h.f} on the grid of {', '.join(params)}; c = {args.c}; density of the {args.matrix} matrix, "
              f"eta = {args.eta}")
        print(" ".join(f"{n:>10}" for n in [*params, "atom", "x", "density"]))
        columns = np.broadcast_arrays(*axes.values(), atom)
        for i, row in enumerate(zip(*(c.ravel() for c in columns))):
            head = " ".join(f"{v:10.4g}" for v in row)
            for x, rho in zip(args.x, curves[i].density):
                print(f"{head} {x:10.4g} {rho:10.6g}")
    return out


def _emit_latex(text: str, target: str | None, flag: str, as_json: bool, out: dict) -> None:
    """Write ``text`` atomically to ``target`` (the file of ``flag``) and record it in ``out``, or print it."""
    if target is not None:
        write_text_atomically(target, text)
        out[flag[2:]] = target
        if not as_json:
            print(f"{flag[2:]} written to {target}")
    elif not as_json:
        print(text)

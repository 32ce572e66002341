"""The flag groups shared by several commands, and what they become for the library.

Formula (``--f``, ``--center``), geometry (six flags or ``--gram``, ``--diag``), ``--param`` (one value,
or grids for the commands that take them, checked against the names in f),
``c``/``gamma``/``--json``, and the Monte Carlo flags; then the parsed namespace turned into a
:class:`~symrmt.geometry.Geometry` and checked where argparse cannot (finite numbers, c > 0).
"""
from __future__ import annotations

import argparse
import math
from typing import Callable

import numpy as np

from ..errors import SymrmtInputError, shown as _shown
from ..geometry import Geometry
from ..models import cli_hooks
from ..nonlinearity import formula_parameters
from ..simulation.softmax import NORMALIZATIONS
from ..validate import MAX_GRID_POINTS
from .values import (parse_gamma, parse_grid, parse_gram, parse_integer, parse_param, parse_param_value, parse_seed,
                     parse_seed_count)

__all__ = ["GRID", "GRID_HELP", "GEOMETRY_FLAGS", "add_f", "add_hermite_flags", "hermite_flags", "add_attention", "add_geometry", "add_params", "add_common", "add_mc",
           "geometry", "geometry_kwargs", "check_attention", "attention_kwargs", "attention_model", "picked_model", "check_c", "check_finite_numbers",
           "parameter_values", "single_point", "parameter_axes", "PRESETS", "axis_parser", "preset_geometry",
           "integer_argument", "seed_argument", "seeds_argument"]

#: The grid grammar as a metavar, and stated in words (:data:`symrmt.validate.GRID_GRAMMAR`), on every axis.
GRID = "LO:HI:NUM[log]"
GRID_HELP = "LO:HI:NUM is NUM evenly spaced values, LO:HI:NUMlog NUM log-spaced ones (e.g. 1e-3:10:50log)"

GEOMETRY_FLAGS = ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq")


def argument_type(parse: Callable) -> Callable:
    """Wrap a parser so that argparse shows its message (argparse hides a plain ValueError's text)."""
    def wrapped(text: str):
        try:
            return parse(text)
        except SymrmtInputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    wrapped.__name__ = parse.__name__
    return wrapped


def integer_argument(text: str) -> int:
    """The argparse type of every integer flag (:func:`symrmt.validate.integer_text`), checked by the library."""
    return argument_type(parse_integer)(text)


def seed_argument(text: str) -> int:
    """The argparse type of every ``--seed``: 0..2**63-1 (:func:`symrmt.validate.seed`)."""
    return argument_type(parse_seed)(text)


def seeds_argument(text: str) -> int:
    """The argparse type of ``--seeds`` (a count of draws): 2..100000 (:func:`symrmt.validate.seed_count`)."""
    return argument_type(parse_seed_count)(text)


def add_f(p: argparse.ArgumentParser, required: bool = True, help: str | None = None) -> None:
    """``--f EXPR`` and ``--center``; ``help`` replaces the first part of ``--f``'s help (what f is for)."""
    p.add_argument("--f", required=required, metavar="EXPR",
                   help=(help or "nonlinearity in x, e.g. tanh(x), 'relu(x)' with --center, x**3-3*x") + "; other "
                        "names are parameters of f, given with --param (tanh(s*x) --param s=2); "
                        "a formula starting with '-' must be written --f=-tanh(x)")
    p.add_argument("--center", action="store_true", help="subtract a_0 = E f(xi) so that f is centered")


def add_hermite_flags(p: argparse.ArgumentParser, shows_closed_forms: bool = False) -> None:
    """``--method auto|numeric`` and ``--timeout SECONDS``: how f's Hermite data are computed (:func:`hermite_flags`).

    A command that prints f's closed forms (``hermite``, ``latex``) searches them by default (``auto``); the others
    print numbers only, which the verified quadrature gives at once, so they default to ``numeric``."""
    default = "auto" if shows_closed_forms else "numeric"
    p.add_argument("--method", dest="hermite_method", choices=("auto", "numeric"), default=default,
                   help=f"f's Hermite data (default {default}): numeric is the verified quadrature alone (milliseconds "
                        "for a smooth f); auto also searches closed forms with SymPy for at most --timeout seconds"
                        + ("" if shows_closed_forms else " (the numbers are the same: a closed form is kept only where "
                                                         "it agrees with the quadrature)"))
    p.add_argument("--timeout", dest="hermite_timeout", type=argument_type(_seconds), default=None, metavar="SECONDS",
                   help="with --method auto: wall-clock seconds, in (0, 600], that the command waits for SymPy's "
                        "search for a new f's closed forms (default: no wait; the search goes on in the background "
                        "for at most 60 s and a later call prints what it found; data the disk cache holds as numeric "
                        "are searched again when --timeout exceeds the search that stored them)")


def _seconds(text: str) -> float:
    """``--timeout``: a number of seconds in (0, 600]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 600:
        raise SymrmtInputError(f"--timeout {_shown(text)}: give a number of seconds in (0, 600], e.g. 5.")
    return value


def hermite_flags(args: argparse.Namespace) -> dict:
    """The ``method`` and ``timeout`` of ``--method`` and ``--timeout`` that were given (empty when none were)."""
    given = {"method": getattr(args, "hermite_method", None), "timeout": getattr(args, "hermite_timeout", None)}
    return {k: v for k, v in given.items() if v is not None}


def add_attention(p: argparse.ArgumentParser, normalize: bool = False) -> None:
    """``--attention`` and ``--temperature`` (and, for the commands that simulate, ``--normalize``); with them
    ``--f`` is optional (:func:`check_attention` decides)."""
    p.add_argument("--attention", choices=cli_hooks.attentions(), default=cli_hooks.default_attention(),
                   help="entrywise: K_ij = f(S_ij)/sqrt(p), needs --f (default); softmax: each query's exp(S/T) "
                        "normalized over its keys (self-token masked), times (n-1) e^(1/(2T^2))/sqrt(p), without --f")
    p.add_argument("--temperature", type=float, default=None, metavar="T",
                   help="softmax temperature T > 0 (default 1)")
    if normalize:
        p.add_argument("--normalize", choices=NORMALIZATIONS, default=None,
                       help="softmax only: keys (default) normalizes each query over its keys, as transformers do; "
                            "queries normalizes each key over the queries (the transposed model). The theory is "
                            "the same for both")


def attention_model(args: argparse.Namespace) -> cli_hooks.CommandLine:
    """The registry's entry of the model ``--attention`` picks (:mod:`symrmt.models.cli_hooks`)."""
    return cli_hooks.picked(getattr(args, "attention", None))


def picked_model(args: argparse.Namespace) -> cli_hooks.CommandLine:
    """The registry's entry of the model the flags pick: a picking flag given (``--weights``), else ``--attention``."""
    flags = {name: getattr(args, name, None) for name in cli_hooks.picking_flags()}
    return cli_hooks.picked(getattr(args, "attention", None), flags)


def check_attention(args: argparse.Namespace) -> None:
    """A model that takes f needs ``--f``; one that fixes f refuses ``--f``, ``--center``, ``--param`` and a nonzero
    ``--diag``; a model's own options (``--temperature``, ``--normalize``) are refused for the others."""
    model = attention_model(args)
    if model.takes_f:
        if args.f is None:
            fixing = " or ".join(f"--attention {e}" for e in cli_hooks.attentions()
                                 if not cli_hooks.picked(e).takes_f)
            raise SymrmtInputError(f"--f is required (e.g. --f 'tanh(x)'), or {fixing}, which fixes f.")
    else:
        given = [flag for flag, on in (("--f", args.f is not None), ("--center", getattr(args, "center", False)),
                                       ("--param", bool(getattr(args, "param", None))),
                                       ("--diag", getattr(args, "diag", 0.0) != 0.0)) if on]
        if given:
            raise SymrmtInputError(f"--attention {args.attention} fixes {model.fixes}: leave out {', '.join(given)}.")
    for name, modes in cli_hooks.option_flags():
        if getattr(args, name, None) is not None and args.attention not in modes:
            raise SymrmtInputError(f"--{name} applies to {' or '.join('--attention ' + m for m in modes)} only.")


def attention_kwargs(args: argparse.Namespace) -> dict:
    """``attention=`` and the model's options (``temperature=``, and ``normalize=`` where given) for the library's
    Monte Carlo, or nothing for the default mode (:meth:`symrmt.models.cli_hooks.CommandLine.simulator_keywords`)."""
    return attention_model(args).simulator_keywords(vars(args))


def add_geometry(p: argparse.ArgumentParser, grids: bool = False, diag_grid: bool | None = None) -> None:
    """The six flags of the rank-1 geometry, ``--geometry`` (a common case by name), ``--gram`` and ``--diag``;
    with ``grids`` the numbers take ``V1,V2,...`` or a grid (:data:`GRID`; one axis of the output each); ``diag_grid``
    (default: ``grids``) for ``--diag`` alone."""
    diag_grid = grids if diag_grid is None else diag_grid
    metavar = f"X|X1,X2,...|{GRID}" if grids else "X"
    g = p.add_argument_group("geometry of (mu, w_K, w_Q) (default: all 0), or --gram for rank-r weights")
    for flag in GEOMETRY_FLAGS:
        g.add_argument("--" + flag.replace("_", "-"), dest=flag, type=axis_parser(flag) if grids else float,
                       default=None, metavar=metavar)
    g.add_argument("--geometry", dest="preset", choices=tuple(PRESETS), default=None,
                   help="a common case by name: aligned (mu, w_K, w_Q along one direction), orthogonal (three "
                        "orthogonal directions) or noise (no signal, identity weights); with --mu-norm and --w-norm "
                        "(default 1 each) instead of the six flags")
    g.add_argument("--w-norm", dest="w_norm", type=axis_parser("w_norm") if grids else float, default=None,
                   metavar=metavar,
                   help="with --geometry aligned or orthogonal: |w_K| = |w_Q| (default 1)")
    g.add_argument("--gram", type=argument_type(parse_gram), default=None, metavar="JSON",
                   help="Gram matrix of (mu, w_K^(1..r), w_Q^(1..r)) as a JSON nested list, size 1+2r "
                        "(instead of the six flags)")
    p.add_argument("--diag", type=axis_parser("diag") if diag_grid else float, default=np.zeros(1) if diag_grid else 0.0,
                   metavar=f"D|D1,D2,...|{GRID}" if diag_grid else "D", help="diagonal K_ii = d (default 0)")


#: ``--geometry NAME``: the cosines of (mu, w_K), (mu, w_Q), (w_K, w_Q) of each common case.
PRESETS = {"aligned": (1.0, 1.0, 1.0), "orthogonal": (0.0, 0.0, 0.0), "noise": None}


def axis_parser(name: str) -> Callable[[str], np.ndarray]:
    """The argparse type of ``--NAME`` with grids: a number, a list ``V1,V2,...`` or a grid (:func:`parse_grid`)."""
    flag = "--" + name.replace("_", "-")

    def values(text: str) -> np.ndarray:
        return parse_grid(text, flag=flag)
    values.__name__ = name
    return argument_type(values)


def add_params(p: argparse.ArgumentParser, grids: bool = False) -> None:
    """``--param NAME=VALUE`` (repeatable, one per parameter of f); with ``grids`` also ``NAME=LO:HI:NUM[log]`` and lists."""
    if grids:
        p.add_argument("--param", type=argument_type(parse_param), action="append", default=[],
                       metavar=f"NAME=VALUE|NAME={GRID}|NAME=v1,v2,...",
                       help="the value of a symbolic parameter of f, or a grid of them (repeatable, one per "
                            "parameter; each grid is one axis of the output), e.g. --f 'tanh(s*x)' --param s=0.5:2:20")
        p.set_defaults(param_grids=True)
    else:
        p.add_argument("--param", type=argument_type(parse_param_value), action="append", default=[],
                       metavar="NAME=VALUE", help="the value of a symbolic parameter of f (repeatable, one per "
                                                  "parameter), e.g. --f 'tanh(s*x)' --param s=1.5")
        p.set_defaults(param_grids=False)


def parameter_values(args: argparse.Namespace, other_points: int = 1, optional: bool = False) -> dict[str, np.ndarray]:
    """The ``--param`` values by name, in the order given: each name once, exactly the parameters of ``--f``
    (or none at all, if ``optional``: f is then shown in its parameters), and at most MAX_GRID_POINTS values in
    the whole output (the product of the grids times ``other_points``)."""
    given = getattr(args, "param", None) or []
    if optional and not given:
        return {}
    params: dict[str, np.ndarray] = {}
    for name, values in given:
        if name in params:
            raise SymrmtInputError(
                f"--param {name} is given twice; give each parameter once, with all its values (e.g. --param "
                f"{name}=0.5:2:20 or {name}=0.5,1,2)." if getattr(args, "param_grids", False) else
                f"--param {name} is given twice; this command takes one value per parameter (e.g. --param {name}=1.5); "
                "for several values use symrmt theory, spectrum or hermite, which take grids.")
        params[name] = values
    named = formula_parameters(args.f)
    missing, extra = [n for n in named if n not in params], [n for n in params if n not in named]
    if missing or extra:
        raise SymrmtInputError(
            (f"f = {args.f} has the parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}: give "
             f"{'their values' if len(missing) > 1 else 'its value'} with --param {missing[0]}=VALUE. "
             if missing else "")
            + (f"--param {', '.join(extra)}: not a name in f = {args.f}." if extra else ""))
    size = math.prod(len(v) for v in params.values()) * other_points
    if size > MAX_GRID_POINTS:
        raise SymrmtInputError(f"--param and the other grids ask for {size} values (the product of their sizes); "
                               f"at most {MAX_GRID_POINTS}: use coarser grids.")
    return params


def single_point(params: dict[str, np.ndarray]) -> dict[str, float] | None:
    """``{name: value}`` when every parameter has one value (a point, also when there are none); else None (a grid)."""
    if all(v.size == 1 for v in params.values()):
        return {k: float(v[0]) for k, v in params.items()}
    return None


def parameter_axes(params: dict[str, np.ndarray], trailing: int = 0) -> dict[str, np.ndarray]:
    """The grids reshaped to one axis each, in the order given, before ``trailing`` further axes (gamma, x)."""
    axes = len(params) + trailing
    return {k: v.reshape((-1,) + (1,) * (axes - 1 - i)) for i, (k, v) in enumerate(params.items())}


def add_common(p: argparse.ArgumentParser, grids: bool = False) -> None:
    """``--c``, ``--gamma`` and ``--json``; with ``grids``, ``--c`` takes ``V1,V2,...`` or a grid too."""
    p.add_argument("--c", type=axis_parser("c") if grids else float, required=True,
                   metavar=f"C|C1,C2,...|{GRID}" if grids else None,
                   help="c = p/n > 0" + (f"; {GRID_HELP}" if grids else ""))
    p.add_argument("--gamma", type=argument_type(parse_gamma), required=True, metavar=f"G1,G2,...|{GRID}",
                   help=f"the ridge(s) gamma > 0: a list or a grid; {GRID_HELP} (for one release a gamma grid "
                        "without 'log' is still read log-spaced, with a warning)")
    p.add_argument("--json", action="store_true", help="print JSON (see README for the format)")


def add_mc(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=integer_argument, required=True, help="number of tokens n >= 2")
    p.add_argument("--seeds", type=seeds_argument, default=4,
                   help="independent draws, at least 2: every mean carries a 95%% Student-t interval over seeds "
                        "(default 4)")
    p.add_argument("--seed", type=seed_argument, default=0, help="base seed (reproducible), 0..2**63-1")
    p.add_argument("--method", choices=("auto", "exact", "tridiagonal", "lanczos"), default="auto",
                   help="how the Monte Carlo computes y^T (G + gamma)^-2 y; all agree to 1e-6 relative (the fast routes' "
                        "promise; default auto)")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--spectrum", action="store_true",
                   help="also return all eigenvalues of the simulated matrix, pooled over seeds (JSON 'eigenvalues')")
    p.add_argument("--matrix", choices=("gram", "kernel"), default="gram",
                   help="with --spectrum: K^T X^T X K/n (gram, default) or K itself (kernel; needs w_K = w_Q)")
    p.add_argument("--allow-long", action="store_true",
                   help="run although the estimate of the run's time is over five minutes (refused otherwise)")


def geometry(args: argparse.Namespace) -> Geometry | None:
    """The geometry of the flags (the six, or ``--geometry`` with its norms), or None when --gram is given."""
    given = {k: getattr(args, k) for k in GEOMETRY_FLAGS if getattr(args, k, None) is not None}
    preset, w_norm = getattr(args, "preset", None), getattr(args, "w_norm", None)
    if getattr(args, "gram", None) is not None:
        if given or preset:
            flags = ", ".join("--" + k.replace("_", "-") for k in [*given, *(["geometry"] if preset else [])])
            raise SymrmtInputError(f"give the geometry either with --gram or with the flags, not both ({flags}).")
        return None
    if w_norm is not None and preset not in ("aligned", "orthogonal"):
        raise SymrmtInputError("--w-norm goes with --geometry aligned or orthogonal; otherwise give --wk-norm and "
                               "--wq-norm.")
    if preset is None:
        return Geometry(**given)
    return Geometry(**preset_geometry(args))


def preset_geometry(args: argparse.Namespace) -> dict:
    """The six entries of ``--geometry NAME`` with ``--mu-norm`` and ``--w-norm`` (each a number or an array)."""
    preset = args.preset
    others = [k for k in GEOMETRY_FLAGS if k != "mu_norm" and getattr(args, k, None) is not None]
    if others:
        raise SymrmtInputError(f"--geometry {preset} sets the cosines and the weight norms: leave out "
                               f"{', '.join('--' + k.replace('_', '-') for k in others)} (use --w-norm).")
    if PRESETS[preset] is None:
        if args.mu_norm is not None:
            raise SymrmtInputError("--geometry noise has no signal: leave out --mu-norm.")
        return {}
    one = lambda value: 1.0 if value is None else value
    cos_mu_wk, cos_mu_wq, cos_wk_wq = PRESETS[preset]
    w = one(args.w_norm)
    return dict(mu_norm=one(args.mu_norm), wk_norm=w, wq_norm=w, cos_mu_wk=cos_mu_wk, cos_mu_wq=cos_mu_wq,
                cos_wk_wq=cos_wk_wq)


def geometry_kwargs(args: argparse.Namespace, geometry: Geometry | None) -> dict:
    """``gram=`` when --gram is given, else ``geometry=`` (the six flags)."""
    return {"gram": args.gram} if args.gram is not None else {"geometry": geometry}


def check_c(c: float) -> None:
    if not np.isfinite(c) or c <= 0:
        raise SymrmtInputError(f"--c {c}: c = p/n must be a finite number > 0.")


#: The positional arguments of the commands (figure NAME, sweep SPEC, weights FILE), named as in their usage.
_POSITIONALS = ("name", "spec", "file")
#: The options that name a file or folder (their refusal of an empty text says so).
_PATHS = ("plot", "csv", "out", "document", "body", "summary", "file", "spec")


def check_finite_numbers(args: argparse.Namespace) -> None:
    """argparse's ``type=float`` accepts nan and inf, and any option an empty text: no option of symrmt means
    anything with them (``--plot ''`` would otherwise write nothing, without a word), except the options a
    command lists in ``empty_allowed`` (``demo --plot ''``: no plot, as documented)."""
    for name, value in vars(args).items():
        flag = name.upper() if name in _POSITIONALS else "--" + name.replace("_", "-")
        if isinstance(value, float) and not np.isfinite(value):
            raise SymrmtInputError(f"{flag} {value}: must be a finite number.")
        if isinstance(value, str) and not value.strip() and name != "command" \
                and name not in getattr(args, "empty_allowed", ()):
            what = "a file or folder name" if name in _PATHS else "a value"
            raise SymrmtInputError(f"{flag} {value!r}: is empty; give {what}"
                                   + ("." if name in _POSITIONALS else f", or leave {flag} out."))

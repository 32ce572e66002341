r"""``symrmt theory --kind NAME``: any registered model's theory (:func:`symrmt.theory.solve_model`), over ``--gamma``.

The flags are read into the model's own arguments by their names (:data:`FLAGS`: ``--f`` is ``f``, ``--diag``
is ``d``, ``--weights FILE --layer L`` is ``weights``, ...) and handed to the model; a flag whose argument the
model does not take is refused, and so is a model's required argument left out. Nothing here knows a model:
the registry says what each takes (:meth:`symrmt.models.Model.arguments`).
"""
from __future__ import annotations

import argparse
import inspect

import numpy as np

from ... import models
from ...models.cli_hooks import default_attention
from ...theory import solve_model
from ...theory.forms import DEFAULT_FORM
from ...errors import SymrmtInputError
from ..arguments import GEOMETRY_FLAGS, geometry, parameter_axes, parameter_values, single_point
from ..failures import failed_points, print_failures, settle
from ..output import cell
from .theory_weights import layer_matrix, refuse_weights_flags, signal

__all__ = ["FLAGS", "theory_kinds", "kind_theory"]

#: A model's argument -> the flag that gives it.
FLAGS = {"f": "--f", "c": "--c", "gamma": "--gamma", "d": "--diag", "geometry": "--mu-norm/--geometry/...",
         "gram": "--gram", "params": "--param", "temperature": "--temperature", "heads": "--heads",
         "weights": "--weights", "mu": "--signal", "rank": "--rank"}


def theory_kinds() -> tuple[str, ...]:
    """The registered models with a theory over a ridge (a derived system or a solver of their own that takes
    ``gamma``): what ``theory --kind`` solves over ``--gamma``. The densities, over x, are ``symrmt spectrum``'s."""
    return models.names(lambda m: m.no_theory is None and (m.arguments() is None or "gamma" in m.arguments()))


def _given(args: argparse.Namespace) -> dict:
    """The model arguments the user's flags give (flags left at their defaults give none)."""
    from ... import hermite  # heavy: SymPy

    shape = [name for name in (*GEOMETRY_FLAGS, "w_norm") if getattr(args, name, None) is not None]
    grids = [name for name in shape if np.size(getattr(args, name)) > 1]
    if grids:
        raise SymrmtInputError(f"{', '.join('--' + n.replace('_', '-') for n in grids)}: --kind takes one value of "
                               "each geometry flag (a list or grid of --c or --gamma instead).")
    for name in shape:                       # one value each: the number the geometry takes
        setattr(args, name, float(np.ravel(getattr(args, name))[0]))
    given: dict = {"c": args.c, "gamma": args.gamma}
    if args.f is not None:
        given["f"] = hermite(args.f, center=args.center)
    if np.any(np.asarray(args.diag, dtype=float) != 0):
        given["d"] = args.diag
    if args.gram is not None:
        given["gram"] = args.gram
    elif any(getattr(args, k, None) is not None for k in GEOMETRY_FLAGS) or args.preset is not None \
            or args.w_norm is not None:
        given["geometry"] = geometry(args)
    if args.param:
        params = parameter_values(args, len(args.gamma))
        given["params"] = single_point(params) or parameter_axes(params, trailing=1)
    if args.temperature is not None:
        given["temperature"] = args.temperature
    if args.heads is not None:
        given["heads"] = args.heads
    if args.rank is not None:
        given["rank"] = args.rank
    if args.weights is not None:
        if args.layer is None:
            raise SymrmtInputError("--weights needs --layer L (the layer whose W_K^T W_Q is used).")
        given["weights"] = layer_matrix(args.weights, args.layer, args.head, args.heads, args.weights_scale)
        mu = signal(args, given["weights"])
        if mu is not None:
            given["mu"] = mu
    return given


def _single(value) -> float | np.ndarray:
    array = np.ravel(np.asarray(value, dtype=float))
    return float(array[0]) if array.size == 1 else array


def kind_theory(args: argparse.Namespace) -> dict:
    """The body of ``symrmt theory --kind NAME``: the model's observables over ``--gamma``."""
    model = models.get(args.kind)
    unused = [flag for flag, on in (("--attention", args.attention != default_attention()),
                                    ("--csv", args.csv is not None),
                                    ("--allow-long", args.allow_long)) if on]
    if unused:
        raise SymrmtInputError(f"--kind cannot be combined with {', '.join(unused)}: --kind NAME picks the model "
                               f"(one of {', '.join(theory_kinds())}) and prints its points.")
    refuse_weights_flags(args, others=())                 # --heads is a model's argument here (summed heads)
    given = _given(args)
    given["c"] = _single(given["c"])
    takes = model.arguments()
    if takes is not None:
        extra = [FLAGS.get(k, k) for k in given if k not in takes]
        if extra:
            raise SymrmtInputError(f"--kind {model.name} takes no {', '.join(extra)}: it takes "
                                   f"{', '.join(FLAGS.get(k, k) for k in takes)}.")
        function = model.solve_hook() if not model.derived else model.read
        required = [name for name, p in inspect.signature(function).parameters.items()
                    if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                    and name not in given]
        if required:
            raise SymrmtInputError(f"--kind {model.name} needs {', '.join(FLAGS.get(k, k) for k in required)}.")
    if not model.derived and args.form != DEFAULT_FORM:
        raise SymrmtInputError(f"--form {args.form}: the {model.name} model is solved numerically, in no form; leave "
                               "--form out.")
    solution = solve_model(model, form=args.form, partial=model.derived, **given)
    names = [str(k) for k in solution.observables]
    failed = failed_points(solution.failures, [("gamma", args.gamma)], model.name)
    values = {name: np.ma.masked_invalid(np.ma.asarray(solution[name], dtype=float)) for name in names}
    settle(failed, int(np.size(values[names[0]])), args.strict)
    out = {"kind": model.name, "gamma": args.gamma.tolist(), "c": given["c"] if np.ndim(given["c"]) == 0 else
           given["c"].tolist(), **{name: v.tolist() for name, v in values.items()}, "failed": failed}
    if not args.json:
        print(f"{model.name}: {model.summary}")
        print(f"{'gamma':>10} " + " ".join(f"{n:>10}" for n in names))
        rows = np.ma.filled(np.ma.array([np.broadcast_to(v, np.shape(values[names[0]])) for v in values.values()]),
                            np.nan).reshape(len(names), -1)
        for j, g in enumerate(np.ravel(args.gamma)):
            print(f"{g:10.4g} " + " ".join(cell(rows[i, j], 10) for i in range(len(names))))
        print_failures(failed)
    return out

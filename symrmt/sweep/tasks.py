r"""The two tasks a worker runs, plain JSON data in and out: the theory of a setting, one Monte Carlo draw of a point.

A task imports only what it needs in the worker (the theory or the simulator), and its payload
holds everything else: f's Hermite data pinned by the spec, the geometry entry, the γ grid,
and for a draw the point's key, whose integer value seeds it (see :mod:`symrmt.sweep`).
"""
from __future__ import annotations

import functools
import json
import math
from typing import Any, Callable, Mapping

import numpy as np

from ..errors import ParameterError
from ..geometry import Geometry
from ..models import get as get_model
from ..models import names as model_names
from ..nonlinearity import numpy_callable
from .spec import MONTE_CARLO, THEORY_ARGUMENTS, SweepSpec, canonical, hermite_key, point_key

__all__ = ["theory_task", "monte_carlo_task", "compute_point", "model_geometry", "finite_list",
           "theory_payload", "monte_carlo_payload", "make_record"]


def finite_list(values: Any) -> list:
    """JSON has no NaN/inf: non-finite entries become null."""
    return [float(v) if math.isfinite(v) else None for v in np.asarray(values, dtype=float).tolist()]


def model_geometry(entry: Mapping | list) -> dict[str, Any]:
    """Keyword arguments ``geometry``, ``gram`` that pass one spec geometry entry to the theory and the simulator.

    A dict becomes ``geometry=Geometry(**entry)``; a Gram matrix ``G`` becomes ``gram=G``.
    Both layers check it with :func:`symrmt.geometry.resolve_gram`.
    """
    if isinstance(entry, Mapping):
        return {"geometry": Geometry(**entry), "gram": None}
    return {"geometry": None, "gram": np.asarray(entry, dtype=float)}


def theory_task(payload: dict) -> dict:
    """Theory of one setting on the γ grid: ``{"a1", "nu", MODEL..., "error"}``, one curve per model of the spec.

    Each model is solved by :func:`symrmt.theory.solve_model` with the arguments it takes of those a sweep offers
    (:data:`~symrmt.sweep.spec.THEORY_ARGUMENTS`: f's Hermite data, c, gamma, d, the geometry), as the registry maps
    them (:meth:`symrmt.models.Model.taken`). The solver solves each γ on its own, so only the γ it cannot solve
    become null (with the reason in ``error``) and the sweep goes on.
    """
    from ..theory.ridge import solve_model  # heavy: theory, a Monte Carlo worker never solves it

    a1, nu = payload["a1"], payload["nu"]
    gamma = np.asarray(payload["gamma"], dtype=float)
    offered = {"f": (a1, nu), "c": payload["c"], "gamma": gamma, "d": payload["d"],
               **model_geometry(payload["geometry"])}
    out: dict[str, Any] = {"a1": a1, "nu": nu}
    errors = []
    # The result file keys each curve by its model's name.
    for name in payload.get("models", MONTE_CARLO):
        model = _registered(name)
        taken = model.taken(THEORY_ARGUMENTS, needs=("c", "gamma"), by="a sweep")
        solution = solve_model(model, partial=True, **{k: offered[k] for k in taken})
        out[name] = finite_list(np.ma.filled(solution.error, np.nan))
        errors += [f"{name} at gamma = {gamma[f.index[-1]]:g}: {f.reason}" for f in solution.failures]
    out["error"] = "; ".join(errors) or None
    return out


def _registered(name: str):
    """The model called ``name`` in this process; a model registered only in the parent is refused in one line."""
    if name not in model_names():
        raise ParameterError(
            f"the model {name!r} is not registered in this sweep worker: the local workers are spawned, fresh "
            "processes that re-import your script, so register it at the top level of the script or of a module "
            "it imports (not under `if __name__ == '__main__':`, in a function, a notebook or a test fixture); on "
            "Dask, in a module every worker imports (help(symrmt.sweep), section Models).")
    return get_model(name)


@functools.lru_cache(maxsize=64)
def _nonlinearity(f: str, params: str, a0: float) -> Callable[[np.ndarray], np.ndarray]:
    """f at its parameter values (``params``, canonical JSON), minus a0, as NumPy by the one adapter; built once
    per worker process (generated code does not pickle)."""
    from ..nonlinearity.parametric import expression_at  # heavy: SymPy

    values = json.loads(params)
    return numpy_callable(expression_at(f, values) if values else f, a0)


def monte_carlo_task(payload: dict) -> dict:
    """One Monte Carlo draw of one point on the γ grid: ``{"attention", "linear"}`` (:data:`~.spec.MONTE_CARLO`)."""
    from ..simulation import simulate_once  # heavy: SciPy

    rng = np.random.default_rng(np.random.SeedSequence(int(payload["key"], 16)))
    options = {} if payload["method"] is None else {"method": payload["method"]}
    f = _nonlinearity(payload["f"], canonical(payload.get("params", {})), payload["a0"])
    attention, linear = simulate_once(f, n=payload["n"], c=payload["c"],
                                      gamma=payload["gamma"], d=payload["d"], rng=rng,
                                      **model_geometry(payload["geometry"]), **options)
    return dict(zip(MONTE_CARLO, (finite_list(attention), finite_list(linear))))


def theory_payload(spec: SweepSpec, point: dict) -> dict:
    """What :func:`theory_task` needs of the setting of ``point``."""
    a1, nu, _ = spec.hermite[hermite_key(point)]
    return {"a1": a1, "nu": nu, "c": point["c"], "d": point["d"], "geometry": point["geometry"],
            "gamma": list(spec.gamma), "models": list(spec.models)}


def monte_carlo_payload(spec: SweepSpec, point: dict) -> dict:
    """What :func:`monte_carlo_task` needs of ``point``."""
    return {"f": point["f"], "params": point.get("params", {}), "a0": spec.hermite[hermite_key(point)][2],
            "n": point["n"], "c": point["c"], "d": point["d"],
            "geometry": point["geometry"], "gamma": list(spec.gamma), "method": spec.method,
            "key": point_key(point)}


def make_record(spec: SweepSpec, point: dict, theory: dict, mc: dict) -> dict:
    """The result file's line of one point (the fields are listed in :mod:`symrmt.sweep`)."""
    return {"spec_hash": spec.hash, "key": point_key(point), "f": point["f"],
            **({"params": point["params"]} if point.get("params") else {}), "center": point["center"],
            "a0": spec.hermite[hermite_key(point)][2],
            "c": point["c"], "d": point["d"], "geometry": point["geometry"], "n": point["n"],
            "p": int(round(point["c"] * point["n"])), "seed": point["seed"], "method": spec.method,
            "gamma": list(spec.gamma), "theory": theory, "mc": mc}


def compute_point(spec: SweepSpec, point: dict) -> dict:
    """The record of one point, computed here and now (what a sweep writes for it).

    Parameters
    ----------
    spec : SweepSpec
        The spec the point belongs to.
    point : dict
        One of ``spec.points()``.

    Returns
    -------
    dict
        The record: the point's parameters, ``n``, ``p``, ``gamma``, ``theory`` and ``mc`` (attention and linear).

    Raises
    ------
    SymrmtInputError
        What the theory or the Monte Carlo refuse at this point.

    See Also
    --------
    run_sweep : Every point, in parallel, into a result file.

    Examples
    --------
    >>> from symrmt.sweep import parse_spec
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 1})
    >>> record = compute_point(spec, spec.points()[0])
    >>> record["n"], record["p"], len(record["mc"]["attention"]), len(record["theory"]["attention"])
    (16, 16, 2, 2)
    """
    return make_record(spec, point, theory_task(theory_payload(spec, point)),
                       monte_carlo_task(monte_carlo_payload(spec, point)))

r"""Grids of theory and Monte Carlo points, on the local cores or a Dask cluster, in resumable files.

A sweep runs every combination of the lists of a *spec* and writes one JSON line
per finished *point* to a result file. It can be killed at any moment (SIGKILL,
Ctrl-C) and started again with the same command: finished points are skipped,
none is lost or written twice.

Spec
----
A JSON or TOML file (``.toml`` is read as TOML, anything else as JSON)::

    f = ["tanh(x)", "erf(x)"]      # nonlinearities (the syntax of `symrmt hermite`)
    c = [0.5, 1.0, 2.0]            # p / n
    n = [128, 256]                 # tokens of the Monte Carlo
    gamma = "1e-2:10:20"           # ridges, all run for every point: a list, or LO:HI:NUM (log grid)
    d = [0.0]                      # diagonal K_ii (optional, default [0])
    seeds = 8                      # Monte Carlo draws per setting and n
    center = false                 # optional: subtract a_0 = E f(xi) from every f
    # method = "exact"             # optional: Monte Carlo method (symrmt.simulation.METHODS)
    [[geometry]]                   # optional, default one entry {} (no signal, no weights)
    mu_norm = 1.0
    wk_norm = 1.0
    wq_norm = 1.0
    cos_mu_wk = 1.0
    cos_mu_wq = 1.0
    cos_wk_wq = 1.0

A ``geometry`` entry is either a dict of the six numbers of
:class:`~symrmt.geometry.Geometry` (missing ones are 0) or a Gram matrix of
:math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, a nested list of size
:math:`(1+2r) \times (1+2r)`. Everything is checked before anything runs.

A *setting* is one ``(f, c, d, geometry)``; its theory (:func:`~symrmt.theory.attention_error`
and :func:`~symrmt.theory.linear_error` on the whole γ grid) does not depend on ``n``
or the seed and is computed once per run. A *point* is one
``(f, c, d, geometry, n, seed)`` with ``seed`` in ``0 .. seeds-1``: one Monte Carlo
draw (:func:`~symrmt.simulation.simulate_once`) on the whole γ grid.

Seeds
-----
The draw of a point depends only on the point, never on the order, the worker or
the other points of the spec::

    point = {"f": f, "center": center, "c": c, "d": d, "geometry": geometry, "n": n, "seed": k}
    key = hashlib.sha256(json.dumps(point, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    rng = np.random.default_rng(np.random.SeedSequence(int(key, 16)))

with ``c``, ``d`` and the geometry numbers as floats, ``n`` and ``k`` as ints, and
``f`` the string of the spec (so ``"tanh(x)"`` and ``"tanh( x )"`` are different
points). γ and ``method`` are not part of it: the same draw serves every γ, and
two methods can be compared on the same draws. ``key`` is stored in the record.

Result file
-----------
JSON lines. The first line is a header ``{"symrmt_sweep": 1, "spec_hash": ..., "spec":
{...}, "points": N, "symrmt": VERSION}`` holding the normalized spec; a file written
from another spec is refused (and one started by another symrmt version gives a
warning). Each further line is one point (``a0`` is what ``center`` subtracted from
``f``; ``p = round(c n)``)::

    {"spec_hash": "…", "key": "…", "f": "tanh(x)", "center": false, "a0": 0.0, "c": 1.0, "d": 0.0,
     "geometry": {...} or [[...]], "n": 128, "p": 128, "seed": 3, "method": null,
     "gamma": [...],
     "theory": {"a1": …, "nu": …, "attention": [...], "linear": [...], "error": null},
     "mc": {"attention": [...], "linear": [...]}}

``method`` is ``null`` when the spec leaves it to the simulator's default. An entry
of ``theory.attention`` / ``theory.linear`` is ``null`` (and ``error`` says
why) at a γ where the solver did not converge; the Monte Carlo is kept. Lines are
written in completion order, by the parent process only, each with one
``write`` followed by ``fsync``: a crash loses at most the points in flight, and a
partial last line left by a crash is dropped (truncated) on the next start.
"""
from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import inspect
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .cpus import usable_cpus
from .errors import ConvergenceError, ParameterError, SymrmtInputError
from .geometry import Geometry, check_gram
from .progress import progress_bar
from .stats import mean_se

__all__ = ["SweepSpec", "load_spec", "parse_spec", "run_sweep", "compute_point", "point_key",
           "read_records", "summarize", "write_summary_csv", "FORMAT"]

#: Version of the result file format (the header's ``symrmt_sweep``).
FORMAT = 1

GEOMETRY_KEYS = ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq")
_REQUIRED = ("f", "c", "n", "gamma", "seeds")
_OPTIONAL = {"d": [0.0], "geometry": [{}], "center": False, "method": None}


# ---------------------------------------------------------------------------
# Canonical JSON and keys
# ---------------------------------------------------------------------------

def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _digest(obj: Any) -> str:
    return hashlib.sha256(_canonical(obj).encode()).hexdigest()


def point_key(point: dict) -> str:
    """SHA-256 (hex) of the canonical JSON of a point; its integer value seeds the draw (module docstring)."""
    return _digest({k: point[k] for k in ("f", "center", "c", "d", "geometry", "n", "seed")})


def _setting_key(point: dict) -> str:
    return _digest({k: point[k] for k in ("f", "center", "c", "d", "geometry")})


# ---------------------------------------------------------------------------
# The spec: load, validate, normalize
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class SweepSpec:
    """A validated, normalized sweep spec (see the module docstring); build it with :func:`load_spec`.

    ``hermite`` maps each ``f`` to ``(a_1, nu, a_0)`` of the (centered, if ``center``)
    nonlinearity, computed once during validation.
    """

    f: tuple[str, ...]
    c: tuple[float, ...]
    n: tuple[int, ...]
    gamma: tuple[float, ...]
    d: tuple[float, ...]
    geometry: tuple[Any, ...]
    seeds: int
    center: bool
    method: str | None
    hermite: dict

    def as_dict(self) -> dict[str, Any]:
        """The normalized spec as plain JSON data (what the result file's header holds)."""
        return {"f": list(self.f), "c": list(self.c), "n": list(self.n), "gamma": list(self.gamma),
                "d": list(self.d), "geometry": list(self.geometry), "seeds": self.seeds,
                "center": self.center, "method": self.method}

    @property
    def hash(self) -> str:
        """First 16 hex digits of the SHA-256 of :meth:`as_dict` (canonical JSON)."""
        return _digest(self.as_dict())[:16]

    def points(self) -> list[dict]:
        """Every point, seed-major (a run that stops early has covered the grid with fewer seeds)."""
        grid = itertools.product(range(self.seeds), self.n, self.f, self.c, self.d, self.geometry)
        return [{"f": f, "center": self.center, "c": c, "d": d, "geometry": g, "n": n, "seed": k}
                for k, n, f, c, d, g in grid]


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read a JSON or TOML spec file (by extension: ``.toml`` is TOML) and validate it (:func:`parse_spec`)."""
    path = Path(path)
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise SymrmtInputError(f"spec {str(path)!r}: cannot read it ({exc.strerror}).") from None
    try:
        if path.suffix.lower() == ".toml":
            raw = _toml().loads(text.decode())
        else:
            raw = json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError and tomllib.TOMLDecodeError are ValueErrors
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise SymrmtInputError(f"spec {str(path)!r} is not valid {kind}: {exc}.") from None
    return parse_spec(raw, source=str(path))


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    return tomllib


def parse_spec(raw: Any, source: str = "spec") -> SweepSpec:
    """Validate a spec given as plain data (the content of a spec file).

    Parameters
    ----------
    raw : dict
        Keys ``f, c, n, gamma, seeds`` and optionally ``d, geometry, center, method``
        (module docstring); a single value stands for a list of one.
    source : str
        How error messages name the spec (its file).

    Raises
    ------
    SymrmtInputError
        A :class:`~symrmt.errors.ParameterError` naming the key, the value and the fix,
        for the first problem found; a bad ``f`` as :func:`~symrmt.nonlinearity.hermite` reports it.

    Examples
    --------
    >>> spec = parse_spec({"f": "tanh(x)", "c": [0.5, 1.0], "n": 64, "gamma": "0.01:1:3", "seeds": 2})
    >>> len(spec.points()), spec.gamma, spec.hash == parse_spec(spec.as_dict()).hash
    (4, (0.01, 0.1, 1.0), True)
    """
    if not isinstance(raw, dict):
        raise ParameterError(f"{source}: must be a table/object with keys {', '.join(_REQUIRED)}, "
                             f"got {type(raw).__name__}.")
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    missing = [k for k in _REQUIRED if k not in raw]
    if unknown:
        raise ParameterError(f"{source}: unknown key(s) {unknown}; the keys are "
                             f"{', '.join(_REQUIRED)} and optionally {', '.join(_OPTIONAL)}.")
    if missing:
        raise ParameterError(f"{source}: missing key(s) {missing} (f, c, n, gamma are lists, seeds a count).")
    raw = {**_OPTIONAL, **raw}
    fs, center = _unique("f", _strings(raw["f"])), _boolean(raw["center"], "center")
    spec = dict(f=fs, c=_unique("c", _reals("c", raw["c"], positive=True)),
                n=_unique("n", _integers("n", raw["n"], minimum=2)), gamma=_gammas(raw["gamma"]),
                d=_unique("d", _reals("d", raw["d"])), geometry=_unique("geometry", _geometries(raw["geometry"])),
                seeds=_count(raw["seeds"]), center=center, method=_method(raw["method"]))
    _check_dimensions(spec["c"], spec["n"])
    # Last, as the only slow check (SymPy may search for closed forms): every cheap mistake is reported first.
    return SweepSpec(**spec, hermite=_hermite_all(fs, center))


def _as_list(key: str, value: Any) -> list:
    if isinstance(value, (list, tuple)):
        if not value:
            raise ParameterError(f"{key} = []: give at least one value.")
        return list(value)
    return [value]  # a single value is a list of one


def _unique(key: str, values: list) -> tuple:
    seen = set()
    for v in values:
        if _canonical(v) in seen:
            raise ParameterError(f"{key} lists {v!r} twice; each value must appear once (duplicates would "
                                 "be the same points).")
        seen.add(_canonical(v))
    return tuple(values)


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{key} = {value!r}: must be a number.")
    number = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0, so that both give the same point
    if not math.isfinite(number):
        raise ParameterError(f"{key} = {value!r}: must be finite.")
    return number


def _reals(key: str, value: Any, positive: bool = False) -> list[float]:
    numbers = [_number(f"{key}[{i}]", v) for i, v in enumerate(_as_list(key, value))]
    for i, x in enumerate(numbers):
        if positive and x <= 0:
            raise ParameterError(f"{key}[{i}] = {x}: must be > 0.")
    return numbers


def _integers(key: str, value: Any, minimum: int) -> list[int]:
    out = []
    for i, v in enumerate(_as_list(key, value)):
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise ParameterError(f"{key}[{i}] = {v!r}: must be an integer >= {minimum}.")
        out.append(int(v))
    return out


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ParameterError(f"seeds = {value!r}: must be a count, an integer >= 1 (the number of "
                             "Monte Carlo draws per setting and n; >= 2 for a standard error).")
    return int(value)


def _boolean(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(f"{key} = {value!r}: must be true or false.")
    return value


def _strings(value: Any) -> list[str]:
    out = []
    for i, v in enumerate(_as_list("f", value)):
        if not isinstance(v, str) or not v.strip():
            raise ParameterError(f"f[{i}] = {v!r}: must be a formula in x such as \"tanh(x)\".")
        out.append(v.strip())
    return out


def _gammas(value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        try:
            lo, hi, num = value.split(":")
            values = np.logspace(np.log10(float(lo)), np.log10(float(hi)), int(num)).tolist()
        except ValueError:
            raise ParameterError(f"gamma = {value!r}: give a list of numbers or \"LO:HI:NUM\" "
                                 "(NUM log-spaced values from LO to HI), e.g. \"1e-2:10:20\".") from None
        if not values:
            raise ParameterError(f"gamma = {value!r}: NUM must be >= 1.")
    else:
        values = _reals("gamma", value)
    for i, g in enumerate(values):
        if not (math.isfinite(g) and g > 0):
            raise ParameterError(f"gamma[{i}] = {g}: every ridge must be finite and > 0.")
    return _unique("gamma", values)


def _method(value: Any) -> str | None:
    if value is None:
        return None
    methods = _simulation_methods()
    if not methods:
        raise ParameterError(f"method = {value!r}: this version of symrmt.simulation has a single Monte Carlo "
                             "method; leave `method` out of the spec.")
    if value not in methods:
        raise ParameterError(f"method = {value!r}: use one of {', '.join(methods)} (or leave it out for the "
                             "simulator's default).")
    return value


def _simulation_methods() -> tuple[str, ...]:
    """The ``method`` values :func:`~symrmt.simulation.simulate_once` takes (none in versions without it)."""
    from . import simulation

    if not _simulation_accepts("method"):
        return ()
    return tuple(getattr(simulation, "METHODS", ("auto", "exact")))


def _check_dimensions(cs: Sequence[float], ns: Sequence[int]) -> None:
    for c, n in itertools.product(cs, ns):
        if round(c * n) < 3:
            raise ParameterError(f"c = {c}, n = {n}: p = round(c*n) = {round(c * n)} < 3 (the simulator places "
                                 "mu, w_K and w_Q in R^p); raise n or c.")


def _hermite_all(fs: Sequence[str], center: bool) -> dict[str, tuple[float, float, float]]:
    """``f -> (a_1, nu, a_0)`` once per f: validates f up front and pins its numbers for every worker."""
    from .nonlinearity import hermite

    out = {}
    for i, f in enumerate(fs):
        try:
            h = hermite(f, center=center)
        except SymrmtInputError as exc:
            hint = " (in a spec: center = true)" if not center and "center" in str(exc) else ""
            raise type(exc)(f"f[{i}] = {f!r}: {exc}{hint}") from None
        out[f] = (float(h.a1), float(h.nu), float(h.centered_by))
    return out


# -- geometry --------------------------------------------------------------

def _geometries(value: Any) -> list:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ParameterError(f"geometry = {value!r}: must be a list of geometry dicts or Gram matrices.")
    return [_geometry_entry(i, g) for i, g in enumerate(value)]


def _geometry_entry(i: int, entry: Any) -> dict | list:
    key = f"geometry[{i}]"
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - set(GEOMETRY_KEYS))
        if unknown:
            raise ParameterError(f"{key} has unknown key(s) {unknown}; a geometry dict has "
                                 f"{', '.join(GEOMETRY_KEYS)} (missing ones are 0).")
        numbers = {k: _number(f"{key}.{k}", entry.get(k, 0.0)) for k in GEOMETRY_KEYS}
        try:
            Geometry(**numbers)
        except SymrmtInputError as exc:
            raise ParameterError(f"{key}: {exc}") from None
        return numbers
    return _gram_entry(key, entry)


def _gram_entry(key: str, entry: Any) -> list[list[float]]:
    hint = ("a Gram matrix is a nested list of size (1+2r) x (1+2r) in the order (mu, w_K^(1..r), "
            "w_Q^(1..r)); one 3x3 matrix in a list of geometries is [[[..], [..], [..]]]")
    if not isinstance(entry, list) or not all(isinstance(row, list) for row in entry):
        raise ParameterError(f"{key} = {entry!r}: must be a geometry dict or a Gram matrix; {hint}.")
    size = len(entry)
    if size < 3 or size % 2 == 0 or any(len(row) != size for row in entry):
        raise ParameterError(f"{key}: a {size}-row matrix with rows of lengths {[len(r) for r in entry]}; {hint}.")
    G = np.array([[_number(f"{key}[{a}][{b}]", v) for b, v in enumerate(row)] for a, row in enumerate(entry)])
    check_gram(G, key)
    if size > 3 and not _rank_r_interfaces():
        raise ParameterError(f"{key} is {size}x{size} (r = {(size - 1) // 2} heads): this version of symrmt "
                             "runs rank-one geometries only; give a 3x3 Gram matrix or a geometry dict.")
    return G.tolist()


def _simulation_accepts(name: str) -> bool:
    from .simulation import simulate_once

    return name in inspect.signature(simulate_once).parameters


@functools.lru_cache(maxsize=None)
def _rank_r_interfaces() -> bool:
    """Whether theory and simulation both take ``gram=`` a (1+2r)x(1+2r) matrix (symrmt with rank-r weights)."""
    from . import theory

    return _simulation_accepts("gram") and hasattr(theory, "gram_parameters")


def model_geometry(entry: dict | list) -> tuple[dict, dict]:
    """Keyword arguments ``(theory, simulation)`` that pass one spec geometry entry to the library.

    A dict becomes ``geometry=Geometry(**entry)`` for both. A Gram matrix ``G`` becomes
    ``gram=np.asarray(G)`` for both where the library takes Gram matrices; in versions
    without them (rank one only) a 3x3 ``G`` goes to the rank-one interfaces instead:
    the six Gram entries for the theory and the equivalent
    :class:`~symrmt.geometry.Geometry` for the simulator.
    """
    if isinstance(entry, dict):
        geometry = Geometry(**entry)
        return {"geometry": geometry}, {"geometry": geometry}
    G = np.asarray(entry, dtype=float)
    if _rank_r_interfaces():
        return {"gram": G}, {"geometry": None, "gram": G}
    theory = {"theta": G[0, 0], "alpha_K": G[0, 1], "alpha_Q": G[0, 2],
              "omega_KK": G[1, 1], "omega_QQ": G[2, 2], "omega_KQ": G[1, 2]}
    return {"gram": theory}, {"geometry": Geometry.from_gram(G)}


# ---------------------------------------------------------------------------
# The two tasks (run in a worker: plain data in, plain data out)
# ---------------------------------------------------------------------------

def _finite_list(values: np.ndarray) -> list:
    """JSON has no NaN/inf: non-finite entries become null."""
    return [float(v) if math.isfinite(v) else None for v in np.asarray(values, dtype=float).tolist()]


def theory_task(payload: dict) -> dict:
    """Theory of one setting on the γ grid: ``{"a1", "nu", "attention", "linear", "error"}``.

    A curve the solver cannot finish is retried one γ at a time, so that only the γ it
    cannot solve become null (with the reason in ``error``) and the sweep goes on.
    """
    from .theory import attention_error, linear_error

    theory_geometry, _ = model_geometry(payload["geometry"])
    a1, nu, c, d = payload["a1"], payload["nu"], payload["c"], payload["d"]
    curves = {"attention": lambda g: attention_error((a1, nu), c, g, d=d, **theory_geometry),
              "linear": lambda g: linear_error(c, g, **theory_geometry)}
    out: dict[str, Any] = {"a1": a1, "nu": nu}
    errors = []
    for name, curve in curves.items():
        out[name], failed = _curve(curve, payload["gamma"])
        errors += [f"{name} at gamma = {g:g}: {message}" for g, message in failed]
    out["error"] = "; ".join(errors) or None
    return out


def _curve(curve: Callable, gamma: list[float]) -> tuple[list, list[tuple[float, str]]]:
    """``curve(gamma)`` as a JSON list, and the ``(gamma, message)`` the solver did not converge at."""
    try:
        return _finite_list(curve(np.asarray(gamma))), []
    except ConvergenceError:
        pass
    values, failed = [], []
    for g in gamma:
        try:
            values.append(_finite_list(curve(np.asarray([g])))[0])
        except ConvergenceError as exc:
            values.append(None)
            failed.append((g, str(exc)))
    return values, failed


@functools.lru_cache(maxsize=64)
def _nonlinearity(f: str, a0: float) -> Callable[[np.ndarray], np.ndarray]:
    """NumPy function of ``f - a0``, built once per worker process (generated code does not pickle)."""
    from .codegen import numpy_function
    from .nonlinearity import X, parse_nonlinearity

    base = numpy_function(parse_nonlinearity(f), [X], name="f")

    def centered(scores: np.ndarray) -> np.ndarray:
        return base(scores) - a0

    centered.__name__ = f if a0 == 0 else f"{f} - {a0!r}"
    return centered


def monte_carlo_task(payload: dict) -> dict:
    """One Monte Carlo draw of one point on the γ grid: ``{"attention", "linear"}``."""
    from .simulation import simulate_once

    _, simulation_geometry = model_geometry(payload["geometry"])
    rng = np.random.default_rng(np.random.SeedSequence(int(payload["key"], 16)))
    options = {} if payload["method"] is None else {"method": payload["method"]}
    attention, linear = simulate_once(_nonlinearity(payload["f"], payload["a0"]), n=payload["n"], c=payload["c"],
                                      gamma=payload["gamma"], d=payload["d"], rng=rng,
                                      **simulation_geometry, **options)
    return {"attention": _finite_list(attention), "linear": _finite_list(linear)}


def _theory_payload(spec: SweepSpec, point: dict) -> dict:
    a1, nu, _ = spec.hermite[point["f"]]
    return {"a1": a1, "nu": nu, "c": point["c"], "d": point["d"], "geometry": point["geometry"],
            "gamma": list(spec.gamma)}


def _monte_carlo_payload(spec: SweepSpec, point: dict) -> dict:
    return {"f": point["f"], "a0": spec.hermite[point["f"]][2], "n": point["n"], "c": point["c"], "d": point["d"],
            "geometry": point["geometry"], "gamma": list(spec.gamma), "method": spec.method,
            "key": point_key(point)}


def _record(spec: SweepSpec, point: dict, theory: dict, mc: dict) -> dict:
    return {"spec_hash": spec.hash, "key": point_key(point), "f": point["f"], "center": point["center"],
            "a0": spec.hermite[point["f"]][2],
            "c": point["c"], "d": point["d"], "geometry": point["geometry"], "n": point["n"],
            "p": int(round(point["c"] * point["n"])), "seed": point["seed"], "method": spec.method,
            "gamma": list(spec.gamma), "theory": theory, "mc": mc}


def compute_point(spec: SweepSpec, point: dict) -> dict:
    """The record of one point, computed here and now (what a sweep writes for it).

    Examples
    --------
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 1})
    >>> record = compute_point(spec, spec.points()[0])
    >>> record["n"], record["p"], len(record["mc"]["attention"]), len(record["theory"]["attention"])
    (16, 16, 2, 2)
    """
    return _record(spec, point, theory_task(_theory_payload(spec, point)),
                   monte_carlo_task(_monte_carlo_payload(spec, point)))


# ---------------------------------------------------------------------------
# The result file
# ---------------------------------------------------------------------------

def _header(spec: SweepSpec) -> dict:
    from . import __version__

    return {"symrmt_sweep": FORMAT, "spec_hash": spec.hash, "spec": spec.as_dict(), "points": len(spec.points()),
            "symrmt": __version__}


def _parse_lines(path: Path, data: bytes) -> tuple[dict | None, list[dict]]:
    """Header and records of the complete lines of ``data`` (a partial last line is ignored)."""
    lines = data[: data.rfind(b"\n") + 1].splitlines()
    parsed = []
    for number, line in enumerate(lines, start=1):
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise SymrmtInputError(f"{path} line {number} is not JSON: the file was edited or is not a sweep "
                                   "result; move it away to start over.") from None
    if not parsed:
        return None, []
    header = parsed[0]
    if not isinstance(header, dict) or header.get("symrmt_sweep") != FORMAT:
        raise SymrmtInputError(f"{path} is not a symrmt sweep result file (format {FORMAT}): its first line "
                               "is not a sweep header; choose another --out.")
    return header, parsed[1:]


def read_records(path: str | os.PathLike) -> tuple[dict | None, list[dict]]:
    """Header and records of a result file, read-only (a partial last line is ignored, not removed)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SymrmtInputError(f"{path}: cannot read it ({exc.strerror}).") from None
    return _parse_lines(path, data)


class _ResultFile:
    """An exclusively locked result file: drops a partial last line, checks the header, appends durably."""

    def __init__(self, path: Path, spec: SweepSpec):
        self.path, self.spec, self.dropped = path, spec, 0
        created = not path.exists()
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise SymrmtInputError(f"--out {str(path)!r}: cannot open it for writing ({exc.strerror}).") from None
        try:
            self._lock()
            self.done = self._load()
            if created:
                _fsync_directory(path.parent)
        except BaseException:
            os.close(self.fd)
            raise

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no protection against two writers
            return
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SymrmtInputError(f"{self.path} is being written by another running sweep; wait for it "
                                   "or choose another --out.") from None

    def _load(self) -> set[str]:
        size = os.fstat(self.fd).st_size
        os.lseek(self.fd, 0, os.SEEK_SET)  # writes still go to the end (O_APPEND)
        data = os.read(self.fd, size)
        complete = data.rfind(b"\n") + 1
        if complete < len(data):  # the crash happened in the middle of a write
            os.ftruncate(self.fd, complete)
            os.fsync(self.fd)
            self.dropped = len(data) - complete
        header, records = _parse_lines(self.path, data)
        if header is None:
            self.append(_header(self.spec))
            return set()
        self._check_header(header)
        return self._check_records(records)

    def _check_header(self, header: dict) -> None:
        from . import __version__

        if header.get("spec_hash") == self.spec.hash:
            if header.get("symrmt") != __version__:
                warnings.warn(f"{self.path} was started with symrmt {header.get('symrmt')} and is resumed with "
                              f"{__version__}: its records may mix numbers of both versions.", stacklevel=4)
            return
        theirs, ours = header.get("spec") or {}, self.spec.as_dict()
        differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise SymrmtInputError(
            f"{self.path} was written by a different spec (spec hash {header.get('spec_hash')}, this spec "
            f"{self.spec.hash}; keys that differ: {', '.join(differ) or 'none'}). Use another --out, or move "
            "the file away to start over.")

    def _check_records(self, records: list[dict]) -> set[str]:
        expected = {point_key(p) for p in self.spec.points()}
        done = set()
        for record in records:
            key = record.get("key") if isinstance(record, dict) else None
            if key not in expected or record.get("spec_hash") != self.spec.hash:
                raise SymrmtInputError(f"{self.path} holds a record that is not a point of this spec "
                                       f"(key {key!r}); the file was edited. Move it away to start over.")
            done.add(key)
        return done

    def append(self, obj: dict) -> None:
        """Write one full line, then fsync: after return the line survives a crash."""
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)  # also releases the lock


def _fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------
# Back ends: local processes or a Dask cluster
# ---------------------------------------------------------------------------

def _worker_start(parent: int) -> None:
    """Initializer of a local worker process."""
    # Ctrl-C goes to the whole process group; only the parent should react, then stop the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker holds both ends of the pool's queues, so it never sees EOF when the parent is
    # killed (SIGKILL): without this watch it would wait for tasks forever.
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True, name="symrmt-parent-watch").start()


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


class _LocalBackend:
    """A ProcessPoolExecutor of ``workers`` spawned processes.

    Spawned, not forked: a forked worker would inherit the result file's descriptor and
    hold its lock after the parent is killed, and forking a process with BLAS threads is unsafe.
    """

    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor
        import multiprocessing

        self.executor = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_start, initargs=(os.getpid(),))

    def submit(self, fn: Callable, payload: dict, name: str):
        return self.executor.submit(fn, payload)

    def as_completed(self, futures: Sequence) -> Iterator:
        from concurrent.futures import as_completed

        return as_completed(futures)

    def close(self, abort: bool) -> None:
        if abort:
            _terminate_workers(self.executor)
        else:
            self.executor.shutdown(wait=True)


def _terminate_workers(executor) -> None:
    """Stop the running tasks now instead of waiting for them (nothing of theirs would be written)."""
    terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    # Before 3.14 the only way to interrupt a running task is the private process table,
    # read before shutdown() drops it.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


class _DaskBackend:
    """A ``dask.distributed.Client`` connected to ``address``; the workers must have symrmt installed."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise SymrmtInputError("--scheduler needs Dask distributed: pip install 'symrmt[dask]'.") from None
        try:
            self.client = Client(address, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise SymrmtInputError(f"--scheduler {address!r}: cannot connect ({exc}); give the address a Dask "
                                   "scheduler prints, e.g. tcp://127.0.0.1:8786.") from None
        self.futures: list = []
        self._check_workers(address)

    def _check_workers(self, address: str) -> None:
        """Every connected worker must import this symrmt version (a different one would give other numbers)."""
        from . import __version__

        try:
            versions = self.client.run(_symrmt_version)
        except Exception as exc:  # whatever the worker raised while importing symrmt
            self.client.close()
            raise SymrmtInputError(f"--scheduler {address}: a worker cannot run symrmt ({type(exc).__name__}: "
                                   f"{exc}); install symrmt {__version__} on every worker.") from None
        wrong = {worker: v for worker, v in versions.items() if v != __version__}
        if wrong:
            self.client.close()
            raise SymrmtInputError(f"--scheduler {address}: workers run other symrmt versions {wrong}; this "
                                   f"client has {__version__}. Install the same version everywhere.")

    def submit(self, fn: Callable, payload: dict, name: str):
        # A deterministic key (spec hash + point): resubmitting a point of the same spec reuses a result the
        # cluster still holds; the spec hash keeps two specs sharing a point (another gamma grid) apart.
        future = self.client.submit(fn, payload, key=f"symrmt-sweep-{name}", pure=False)
        self.futures.append(future)
        return future

    def as_completed(self, futures: Sequence) -> Iterator:
        from distributed import as_completed  # not concurrent.futures.as_completed: it does not take Dask futures

        return as_completed(futures)

    def close(self, abort: bool) -> None:
        if abort:
            self.client.cancel(self.futures)
        self.client.close()


def _symrmt_version() -> str:
    """Run on each Dask worker: the symrmt version it imports."""
    from . import __version__

    return __version__


@contextlib.contextmanager
def _single_threaded_workers() -> Iterator[None]:
    """One BLAS and solver thread per local worker (unless the user set them): ``--workers N`` uses N cores.

    Points are independent, so processes parallelize them better than threads; and
    multithreaded OpenBLAS on a core that another process also uses can be 10-25x
    slower than one thread (measured here at n = 512, see docs/performance.md).
    """
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "SYMRMT_THREADS")
    added = [name for name in names if name not in os.environ]
    os.environ.update({name: "1" for name in added})  # read by the spawned workers at start-up
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


# ---------------------------------------------------------------------------
# Running a sweep
# ---------------------------------------------------------------------------

def _records(backend, spec: SweepSpec, todo: list[dict]) -> Iterator[dict]:
    """Records of ``todo`` in completion order: one theory task per setting, one Monte Carlo task per point."""
    tags, settings = {}, {}
    for point in todo:
        settings.setdefault(_setting_key(point), point)
    for key, point in settings.items():  # submitted first: a pool runs tasks in submission order
        tags[backend.submit(theory_task, _theory_payload(spec, point), f"{spec.hash}-theory-{key[:20]}")] = \
            ("theory", key)
    for point in todo:
        payload = _monte_carlo_payload(spec, point)
        tags[backend.submit(monte_carlo_task, payload, f"{spec.hash}-mc-{payload['key'][:20]}")] = ("mc", point)
    theory, waiting = {}, {}  # setting key -> theory; setting key -> [(point, mc)] waiting for it
    for future in backend.as_completed(list(tags)):
        kind, item = tags.pop(future)
        result = _result(future, kind, item if kind == "mc" else settings[item])
        if kind == "theory":
            theory[item] = result
            for point, mc in waiting.pop(item, []):
                yield _record(spec, point, result, mc)
        elif _setting_key(item) in theory:
            yield _record(spec, item, theory[_setting_key(item)], result)
        else:
            waiting.setdefault(_setting_key(item), []).append((item, result))


def _result(future, kind: str, point: dict):
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:
        raise RuntimeError("a sweep worker process died (out of memory, or killed); the finished points are in "
                           "the file: run the same command again to resume.") from None
    except SymrmtInputError as exc:
        where = {k: point[k] for k in ("f", "c", "d", "geometry")} | ({"n": point["n"]} if kind == "mc" else {})
        raise type(exc)(f"{kind} of {_canonical(where)}: {exc}") from None


def run_sweep(spec: SweepSpec, out: str | os.PathLike, workers: int | None = None, scheduler: str | None = None,
              progress: bool = True) -> dict:
    """Run every point of ``spec`` not yet in ``out``, appending one JSON line per finished point.

    Parameters
    ----------
    spec : SweepSpec
        From :func:`load_spec` or :func:`parse_spec`.
    out : path
        The result file (created if missing; must come from the same spec if it exists).
    workers : int, optional
        Local worker processes (default: the usable CPUs, at most one per task).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``) to run on instead.
    progress : bool
        A tqdm bar on stderr (only when stderr is a terminal and the run takes over 2 s).

    Returns
    -------
    dict
        ``out``, ``spec_hash``, ``points`` (of the spec), ``computed`` (this run),
        ``skipped`` (already in the file) and ``dropped_bytes`` (of a partial last line).

    Raises
    ------
    KeyboardInterrupt
        After Ctrl-C, once the workers are stopped and the file is closed; rerunning resumes.
    """
    if workers is not None and scheduler is not None:
        raise ParameterError("--workers is for the local run; with --scheduler the cluster's workers are used.")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ParameterError(f"--workers {workers!r}: must be an integer >= 1.")
    results = _ResultFile(Path(out), spec)
    try:
        todo = [p for p in spec.points() if point_key(p) not in results.done]
        _run(spec, results, todo, workers, scheduler, progress)
    finally:
        results.close()
    return {"out": str(out), "spec_hash": spec.hash, "points": len(spec.points()), "computed": len(todo),
            "skipped": len(spec.points()) - len(todo), "dropped_bytes": results.dropped}


def _run(spec: SweepSpec, results: _ResultFile, todo: list[dict], workers: int | None, scheduler: str | None,
         progress: bool) -> None:
    if not todo:
        return
    if scheduler is None:
        workers = min(workers or usable_cpus(), len(todo))
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            stack.enter_context(_single_threaded_workers())
        backend = _DaskBackend(scheduler) if scheduler is not None else _LocalBackend(workers)
        bar = stack.enter_context(progress_bar(desc="sweep", unit="point", total=len(spec.points()),
                                               initial=len(spec.points()) - len(todo), enabled=progress))
        aborted = True
        try:
            for record in _records(backend, spec, todo):
                results.append(record)
                bar.update()
            aborted = False
        finally:
            backend.close(abort=aborted)


# ---------------------------------------------------------------------------
# Summary: means and standard errors over seeds
# ---------------------------------------------------------------------------

SUMMARY_COLUMNS = ("f", "center", "c", "d", "geometry", "n", "p", "method", "gamma", "seeds",
                   "attention_theory", "attention_mean", "attention_se", "linear_theory", "linear_mean", "linear_se")


def _mean_se(values: list[list]) -> tuple[list, list]:
    """Mean over seeds and ``std(ddof=1)/sqrt(seeds)``, as JSON lists (null where undefined: one seed)."""
    mean, se = mean_se(np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float))
    return _finite_list(mean), _finite_list(se)


def summarize(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    r"""Means and standard errors over seeds, per setting, ``n`` and γ, of a result file.

    The standard error is ``std(ddof=1) / sqrt(seeds)`` (None with one seed).

    Returns
    -------
    info, rows
        ``info``: ``spec_hash``, ``points`` (of the spec), ``finished``; ``rows``: one dict
        per setting, ``n`` and γ with the keys :data:`SUMMARY_COLUMNS`, in spec order.
    """
    header, records = read_records(path)
    if header is None:
        raise SymrmtInputError(f"{path} is empty: no sweep has written to it yet.")
    groups: dict[str, list[dict]] = {}
    for record in records:
        group = _canonical({k: record[k] for k in ("f", "center", "c", "d", "geometry", "n", "method")})
        groups.setdefault(group, []).append(record)
    rows = [row for members in groups.values() for row in _group_rows(members)]
    order = _spec_order(header["spec"])
    rows.sort(key=lambda r: (order(r), r["gamma"]))
    return {"spec_hash": header["spec_hash"], "points": header["points"], "finished": len(records)}, rows


def _group_rows(members: list[dict]) -> list[dict]:
    first = members[0]
    theory = first["theory"]
    attention, attention_se = _mean_se([m["mc"]["attention"] for m in members])
    linear, linear_se = _mean_se([m["mc"]["linear"] for m in members])
    return [{"f": first["f"], "center": first["center"], "c": first["c"], "d": first["d"],
             "geometry": first["geometry"], "n": first["n"], "p": first["p"], "method": first["method"],
             "gamma": g, "seeds": len(members),
             "attention_theory": theory["attention"][i],
             "attention_mean": attention[i], "attention_se": attention_se[i],
             "linear_theory": theory["linear"][i],
             "linear_mean": linear[i], "linear_se": linear_se[i]}
            for i, g in enumerate(first["gamma"])]


def _spec_order(spec: dict) -> Callable[[dict], tuple]:
    """Sort key putting rows in the order of the spec's lists (f, c, d, geometry, n)."""
    index = {key: {_canonical(v): i for i, v in enumerate(spec[key])} for key in ("f", "c", "d", "geometry", "n")}
    return lambda row: tuple(index[key].get(_canonical(row[key]), -1) for key in ("f", "c", "d", "geometry", "n"))


def default_csv_path(path: str | os.PathLike) -> Path:
    """``results.jsonl`` -> ``results.summary.csv`` (next to the result file)."""
    path = Path(path)
    return path.with_name(path.stem + ".summary.csv")


def write_summary_csv(rows: list[dict], path: str | os.PathLike) -> Path:
    """Write summary rows as CSV (geometry as compact JSON; NaN and missing values as empty cells)."""
    path = Path(path)
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=SUMMARY_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_cell(k, row[k]) for k in SUMMARY_COLUMNS})
    return path


def _csv_cell(key: str, value: Any) -> Any:
    if key == "geometry":
        return _canonical(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else value

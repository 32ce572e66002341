r"""The sweep spec: reading, validation, normalization, hashing and the points it defines.

The format is documented in :mod:`symrmt.sweep`. Everything here is checked before anything
runs or is allocated: sizes first (:data:`~symrmt.validate.MAX_GRID_POINTS` bounds the γ grid,
the seeds and the points, as it bounds the command line's grids), then every value, then f
(the only slow check: SymPy may search for closed forms).
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import reprlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

from ..errors import ParameterError, SymrmtInputError
from ..geometry import Geometry, check_gram
from ..models import ATTENTION, LINEAR
from ..models import get as get_model
from ..models import names as model_names
from ..models.model import check_name
from ..runtime.files import read_regular
from ..validate import DOMAINS, MAX_GRID_POINTS, RANGE_HINT, grid, inside

__all__ = ["SweepSpec", "load_spec", "parse_spec", "normalize_spec", "spec_hash", "spec_points", "point_key",
           "setting_key", "hermite_key", "canonical", "shown", "GEOMETRY_KEYS", "MAX_SPEC_BYTES", "MONTE_CARLO",
           "THEORY_ARGUMENTS"]

GEOMETRY_KEYS = ("mu_norm", "wk_norm", "wq_norm", "cos_mu_wk", "cos_mu_wq", "cos_wk_wq")
#: Largest spec file read: a spec at every size bound (γ given as a list of MAX_GRID_POINTS numbers)
#: is about 2 MB, so this refuses only files that are not specs, before reading them into memory.
MAX_SPEC_BYTES = 16 * 2**20
#: The models of the Monte Carlo's two curves (:func:`symrmt.simulation.simulate_once`), in its order; by default the
#: theory is computed for the same models.
MONTE_CARLO = (ATTENTION.name, LINEAR.name)
#: What a sweep offers every model's theory, by argument name: f (its Hermite data), c, gamma, d and the geometry
#: (``geometry`` or ``gram``); each model takes those its ``read`` or solver names (:meth:`symrmt.models.Model.taken`).
THEORY_ARGUMENTS = ("f", "c", "gamma", "d", "geometry", "gram")
_REQUIRED = ("f", "c", "n", "gamma", "seeds")
_OPTIONAL = {"d": [0.0], "geometry": [{}], "center": False, "method": None, "params": {}, "models": list(MONTE_CARLO)}
_POINT_KEYS = ("f", "center", "c", "d", "geometry", "n", "seed")
_SETTING_KEYS = ("f", "center", "c", "d", "geometry")

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80


def shown(value: Any) -> str:
    """A short repr of a user value for a one-line message (nesting and length cut, never recursive)."""
    return _REPR.repr(value)


# ---------------------------------------------------------------------------
# Canonical JSON and keys
# ---------------------------------------------------------------------------

def canonical(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, no NaN (what keys and hashes are computed from)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _digest(obj: Any) -> str:
    return hashlib.sha256(canonical(obj).encode()).hexdigest()


def _with_params(point: Mapping, keys: Sequence[str]) -> dict:
    """``keys`` of ``point``, and its ``params`` when f has parameters (absent otherwise, so that the points of
    specs without parameters keep their keys)."""
    return {k: point[k] for k in keys} | ({"params": point["params"]} if point.get("params") else {})


def point_key(point: Mapping) -> str:
    """SHA-256 (hex) of the canonical JSON of a point; its integer value seeds the draw (see :mod:`symrmt.sweep`).

    Parameters
    ----------
    point : mapping
        One point of a spec (``spec.points()``): its f, parameters, sizes, seed.

    Returns
    -------
    str
        64 hexadecimal digits.

    Raises
    ------
    KeyError
        A mapping that is not a point of a spec (a key of a point missing).
    TypeError
        A value that is not JSON data.

    See Also
    --------
    run_sweep : Uses the key to skip the points already in a result file.

    Examples
    --------
    >>> from symrmt.sweep import parse_spec, point_key
    >>> from symrmt.sweep.spec import spec_points
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1], "seeds": 2})
    >>> first, second = spec_points(spec.as_dict())           # seeds 0 and 1
    >>> len(point_key(first)), point_key(first) == point_key(dict(first)), point_key(first) != point_key(second)
    (64, True, True)
    """
    return _digest(_with_params(point, _POINT_KEYS))


def setting_key(point: Mapping) -> str:
    """SHA-256 (hex) of a point's setting ``(f, params, center, c, d, geometry)``: points that share one theory."""
    return _digest(_with_params(point, _SETTING_KEYS))


def hermite_key(point: Mapping) -> str:
    """Which Hermite data of :attr:`SweepSpec.hermite` a point uses: its f, and its parameter values if any."""
    return canonical([point["f"], point["params"]]) if point.get("params") else point["f"]


def spec_hash(spec: Mapping) -> str:
    """First 16 hex digits of the SHA-256 of a normalized spec (:meth:`SweepSpec.as_dict`)."""
    return _digest(spec)[:16]


def spec_points(spec: Mapping) -> list[dict]:
    """Every point of a normalized spec, seed-major (a run that stops early has covered the grid with fewer seeds)."""
    fs = [(f, values) for f in spec["f"] for values in _parameter_points(f, spec.get("params", {}))]
    grid = itertools.product(range(spec["seeds"]), spec["n"], fs, spec["c"], spec["d"], spec["geometry"])
    return [{"f": f, **({"params": values} if values else {}), "center": spec["center"], "c": c, "d": d,
             "geometry": g, "n": n, "seed": k}
            for k, n, (f, values), c, d, g in grid]


def _parameter_points(f: str, params: Mapping[str, list]) -> list[dict]:
    """The values of f's parameters at each of its points: the product of their lists ([{}] without parameters)."""
    names = _names_of(f) if params else []      # a spec without params has f without parameters (checked)
    return [dict(zip(names, values)) for values in itertools.product(*(params[n] for n in names))]


def _names_of(f: str) -> list[str]:
    from ..nonlinearity.parse import formula_parameters  # heavy: SymPy, only for specs with parameters

    return formula_parameters(f)


# ---------------------------------------------------------------------------
# The spec
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class SweepSpec:
    """A validated, normalized sweep spec (see :mod:`symrmt.sweep`); build it with :func:`load_spec`.

    ``hermite`` maps each ``f`` to ``(a_1, nu, a_0)`` of the (centered, if ``center``)
    nonlinearity, computed once during validation. ``models`` names the registered models whose theory curves
    are computed (default :data:`MONTE_CARLO`).

    Examples
    --------
    >>> from symrmt.sweep import parse_spec
    >>> spec = parse_spec({"f": "tanh(x)", "c": [0.5, 1.0], "n": 16, "gamma": "0.01:1:3", "seeds": 2})
    >>> spec.f, spec.c, spec.n, spec.gamma, spec.seeds
    (('tanh(x)',), (0.5, 1.0), (16,), (0.01, 0.1, 1.0), 2)
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
    params: dict = dataclasses.field(default_factory=dict)
    models: tuple[str, ...] = MONTE_CARLO

    def as_dict(self) -> dict[str, Any]:
        """The normalized spec as plain JSON data (what the result file's header holds; ``params`` only if any,
        ``models`` only where not the default, so that the specs without them keep their hashes)."""
        return {"f": list(self.f), "c": list(self.c), "n": list(self.n), "gamma": list(self.gamma),
                "d": list(self.d), "geometry": list(self.geometry), "seeds": self.seeds,
                "center": self.center, "method": self.method, **({"params": self.params} if self.params else {}),
                **({"models": list(self.models)} if tuple(self.models) != MONTE_CARLO else {})}

    @property
    def hash(self) -> str:
        """First 16 hex digits of the SHA-256 of :meth:`as_dict` (canonical JSON)."""
        return spec_hash(self.as_dict())

    def points(self) -> list[dict]:
        """Every point, seed-major (a run that stops early has covered the grid with fewer seeds)."""
        return spec_points(self.as_dict())


def load_spec(path: str | os.PathLike) -> SweepSpec:
    """Read a JSON or TOML spec file (by extension: ``.toml`` is TOML) and validate it (:func:`parse_spec`).

    Parameters
    ----------
    path : str or path
        A ``.json`` or ``.toml`` spec file, at most a few MiB.

    Returns
    -------
    SweepSpec
        The validated spec (its points, lists and hash).

    Raises
    ------
    SymrmtInputError
        A file that cannot be read, is too large, is not JSON or TOML, or a spec :func:`parse_spec` refuses.

    See Also
    --------
    parse_spec : The same from plain data.
    run_sweep : Run the spec.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from symrmt.sweep import load_spec
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "spec.json"
    ...     _ = path.write_text(json.dumps({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 2}))
    ...     spec = load_spec(path)
    >>> spec.gamma, spec.seeds
    ((0.1, 1.0), 2)
    """
    text = read_regular(path, "spec", MAX_SPEC_BYTES)        # a FIFO or /dev/zero is refused, not read
    path = Path(path)
    kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
    if len(text) > MAX_SPEC_BYTES:
        raise SymrmtInputError(f"spec {str(path)!r} is over {MAX_SPEC_BYTES // 2**20} MiB: not a sweep spec "
                               "(a spec lists values, and gamma can be \"LO:HI:NUM\").")
    try:
        raw = tomllib.loads(text.decode()) if kind == "TOML" else json.loads(text)
    except RecursionError:
        raise SymrmtInputError(f"spec {str(path)!r} is nested too deeply to be a sweep spec (a spec holds lists "
                               "of values and Gram matrices, three levels at most).") from None
    except ValueError as exc:  # JSONDecodeError, TOMLDecodeError and UnicodeDecodeError are ValueErrors
        raise SymrmtInputError(f"spec {str(path)!r} is not valid {kind}: {exc}.") from None
    return parse_spec(raw, source=str(path))


def parse_spec(raw: Any, source: str = "spec") -> SweepSpec:
    """Validate a spec given as plain data (the content of a spec file).

    Parameters
    ----------
    raw : dict
        Keys ``f, c, n, gamma, seeds`` and optionally ``d, geometry, center, method``
        (see :mod:`symrmt.sweep`); a single value stands for a list of one.
    source : str
        How error messages name the spec (its file).

    Raises
    ------
    SymrmtInputError
        A :class:`~symrmt.errors.ParameterError` naming the key, the value and the fix,
        for the first problem found; a bad ``f`` as :func:`~symrmt.nonlinearity.hermite` reports it.

    Returns
    -------
    SweepSpec
        The validated spec, with the Hermite data of every f.

    See Also
    --------
    load_spec : The same from a file.
    run_sweep : Run the spec.

    Examples
    --------
    >>> spec = parse_spec({"f": "tanh(x)", "c": [0.5, 1.0], "n": 64, "gamma": "0.01:1:3", "seeds": 2})
    >>> len(spec.points()), spec.gamma, spec.hash == parse_spec(spec.as_dict()).hash
    (4, (0.01, 0.1, 1.0), True)
    """
    spec = normalize_spec(raw, source)
    _check_models(spec.get("models", MONTE_CARLO))
    # Last, as the only slow check (SymPy may search for closed forms): every cheap mistake is reported first.
    hermite = _hermite_all(spec["f"], spec["center"], spec.get("params", {}))
    return SweepSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}, hermite=hermite)


def normalize_spec(raw: Any, source: str = "spec") -> dict[str, Any]:
    """Every check of :func:`parse_spec` but f's Hermite data: the normalized spec as plain JSON data.

    Normalizing is idempotent, so a result file's header can be checked by normalizing the spec it holds.
    """
    if not isinstance(raw, dict):
        raise ParameterError(f"{source}: must be a table/object with keys {', '.join(_REQUIRED)}, "
                             f"got {type(raw).__name__}.")
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL), key=str)
    missing = [k for k in _REQUIRED if k not in raw]
    if unknown:
        raise ParameterError(f"{source}: unknown key(s) {shown(unknown)}; the keys are "
                             f"{', '.join(_REQUIRED)} and optionally {', '.join(_OPTIONAL)}.")
    if missing:
        raise ParameterError(f"{source}: missing key(s) {missing} (f, c, n, gamma are lists, seeds a count).")
    raw = {**_OPTIONAL, **raw}
    lists = {key: _as_list(key, raw[key]) for key in ("f", "c", "n", "d", "geometry")}
    seeds = _count(raw["seeds"])
    fs = _unique("f", _strings(lists["f"]))
    params = _parameters(raw["params"], fs)
    _check_size(lists, seeds, sum(len(_parameter_points(f, params)) for f in fs) if params else len(fs))
    spec = dict(f=fs, c=_unique("c", _reals("c", lists["c"], positive=True)),
                n=_unique("n", _integers("n", lists["n"], minimum=2)), gamma=_gammas(raw["gamma"]),
                d=_unique("d", _reals("d", lists["d"])), geometry=_unique("geometry", _geometries(lists["geometry"])),
                seeds=seeds, center=_boolean(raw["center"], "center"), method=_method(raw["method"]))
    _check_ranges(spec)                      # first: c*n below is then a finite product
    _check_dimensions(spec["c"], spec["n"])
    models = _model_names(raw["models"])
    return spec | ({"params": params} if params else {}) | ({"models": models} if tuple(models) != MONTE_CARLO else {})


def _model_names(value: Any) -> list[str]:
    """``models``: names of models (a single name is a list of one), each once; whether they are registered is
    checked by :func:`parse_spec` only, so that a result file of a model registered by its user is read anywhere."""
    names = _as_list("models", value)
    for i, name in enumerate(names):
        try:
            check_name(name)
        except SymrmtInputError as exc:
            raise ParameterError(f"models[{i}]: {exc}") from None
    return _unique("models", names)


def _check_models(names: Sequence[str]) -> None:
    """Every model of ``models`` registered here and solvable over c and gamma from what a sweep offers."""
    for i, name in enumerate(names):
        if name not in model_names():
            raise ParameterError(f"models[{i}] = {shown(name)}: no model of this name is registered; use one of "
                                 f"{', '.join(model_names())}, or register yours first (symrmt.models.register).")
        try:
            get_model(name).taken(THEORY_ARGUMENTS, needs=("c", "gamma"), by="a sweep")
        except SymrmtInputError as exc:
            raise ParameterError(f"models[{i}] = {shown(name)}: {exc}") from None


def _check_ranges(spec: dict) -> None:
    """c, gamma and d in the ranges the theory and the simulator accept (:mod:`symrmt.validate`)."""
    for key in ("c", "gamma", "d"):
        inside(key, np.asarray(spec[key], dtype=float), DOMAINS[key], RANGE_HINT)


# ---------------------------------------------------------------------------
# Sizes and values
# ---------------------------------------------------------------------------

def _as_list(key: str, value: Any) -> list:
    if key == "geometry" and isinstance(value, dict):
        value = [value]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ParameterError(f"{key} = []: give at least one value.")
        if len(value) > MAX_GRID_POINTS:
            raise ParameterError(f"{key} lists {len(value)} values; at most {MAX_GRID_POINTS}.")
        return list(value)
    return [value]  # a single value is a list of one


def _check_size(lists: Mapping[str, list], seeds: int, nonlinearities: int) -> None:
    """The number of points, from the lengths alone: refused before any point is built (``nonlinearities``:
    the f, each once per point of its parameters)."""
    points = seeds * nonlinearities * math.prod(len(values) for key, values in lists.items() if key != "f")
    if points > MAX_GRID_POINTS:
        sizes = " x ".join(f"{nonlinearities if k == 'f' else len(lists[k])} {k}" for k in lists)
        raise ParameterError(f"the spec has {points} points ({seeds} seeds x {sizes}); at most {MAX_GRID_POINTS} "
                             "in one sweep: split it into several specs.")


def _unique(key: str, values: list) -> list:
    seen = set()
    for v in values:
        if canonical(v) in seen:
            raise ParameterError(f"{key} lists {shown(v)} twice; each value must appear once (duplicates would "
                                 "be the same points).")
        seen.add(canonical(v))
    return values


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{key} = {shown(value)}: must be a number.")
    try:
        number = float(value) + 0.0  # + 0.0 turns -0.0 into 0.0, so that both give the same point
    except OverflowError:  # an int beyond float64
        number = math.inf
    if not math.isfinite(number):
        raise ParameterError(f"{key} = {shown(value)}: must be finite.")
    return number


def _reals(key: str, values: list, positive: bool = False) -> list[float]:
    numbers = [_number(f"{key}[{i}]", v) for i, v in enumerate(values)]
    for i, x in enumerate(numbers):
        if positive and x <= 0:
            raise ParameterError(f"{key}[{i}] = {x}: must be > 0.")
    return numbers


def _integers(key: str, values: list, minimum: int) -> list[int]:
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise ParameterError(f"{key}[{i}] = {shown(v)}: must be an integer >= {minimum}.")
    return [int(v) for v in values]


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_GRID_POINTS:
        raise ParameterError(f"seeds = {shown(value)}: must be a count, an integer in 1..{MAX_GRID_POINTS} (the "
                             "number of Monte Carlo draws per setting and n; >= 2 for a t interval).")
    return int(value)


def _boolean(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(f"{key} = {shown(value)}: must be true or false.")
    return value


def _strings(values: list) -> list[str]:
    for i, v in enumerate(values):
        if not isinstance(v, str) or not v.strip():
            raise ParameterError(f"f[{i}] = {shown(v)}: must be a formula in x such as \"tanh(x)\".")
    return [v.strip() for v in values]


def _gammas(value: Any) -> list[float]:
    values = _gamma_grid(value) if isinstance(value, str) else _reals("gamma", _as_list("gamma", value))
    for i, g in enumerate(values):
        if not (math.isfinite(g) and g > 0):
            raise ParameterError(f"gamma[{i}] = {g}: every ridge must be finite and > 0.")
    return _unique("gamma", values)


def _gamma_grid(text: str) -> list[float]:
    """``"LO:HI:NUMlog"``: NUM log-spaced values; ``"LO:HI:NUM"`` still log-spaced for gamma, with a warning
    (:func:`symrmt.validate.grid`)."""
    return grid(text, subject=f"gamma = {shown(text)}", plain_log=True, expected=(
        'give a list of numbers or "LO:HI:NUMlog" (NUM log-spaced values from LO to HI), e.g. "1e-2:10:20log"')).tolist()


def _linear_grid(key: str, text: str) -> list[float]:
    """``"LO:HI:NUM"``: NUM evenly spaced values, ``"LO:HI:NUMlog"`` log-spaced ones (:func:`symrmt.validate.grid`)."""
    return grid(text, subject=f"{key} = {shown(text)}", expected=(
        'give a list of numbers or "LO:HI:NUM" (NUM evenly spaced values) or "LO:HI:NUMlog" (log-spaced), '
        'e.g. "0.5:2:4"')).tolist()


def _method(value: Any) -> str | None:
    from ..simulation import METHODS  # heavy: SciPy

    if value is not None and value not in METHODS:
        raise ParameterError(f"method = {shown(value)}: use one of {', '.join(METHODS)} (or leave it out for the "
                             "simulator's default).")
    return value


def _check_dimensions(cs: Sequence[float], ns: Sequence[int]) -> None:
    for c, n in itertools.product(cs, ns):
        if n > 2.0**62 / c:                  # compared exactly: c * n would overflow for a huge int n
            raise ParameterError(f"c = {c}, n = {shown(n)}: p = round(c*n) is far too large to simulate; use a smaller c "
                                 "or n.")
        if round(c * n) < 3:
            raise ParameterError(f"c = {c}, n = {n}: p = round(c*n) = {round(c * n)} < 3 (the simulator places "
                                 "mu, w_K and w_Q in R^p); raise n or c.")


def _parameters(value: Any, fs: Sequence[str]) -> dict[str, list[float]]:
    """``params``: a table from each parameter name to its values (a list, or ``"LO:HI:NUM"``, evenly spaced),
    naming exactly the parameters of the f that have some."""
    if not isinstance(value, dict):
        raise ParameterError(f"params = {shown(value)}: must be a table from each parameter of f to its values, "
                             "e.g. params = {s = [0.5, 1.0, 2.0]} for f = \"tanh(s*x)\".")
    used = set().union(*(_names_of(f) for f in fs))
    if not value and not used:
        return {}
    unknown, missing = sorted(set(value) - used, key=str), sorted(used - set(value))
    if unknown or missing:
        raise ParameterError(
            (f"params names {shown(unknown)}, which no f has; " if unknown else "")
            + (f"the parameter(s) {missing} of f have no values in params; " if missing else "")
            + "give one list of values per parameter of the f (the names other than x).")
    out = {}
    for name in sorted(value):
        values = _linear_grid(f"params.{name}", value[name]) if isinstance(value[name], str) else \
            _reals(f"params.{name}", _as_list(f"params.{name}", value[name]))
        out[name] = _unique(f"params.{name}", values)
    return out


def _hermite_all(fs: Sequence[str], center: bool, params: Mapping[str, list]) -> dict[str, tuple[float, float, float]]:
    """``hermite_key -> (a_1, nu, a_0)`` once per f and point of its parameters: validates f up front and pins
    its numbers for every worker (``a_0`` is what ``center`` subtracts)."""
    out = {}
    for i, f in enumerate(fs):
        try:
            out.update(_hermite_of(f, center, _parameter_points(f, params)))
        except SymrmtInputError as exc:
            raise type(exc)(f"f[{i}] = {f!r}: {exc}") from None
    return out


def _hermite_of(f: str, center: bool, points: list[dict]) -> dict[str, tuple[float, float, float]]:
    from ..nonlinearity import hermite  # heavy: SymPy

    if points == [{}]:
        h = hermite(f, center=center)
        h.require_centered()            # its message names center = true
        return {f: (float(h.a1), float(h.nu), float(h.centered_by))}
    grid = {name: np.array([p[name] for p in points]) for name in points[0]}
    data = hermite(f).numeric(**grid)                 # vectorized over the points; a0 of f as given
    if not center:
        hermite(f).require_centered(data, grid)
    a0 = data["a0"] if center else np.zeros(len(points))
    return {hermite_key({"f": f, "params": p}): (float(data["a1"][j]), float(data["nu"][j] - a0[j] ** 2), float(a0[j]))
            for j, p in enumerate(points)}


# ---------------------------------------------------------------------------
# Geometry entries: a dict of norms and cosines, or a Gram matrix
# ---------------------------------------------------------------------------

def _geometries(values: list) -> list:
    return [_geometry_entry(i, g) for i, g in enumerate(values)]


def _geometry_entry(i: int, entry: Any) -> dict | list:
    key = f"geometry[{i}]"
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - set(GEOMETRY_KEYS), key=str)
        if unknown:
            raise ParameterError(f"{key} has unknown key(s) {shown(unknown)}; a geometry dict has "
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
        raise ParameterError(f"{key} = {shown(entry)}: must be a geometry dict or a Gram matrix; {hint}.")
    size = len(entry)
    if size < 3 or size % 2 == 0 or any(len(row) != size for row in entry):
        raise ParameterError(f"{key}: a {size}-row matrix with rows of lengths {shown([len(r) for r in entry])}; "
                             f"{hint}.")
    G = np.array([[_number(f"{key}[{a}][{b}]", v) for b, v in enumerate(row)] for a, row in enumerate(entry)])
    check_gram(G, key)
    return G.tolist()

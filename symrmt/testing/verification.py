r"""Run the whole property catalogue on one nonlinearity: :func:`verify` (and ``symrmt check``).

Each property of :data:`~symrmt.testing.checks.CATALOGUE` runs on points drawn by Hypothesis
(:func:`~symrmt.testing.strategies.points`) whose Hermite data are those of your f, at
random c, d and geometry in the ranges of :mod:`symrmt.testing.strategies`. A property holds
at a point when every comparison it makes is within its tolerance; the result keeps, per
property, the worst comparison seen (the largest gap relative to its tolerance) and, when it
failed, the message and the point.

Some properties fix part of f themselves (``a1_zero`` sets :math:`a_1 = 0`, ``linear_f`` sets
:math:`\nu = a_1^2`, ``softmax_large_temperature`` uses the softmax's f): they check the theory
in a region next to your f and are run all the same, so that one call checks the whole
catalogue; the region column says which.
"""
from __future__ import annotations

import math
from collections import abc
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st
from hypothesis import seed as hypothesis_seed

from .. import validate
from ..errors import ParameterTypeError, SymrmtInputError, shown
from ..models.binding import hermite_arrays
from ..nonlinearity import HermiteCoefficients, hermite
from ..runtime.cost import check_seconds
from .checks import CATALOGUE, Deviation, Property, PropertyViolation
from .strategies import HermiteData, points
from .theories import PackageTheory, Point, Theory

__all__ = ["verify", "Verification", "Row", "DEFAULT_EXAMPLES", "MAX_EXAMPLES", "SECONDS_PER_EXAMPLE"]

#: Points per property by default (docs/performance.md: what the whole catalogue costs).
DEFAULT_EXAMPLES = 3
#: The most points per property :func:`verify` accepts (a bound on the run time).
MAX_EXAMPLES = 1000
#: Seconds per point and property, for the estimate of a run checked before it starts (:func:`verify`): 6 points
#: of each of the 19 properties for tanh took 60 s on the 2-core development machine at load 13 to 15 (about 10 s
#: on a quiet one, docs/performance.md); the estimate is points x properties x this.
SECONDS_PER_EXAMPLE = 0.5


@dataclass(frozen=True)
class Row:
    """One property's outcome: ``passed``, the worst comparison (``deviation``), and for a failure the
    ``message`` and the ``counterexample`` point.

    Examples
    --------
    >>> from symrmt.testing import verify
    >>> row = verify("tanh(x)", examples=2, properties=["bounds_and_monotonicity"]).rows[0]
    >>> row.property, row.passed, row.examples, row.deviation.ratio <= 1
    ('bounds_and_monotonicity', True, 2, True)
    """

    property: str
    statement: str
    region: str
    passed: bool
    deviation: Deviation
    examples: int
    message: str = ""
    counterexample: Point | None = None
    #: Whether the check uses the f under test (:attr:`symrmt.testing.Property.uses_f`).
    uses_f: str = "yes"

    def as_dict(self) -> dict:
        gap, tolerance, ratio = (_finite(v) for v in (self.deviation.gap, self.deviation.tolerance,
                                                        self.deviation.ratio))
        return {"property": self.property, "statement": self.statement, "region": self.region,
                "uses_f": self.uses_f, "passed": self.passed,
                "worst_deviation": gap, "tolerance": tolerance, "ratio": ratio, "examples": self.examples,
                "message": self.message,
                "counterexample": None if self.counterexample is None else _point_dict(self.counterexample)}


@dataclass(frozen=True)
class Verification:
    """The catalogue run on one f: ``rows`` (one :class:`Row` per property), ``passed`` when every one held.

    ``str(result)`` is the table ``symrmt check`` prints; ``as_dict()`` its JSON.

    Examples
    --------
    >>> from symrmt.testing import verify
    >>> result = verify("tanh(x)", examples=2, properties=["bounds_and_monotonicity"])
    >>> result.passed, len(result.rows), result.f
    (True, 1, 'tanh(x)')
    """

    f: str
    a1: float
    nu: float
    examples: int
    seed: int
    rows: tuple[Row, ...] = field(default_factory=tuple)
    #: The values of f's parameters the data are taken at (empty without).
    params: Mapping[str, float] = field(default_factory=dict)

    @property
    def f_shown(self) -> str:
        """f as the table prints it: the formula and the values of its parameters."""
        values = ", ".join(f"{k} = {v:.6g}" for k, v in self.params.items())
        return f"{self.f} at {values}" if values else self.f

    @property
    def passed(self) -> bool:
        return all(row.passed for row in self.rows)

    @property
    def failed(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if not row.passed)

    def table(self) -> str:
        width = max(len(row.property) for row in self.rows)
        lines = [f"f = {self.f_shown}: a1 = {self.a1:.6g}, nu = {self.nu:.6g}; up to {self.examples} points per "
                 f"property (seed {self.seed})",
                 f"{'property':<{width}}  passed  {'your f':<7}  {'worst gap':>9}  {'tolerance':>9}  {'gap/tol':>7}  "
                 "region"]
        for row in self.rows:
            d = row.deviation
            lines.append(f"{row.property:<{width}}  {'yes' if row.passed else 'NO':<6}  {row.uses_f:<7}  "
                         f"{_number(d.gap):>9}  {_number(d.tolerance):>9}  {_number(d.ratio):>7}  {row.region}")
        held = sum(row.passed for row in self.rows)
        own = [row for row in self.rows if row.uses_f == "yes"]
        lines.append(f"{held} of {len(self.rows)} properties hold; {sum(row.passed for row in own)} of the {len(own)} "
                     "that use your f whole ('your f': nu only / a1 only / no = the check replaces part or all of f).")
        for row in self.failed:
            lines.append(f"{row.property}: {row.message}")
        return "\n".join(lines)

    __str__ = table

    def as_dict(self) -> dict:
        return {"f": self.f, "params": dict(self.params), "a1": self.a1, "nu": self.nu, "examples": self.examples,
                "seed": self.seed,
                "passed": self.passed, "rows": [row.as_dict() for row in self.rows]}


def verify(f: Any, params: Mapping[str, float] | None = None, *, center: bool = False,
           examples: int = DEFAULT_EXAMPLES, seed: int = 0, properties: Iterable[str] | None = None,
           theory: Theory | None = None, shrink: bool = False, allow_long: bool = False) -> Verification:
    r"""Run the property catalogue on the theory of one nonlinearity f and say which properties hold.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or ``(a_1, nu)``
        The nonlinearity (centered, or with ``center=True``), or its Hermite data.
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 0.5}`` for ``"relu(x) - s*relu(-x)"``.
    center : bool
        Subtract :math:`a_0 = \mathbb E f(\xi)` first.
    examples : int
        Points per property (1 to :data:`MAX_EXAMPLES`), drawn by Hypothesis from ``seed``.
    properties : iterable of str, optional
        Names from :data:`~symrmt.testing.checks.CATALOGUE` (default: all).
    theory : Theory, optional
        The theory to check (default :class:`~symrmt.testing.theories.PackageTheory`, the public API).
    shrink : bool
        Let Hypothesis shrink a failing point to a simpler one (slower).
    allow_long : bool
        Run although the estimate, ``examples`` x properties x :data:`SECONDS_PER_EXAMPLE`, is over
        :data:`symrmt.runtime.cost.MAX_SECONDS` (refused otherwise, before anything is computed).

    Returns
    -------
    Verification
        One row per property: statement, region, passed, worst deviation and tolerance.

    Raises
    ------
    SymrmtInputError
        An f that cannot be read, missing or extra parameters, an unknown property, or ``examples``
        out of range (one line naming the problem).

    See Also
    --------
    symrmt.testing : The strategies and the property catalogue it runs.

    Notes
    -----
    The points are drawn by Hypothesis' ``@given``: called inside a ``@given`` test of your own, that
    test declares the nesting with ``@settings(suppress_health_check=[HealthCheck.nested_given])``.

    Examples
    --------
    >>> result = verify("tanh(x)", examples=1, properties=["scale_law", "sign_symmetry"])
    >>> result.passed, [row.property for row in result.rows]
    (True, ['scale_law', 'sign_symmetry'])
    """
    chosen = _properties(properties)
    if isinstance(examples, bool) or not isinstance(examples, (int, np.integer)) or not 1 <= examples <= MAX_EXAMPLES:
        raise SymrmtInputError(f"examples = {examples!r}: give a whole number of points per property in "
                               f"1..{MAX_EXAMPLES}.")
    check_seconds(int(examples) * len(chosen) * SECONDS_PER_EXAMPLE,
                  f"{int(examples)} points for each of {len(chosen)} properties",
                  "Use fewer examples or properties", validate.boolean("allow_long", allow_long),
                  flag="allow_long=True (--allow-long)")
    a1, nu, text, bound = _hermite(f, params, center)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SymrmtInputError(f"seed = {seed!r}: give a whole number >= 0.")
    shrink = validate.boolean("shrink", shrink)
    theory = PackageTheory() if theory is None else theory
    strategy = points(hermite=st.just(HermiteData(a1, nu)))
    rows = tuple(_run(prop, theory, strategy, int(examples), int(seed), shrink) for prop in chosen)
    return Verification(text, a1, nu, int(examples), int(seed), rows, params=dict(bound))


def _hermite(f: Any, params: Mapping[str, float] | None, center: bool) -> tuple[float, float, str, dict]:
    """``(a1, nu, how f prints, the parameter values used)``, through the package's own reading of f (one line for
    bad input)."""
    if isinstance(f, (tuple, list)) or isinstance(f, Mapping):
        data, text = (tuple(f) if isinstance(f, list) else f), f"Hermite data {tuple(f) if isinstance(f, list) else f}"
    else:
        data = f if isinstance(f, HermiteCoefficients) else hermite(f, center=center)
        text = str(data.f)
        if hasattr(type(f), "__symrmt_formula__"):        # a drawn KnownNonlinearity carries its own values
            params = {**f.__symrmt_formula__()[1], **(params or {})} or None
    a1, b = hermite_arrays(data, params)
    if a1.ndim or b.ndim:
        raise SymrmtInputError(f"verify takes one nonlinearity at a time: one value per parameter (got {params}).")
    a1, nu = float(a1), float(a1**2 + b**2)
    if not (math.isfinite(a1) and math.isfinite(nu) and nu > 0):
        raise SymrmtInputError(f"f = {text}: need finite Hermite data with nu > 0 (got a_1 = {a1}, nu = {nu}).")
    return a1, nu, text, {str(k): float(v) for k, v in (params or {}).items()}


def _properties(names: Iterable[str] | None) -> list[Property]:
    if names is None:
        return list(CATALOGUE.values())
    if not isinstance(names, (str, abc.Iterable)) or isinstance(names, (bytes, dict)) or getattr(names, "ndim", 1) == 0:
        raise ParameterTypeError(f"properties = {shown(names)}: give a list of property names, e.g. "
                                 "['scale_law'], or leave it out to run the whole catalogue.")
    names = [names] if isinstance(names, str) else list(names)
    if not all(isinstance(n, str) for n in names):
        raise ParameterTypeError(f"properties = {shown(names)}: every property is named by a string, e.g. "
                                 "'scale_law'.")
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown or not names:
        raise SymrmtInputError(f"unknown properties {unknown}; choose from {', '.join(CATALOGUE)}."
                               if unknown else "properties is empty; leave it out to run the whole catalogue.")
    return [CATALOGUE[n] for n in names]


def _run(prop: Property, theory: Theory, strategy, examples: int, seed: int, shrink: bool) -> Row:
    """The property on up to ``examples`` points; the worst deviation, or the failure Hypothesis found."""
    worst: list[Deviation | None] = [None]
    tried: list[Point] = []
    phases = (Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.shrink,) if shrink else ())

    @settings(max_examples=examples, deadline=None, database=None, phases=phases, print_blob=False,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, report_multiple_bugs=False)
    @hypothesis_seed(seed)
    @given(point=strategy)
    def run(point: Point) -> None:
        tried.append(point)
        deviation = prop(theory, point)
        if worst[0] is None or deviation.ratio > worst[0].ratio:
            worst[0] = deviation

    common = dict(property=prop.name, statement=prop.statement, region=prop.region, uses_f=prop.uses_f)
    try:
        run()
    except PropertyViolation as exc:
        return Row(**common, passed=False, deviation=exc.deviation, examples=len(tried), message=_line(exc),
                   counterexample=tried[-1] if tried else None)
    except Exception as exc:  # noqa: BLE001 - a check that cannot run on this f fails it, with the reason
        return Row(**common, passed=False, deviation=Deviation(math.inf, 0.0), examples=len(tried),
                   message=f"could not run: {type(exc).__name__}: {_line(exc)}",
                   counterexample=tried[-1] if tried else None)
    return Row(**common, passed=True, deviation=worst[0] or Deviation(0.0, 0.0), examples=len(tried))


def _line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:400]


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _number(value: float, digits: int = 2) -> str:
    if not math.isfinite(value):
        return "inf"
    return "0" if value == 0 else f"{value:.{digits}g}"


def _point_dict(point: Point) -> dict:
    return {name: _finite(getattr(point, name)) for name in Point.__dataclass_fields__}

"""How a property's comparisons are measured: the worst :class:`Deviation` of a run, and the violation it raises.

A property (:mod:`.checks`) compares values with :func:`close` and :func:`at_most`; :func:`measured` wraps it
so that it returns its worst comparison (gap and tolerance) and reports a refusal of the theory as a violation.
:class:`Property` holds one such check with its statement, region and reason (the entries of
:data:`.checks.CATALOGUE`).
"""
from __future__ import annotations

import contextvars
import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from symrmt.errors import ConvergenceError

from .theories import Point, Theory

__all__ = ["Deviation", "PropertyViolation", "Property", "record", "close", "at_most", "measured"]


@dataclass(frozen=True)
class Deviation:
    """The worst comparison of one run of a property: ``gap`` (how far a value was from what the property
    says, or by how much an inequality failed; 0 when it held) and the ``tolerance`` it was allowed.

    Examples
    --------
    >>> from symrmt.testing import Deviation
    >>> Deviation(gap=1e-9, tolerance=3e-8).ratio          # the gap is 3% of the tolerance: the property holds
    0.03333333333333334
    """

    gap: float
    tolerance: float

    @property
    def ratio(self) -> float:
        """``gap / tolerance``: at most 1 where the property held."""
        if self.gap == 0:
            return 0.0
        return self.gap / self.tolerance if self.tolerance > 0 else math.inf


class PropertyViolation(AssertionError):
    """A derived property of the theory does not hold; ``deviation`` is the comparison that failed.

    Examples
    --------
    >>> from symrmt.testing import Deviation, PropertyViolation
    >>> failure = PropertyViolation("E > 1 at gamma = 0.1", Deviation(gap=0.2, tolerance=3e-8))
    >>> isinstance(failure, AssertionError), failure.deviation.gap
    (True, 0.2)
    """

    def __init__(self, message: str, deviation: Deviation | None = None) -> None:
        super().__init__(message)
        self.deviation = deviation if deviation is not None else Deviation(math.inf, 0.0)


@dataclass(frozen=True)
class Property:
    """One property of the catalogue: what it says, where it holds, why, and the function that checks it.

    ``check(theory, point)`` returns the worst :class:`Deviation` or raises :class:`PropertyViolation`;
    calling the property calls it.

    Examples
    --------
    >>> from symrmt.testing import CATALOGUE, PackageTheory, Point
    >>> law = CATALOGUE["sign_symmetry"]
    >>> law.statement, law.region
    ('E(-f, -d) = E(f, d)', 'every f, c, d and geometry')
    >>> law(PackageTheory(), Point(a1=0.6, nu=0.4, c=1.0, d=0.2)).ratio <= 1      # the gap within its tolerance
    True
    """

    name: str
    statement: str
    region: str
    reason: str
    check: Callable[..., Deviation]
    #: How much of the f under test the check uses: ``"yes"`` (its a_1 and nu), ``"nu only"`` / ``"a1 only"``
    #: (the other is replaced: a_1 = 0, or nu = a_1^2), ``"no"`` (linear regression, or the softmax's own f).
    uses_f: str = "yes"

    def __post_init__(self) -> None:
        if self.uses_f not in USES_F:
            raise ValueError(f"uses_f = {self.uses_f!r}: one of {', '.join(USES_F)}.")

    def __call__(self, theory: Theory, point: Point, **options) -> Deviation:
        return self.check(theory, point, **options)


#: The values of :attr:`Property.uses_f`.
USES_F = ("yes", "nu only", "a1 only", "no")

#: ``[worst Deviation so far]`` of the property running in this context (None outside a property).
_WORST: contextvars.ContextVar[list | None] = contextvars.ContextVar("symrmt_testing_worst", default=None)


def record(gap: float, tolerance: float) -> Deviation:
    deviation = Deviation(float(gap), float(tolerance))
    worst = _WORST.get()
    if worst is not None and (worst[0] is None or deviation.ratio > worst[0].ratio
                              or (deviation.ratio == worst[0].ratio and deviation.gap > worst[0].gap)):
        worst[0] = deviation
    return deviation


def close(name: str, got, expected, atol, context) -> Deviation:
    """``|got - expected| <= atol`` elementwise (non-finite ``got`` fails); records and returns the worst comparison."""
    got, expected, atol = np.broadcast_arrays(np.asarray(got, float), np.asarray(expected, float),
                                              np.asarray(atol, float))
    gap = np.abs(got - expected)
    gap = np.where(np.isfinite(gap), gap, np.inf)
    ratio = np.where(gap == 0, 0.0, np.inf)
    np.divide(gap, atol, out=ratio, where=(atol > 0) & (gap > 0))
    i = int(np.argmax(ratio))
    deviation = record(gap.ravel()[i], atol.ravel()[i])
    if np.any(gap > atol):
        i = int(np.argmax(gap - atol))
        raise PropertyViolation(
            f"{name}: got {got.ravel()[i]!r}, expected {expected.ravel()[i]!r} (gap {gap.ravel()[i]:.3g} > "
            f"tolerance {atol.ravel()[i]:.3g}) at {context}", Deviation(float(gap.ravel()[i]), float(atol.ravel()[i])))
    return deviation


def at_most(name: str, lower, upper, atol: float, context) -> None:
    """``lower <= upper + atol`` elementwise; the gap is by how much ``lower`` exceeds ``upper`` (0 when it does not)."""
    lower, upper = np.broadcast_arrays(np.asarray(lower, float), np.asarray(upper, float))
    excess = np.where(np.isfinite(lower - upper), np.maximum(lower - upper, 0.0), np.inf)
    i = int(np.argmax(excess))
    record(excess.ravel()[i], atol)
    if excess.ravel()[i] > atol:
        raise PropertyViolation(f"{name} fails by {excess.ravel()[i]:.3g} (tolerance {atol:.3g}) at {context}",
                                Deviation(float(excess.ravel()[i]), atol))


def measured(fn: Callable[..., None]) -> Callable[..., Deviation]:
    """Track the worst comparison and return it; report a refusal of the theory (ConvergenceError) as a violation."""

    @functools.wraps(fn)
    def wrapper(theory, *args, **kwargs) -> Deviation:
        token = _WORST.set([None])
        try:
            fn(theory, *args, **kwargs)
            return _WORST.get()[0] or Deviation(0.0, 0.0)
        except ConvergenceError as exc:
            raise PropertyViolation(f"{fn.__name__}: {theory!r} gave no physical solution: {exc}") from exc
        finally:
            _WORST.reset(token)

    return wrapper

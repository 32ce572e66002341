r"""Property-based verification of symrmt's theory, for your own f: strategies, the property catalogue, :func:`verify`.

Needs Hypothesis, an optional dependency: ``pip install 'symrmt[testing]'``.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.strategies`         Hypothesis strategies: :func:`nonlinearities`, :func:`hermite_data`,
                           :func:`geometries`, :func:`regimes`, :func:`points`
:mod:`.checks`             the property catalogue :data:`CATALOGUE`: statement, region, reason and
                           a check of a theory at a point
:mod:`.theories`           the theory behind one interface (:class:`PackageTheory`, :class:`DerivedTheory`)
:mod:`.reference`          independent derivations the properties compare with (no symrmt import)
:mod:`.verification`             :func:`verify`: the whole catalogue on one f (``symrmt check``)
:mod:`.planted`            planted errors: the power of each property
=========================  ====================================================================

Examples
--------
>>> from symrmt.testing import CATALOGUE, PackageTheory, Point
>>> CATALOGUE["scale_law"].statement
'E(k f, k d; gamma) = E(f, d; gamma/k^2)'
>>> deviation = CATALOGUE["scale_law"](PackageTheory(), Point(a1=0.6, nu=0.4, c=1.0))
>>> deviation.ratio <= 1
True
"""
from __future__ import annotations

#: The one line an import without Hypothesis gives (``symrmt check`` prints it and exits 2).
MISSING_HYPOTHESIS = "symrmt.testing needs Hypothesis, an optional dependency: pip install 'symrmt[testing]'"

try:
    import hypothesis  # noqa: F401  (the strategies and verify need it)
except ImportError:
    raise ImportError(MISSING_HYPOTHESIS) from None

from .checks import CATALOGUE, GAMMAS, SOLVER_ATOL, Deviation, Property, PropertyViolation
from .strategies import (DrawnGeometry, KnownNonlinearity, geometries, hermite_data, nonlinearities, points,
                         regimes)
from .theories import DerivedTheory, PackageTheory, Point, Theory
from .verification import Row, Verification, verify

__all__ = ["MISSING_HYPOTHESIS", "CATALOGUE", "Property", "PropertyViolation", "Deviation", "GAMMAS", "SOLVER_ATOL",
           "nonlinearities", "hermite_data", "geometries", "regimes", "points", "DrawnGeometry", "KnownNonlinearity",
           "Point", "Theory", "PackageTheory", "DerivedTheory", "verify", "Verification", "Row"]

r"""Property-based verification of symrmt's theory, for your own f: strategies, the property catalogue, :func:`verify`.

Needs Hypothesis, an optional dependency: ``pip install 'symrmt[testing]'``.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.strategies`         Hypothesis strategies: :func:`nonlinearities`, :func:`hermite_data`,
                           :func:`geometries`, :func:`grams`, :func:`regimes`, :func:`ratios`,
                           :func:`ridges`, :func:`diagonals`, :func:`points` and the families of f
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
import importlib.util as _importlib_util

#: The one line an import without Hypothesis gives (``symrmt check`` prints it and exits 2).
MISSING_HYPOTHESIS = "symrmt.testing needs Hypothesis, an optional dependency: pip install 'symrmt[testing]'"

if _importlib_util.find_spec("hypothesis") is None:   # the strategies and verify need it
    raise ImportError(MISSING_HYPOTHESIS)
del _importlib_util

# The rest is imported after the one-line refusal without Hypothesis, hence E402.
from .checks import CATALOGUE, GAMMAS, SOLVER_ATOL, Deviation, Property, PropertyViolation  # noqa: E402 - see above
from .strategies import (DrawnGeometry, HermiteData,  # noqa: E402 - see above
                         KnownNonlinearity, Regime, diagonals, geometries, grams,
                         hermite_data, hermite_polynomials, log_uniform, nonlinearities, parametric_nonlinearities,
                         points, ratios, regimes, ridges, scaled_activations, small_rationals, smooth_nonlinearities,
                         trig_mixtures, unit_vectors)
from .theories import DerivedTheory, PackageTheory, Point, Theory  # noqa: E402 - see above
from .verification import Row, Verification, verify  # noqa: E402 - see above

__all__ = ["MISSING_HYPOTHESIS", "CATALOGUE", "Property", "PropertyViolation", "Deviation", "GAMMAS", "SOLVER_ATOL",
           "nonlinearities", "hermite_data", "geometries", "grams", "regimes", "points", "ratios", "ridges", "diagonals",
           "log_uniform", "unit_vectors", "small_rationals", "hermite_polynomials", "trig_mixtures",
           "scaled_activations", "parametric_nonlinearities", "smooth_nonlinearities",
           "HermiteData", "Regime", "DrawnGeometry", "KnownNonlinearity",
           "Point", "Theory", "PackageTheory", "DerivedTheory", "verify", "Verification", "Row"]

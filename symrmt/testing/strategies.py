r"""Hypothesis strategies for symrmt: nonlinearities, their Hermite data, geometries and regimes.

In Hypothesis' own style: every argument is a keyword, bounds are ``min_*``/``max_*``, a bad argument raises
:class:`hypothesis.errors.InvalidArgument` when the strategy is made, and what is drawn is a named value that
symrmt's functions take as it is (a :class:`KnownNonlinearity` as f, a :class:`~symrmt.Geometry` as
``geometry``, a Gram matrix as ``gram``, :class:`HermiteData` as f).

=========================  ==============================================================================
strategy                   draws
=========================  ==============================================================================
:func:`nonlinearities`     :class:`KnownNonlinearity`: a formula f(x) (with or without parameters) and, where
                           known in closed form, its Hermite data
:func:`hermite_data`       :class:`HermiteData` :math:`(a_1, \nu)` with :math:`|a_1| \le 2`,
                           :math:`b^2 = \nu - a_1^2 \in [0, 2]`, :math:`\nu \ge 0.05`
:func:`geometries`         :class:`~symrmt.Geometry`: norms of :math:`(\mu, w_K, w_Q)` :math:`\le 2` and the
                           cosines of actual vectors
:func:`grams`              the Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, valid by construction
:func:`regimes`            :class:`Regime` :math:`(c, \gamma)`: :math:`c \in [0.2, 5]`,
                           :math:`\gamma \in [10^{-2}, 10^2]`, both log-uniform
:func:`ratios`,            :math:`c`, :math:`\gamma` and :math:`d` alone
:func:`ridges`,
:func:`diagonals`
:func:`points`             :class:`~symrmt.testing.theories.Point`: all of the above and :math:`|d| \le 1`
=========================  ==============================================================================

Every f that :func:`nonlinearities` draws has :math:`|a_1| \le 2` and :math:`\nu < 7`. The ranges are
where the solver is built to work and where every property of
:mod:`symrmt.testing.checks` has been run (wider ranges are accepted by the package:
:data:`symrmt.validate.C_RANGE`, :data:`symrmt.geometry.MAX_NORM`; the properties'
tolerances are not stated for them). Draws are generic three times in four (uniform in
the ranges, from a NumPy generator that Hypothesis seeds, so a failure is reproducible) and
Hypothesis' own edge-seeking draws otherwise: zeros, equal values, parallel vectors. With
:math:`w_K = w_Q`, :math:`a_1 = 0` or all three vectors parallel several derivation errors are
invisible, so most draws avoid them; the edges are still visited.

The calling style of symrmt 0.1 (positional arguments, ``regimes(c=(lo, hi))``, ``ratios(low, high)``,
``points(hermite=(a1, nu))``, ``geometries(rank=r)`` for r > 1) still works in this release with a
:class:`DeprecationWarning` naming the new form; it will be removed in symrmt 0.3.

Examples
--------
>>> from hypothesis import given, settings
>>> @settings(max_examples=3, deadline=None)
... @given(gram=grams(rank=2))
... def test_gram_is_positive_semidefinite(gram):
...     assert np.linalg.eigvalsh(gram).min() >= -1e-12
>>> test_gram_is_positive_semidefinite()
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..geometry import Geometry
from .arguments import deprecated as _deprecated
from .arguments import real as _real
from .arguments import strategy as _strategy
from .arguments import whole as _whole
from .scalars import MAX_DIAGONAL, RATIOS, RIDGES, Regime, diagonals, log_uniform, ratios, regimes, ridges
from .theories import GRAM_NAMES, Point

__all__ = [
    "nonlinearities", "hermite_data", "geometries", "grams", "regimes", "points", "ratios", "ridges", "diagonals",
    "log_uniform", "unit_vectors", "small_rationals", "hermite_polynomials", "trig_mixtures", "scaled_activations",
    "parametric_nonlinearities", "smooth_nonlinearities",
    "KnownNonlinearity", "HermiteData", "Regime", "DrawnGeometry",
    "RATIOS", "RIDGES", "MAX_NORM", "MAX_DIAGONAL", "MAX_A1", "MAX_B2", "MIN_NU", "MAX_RANK", "SMOOTH_BLOCKS",
]

#: Largest norm of mu, w_K, w_Q drawn by :func:`geometries`.
MAX_NORM = 2.0
#: |a_1| <= MAX_A1 and 0 <= b^2 <= MAX_B2 in :func:`hermite_data`, with nu >= MIN_NU.
MAX_A1, MAX_B2, MIN_NU = 2.0, 2.0, 0.05


#: The largest rank :func:`grams` draws: a bound on the size of what is drawn (a :math:`(1 + 2r)^2` Gram
#: matrix from :math:`1 + 2r` vectors); the theory's own limit on the rank is the model's.
MAX_RANK = 16


# --------------------------------------------------------------------------- named results


class HermiteData(NamedTuple):
    r"""What :func:`hermite_data` draws: :math:`a_1` and :math:`\nu = \mathbb E f(\xi)^2` of some centred f.

    A named pair, so that it is also the Hermite pair ``(a1, nu)`` that every function of symrmt takes as f.

    Examples
    --------
    >>> from symrmt.testing import HermiteData
    >>> data = HermiteData(a1=0.5, nu=0.5)
    >>> data.b2, tuple(data)
    (0.25, (0.5, 0.5))
    """

    a1: float
    nu: float

    @property
    def b2(self) -> float:
        r""":math:`b^2 = \nu - a_1^2`, the nonlinear share."""
        return self.nu - self.a1 * self.a1


# --------------------------------------------------------------------------- Hermite data and geometries


def _generic(draw) -> np.random.Generator | None:
    """A NumPy generator for a generic draw (three times in four), or None for Hypothesis' own edge-seeking draw.

    Generic draws come from a generator seeded by Hypothesis, so they are reproducible from the
    printed example.
    """
    if draw(st.sampled_from(("generic", "generic", "generic", "edge"))) == "edge":
        return None
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


@st.composite
def _hermite_data(draw, max_a1: float, max_b2: float, min_nu: float, linear: bool) -> HermiteData:
    rng = _generic(draw)
    if linear:
        size = rng.uniform(math.sqrt(min_nu), max_a1) if rng is not None else draw(st.floats(math.sqrt(min_nu), max_a1))
        a1 = float(size if (rng.random() < 0.5 if rng is not None else draw(st.booleans())) else -size)
        return HermiteData(a1, a1 * a1)
    if rng is not None:
        a1 = float(rng.uniform(-max_a1, max_a1))
        return HermiteData(a1, a1 * a1 + float(rng.uniform(max(0.0, min_nu - a1 * a1), max_b2)))
    a1 = draw(st.floats(-max_a1, max_a1))
    b2 = draw(st.floats(max(0.0, min_nu - a1 * a1), max_b2))
    return HermiteData(a1, a1 * a1 + b2)


@_deprecated(positional=("max_a1", "max_b2", "min_nu", "linear"))
def hermite_data(*, max_a1: float = MAX_A1, max_b2: float = MAX_B2, min_nu: float = MIN_NU,
                 linear: bool = False) -> st.SearchStrategy[HermiteData]:
    r""":class:`HermiteData` of some f: :math:`|a_1| \le` ``max_a1``, :math:`\nu = a_1^2 + b^2`,
    :math:`0 \le b^2 \le` ``max_b2``.

    :math:`\nu \ge a_1^2` always (Parseval: :math:`\nu = \sum_{k \ge 1} a_k^2`) and :math:`\nu \ge`
    ``min_nu`` (f is not 0). With ``linear`` :math:`b = 0` (f linear), :math:`a_1^2 \ge` ``min_nu``.
    The theory depends on f only through these two numbers (and d).

    Parameters
    ----------
    max_a1 : float
        The largest :math:`|a_1|`, finite and :math:`\ge 0`; default 2.
    max_b2 : float
        The largest :math:`b^2 = \nu - a_1^2`, finite and :math:`\ge 0`; default 2.
    min_nu : float
        The smallest :math:`\nu`, finite and :math:`> 0`; default 0.05.
    linear : bool
        Draw a linear f: :math:`b^2 = 0`, :math:`\nu = a_1^2 \ge` ``min_nu``.

    Returns
    -------
    SearchStrategy of HermiteData
        Named pairs ``HermiteData(a1, nu)``, which every function of symrmt takes as f.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a finite number, a negative ``max_a1`` or ``max_b2``, a ``min_nu`` that is not > 0, a
        ``linear`` that is not True or False, or bounds under which no f has :math:`\nu \ge` ``min_nu``;
        positional arguments beyond the four (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    nonlinearities : Formulas for f, whose data are these.
    points : The Hermite data with the rest of a parameter point.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import hermite_data
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(hermite_data())
    ... def check(drawn):
    ...     assert drawn.nu >= drawn.a1**2 and abs(drawn.a1) <= 2
    >>> check()
    """
    a1_bound = _real("hermite_data", "max_a1", max_a1)
    b2_bound = _real("hermite_data", "max_b2", max_b2)
    nu_floor = _real("hermite_data", "min_nu", min_nu, positive=True)
    if not isinstance(linear, (bool, np.bool_)):
        raise InvalidArgument(f"hermite_data(linear={linear!r}): linear must be True or False.")
    if a1_bound < 0 or b2_bound < 0:
        raise InvalidArgument(f"hermite_data(max_a1={max_a1!r}, max_b2={max_b2!r}): both must be >= 0.")
    if (a1_bound**2 if linear else a1_bound**2 + b2_bound) < nu_floor:
        raise InvalidArgument(f"hermite_data(max_a1={max_a1!r}, max_b2={max_b2!r}, min_nu={min_nu!r}): no f has "
                              "nu >= min_nu within these bounds; lower min_nu or raise the bounds.")
    return _hermite_data(a1_bound, b2_bound, nu_floor, bool(linear))


@_deprecated(positional=("dimension",))
def unit_vectors(*, dimension: int = 3) -> st.SearchStrategy[np.ndarray]:
    """A unit vector in :math:`R^{dimension}` (for 3: two angles, every direction reachable; shrinks to e_3).

    Parameters
    ----------
    dimension : int
        The dimension, 1 to 33 (1 + 2 * MAX_RANK); default 3.

    Returns
    -------
    SearchStrategy of numpy.ndarray
        Unit vectors of shape ``(dimension,)`` (e_1 where a drawn vector is shorter than 1e-6; for 3, the
        direction of two angles).

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``dimension`` that is not a whole number in 1..33, or a second positional argument (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    geometries, grams : Geometries of actual vectors, made from such directions.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import unit_vectors
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(unit_vectors(dimension=4))
    ... def check(v):
    ...     assert abs(float(v @ v) - 1) < 1e-12
    >>> check()
    """
    return _unit_vectors(_whole("unit_vectors", "dimension", dimension, 1, 1 + 2 * MAX_RANK))


@st.composite
def _unit_vectors(draw, dimension: int) -> np.ndarray:
    if dimension == 3:
        polar = draw(st.floats(0.0, math.pi))
        azimuth = draw(st.floats(0.0, 2 * math.pi))
        return np.array([math.sin(polar) * math.cos(azimuth), math.sin(polar) * math.sin(azimuth), math.cos(polar)])
    v = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=dimension, max_size=dimension)))
    norm = np.linalg.norm(v)
    return v / norm if norm > 1e-6 else np.eye(dimension)[0]


@st.composite
def _vectors(draw, rank: int, max_norm: float) -> tuple[tuple[float, ...], np.ndarray]:
    """Norms of :math:`(\\mu, w_K^{(1..r)}, w_Q^{(1..r)})` in ``[0, max_norm]`` and their unit directions."""
    size = 1 + 2 * rank
    dimension = max(3, size)
    rng = _generic(draw)
    if rng is not None:
        norms = tuple(float(v) for v in rng.uniform(max_norm / 8, max_norm, size))
        directions = rng.standard_normal((size, dimension))
        return norms, directions / np.linalg.norm(directions, axis=1, keepdims=True)
    norms = tuple(draw(st.floats(0.0, max_norm)) for _ in range(size))
    directions = np.stack([draw(_unit_vectors(dimension)) for _ in range(size)])
    return norms, directions


def _max_norm(function: str, max_norm: Any) -> float:
    bound = _real(function, "max_norm", max_norm)
    if not 0 <= bound <= MAX_NORM:
        raise InvalidArgument(f"{function}(max_norm={max_norm!r}): max_norm must lie in [0, {MAX_NORM:g}] "
                              "(the norms symrmt.Geometry takes).")
    return bound


def _geometry(vectors: tuple[tuple[float, ...], np.ndarray]) -> Geometry:
    norms, directions = vectors
    g = np.clip(directions @ directions.T, -1.0, 1.0)
    return Geometry(*norms, float(g[0, 1]), float(g[0, 2]), float(g[1, 2]))


@_deprecated(positional=("rank", "max_norm"))
def geometries(*, rank: int = 1, max_norm: float = MAX_NORM) -> st.SearchStrategy[Geometry]:
    r"""A :class:`symrmt.Geometry`: norms of :math:`(\mu, w_K, w_Q)` in ``[0, max_norm]`` and the cosines of
    actual vectors, so every drawn geometry is valid (for rank-r weights, :func:`grams`).

    Generic draws: norms uniform in ``[max_norm/8, max_norm]``, directions Gaussian in
    :math:`R^3`; edge draws: Hypothesis floats and directions (zeros, parallel, orthogonal).

    ``rank`` other than 1 is deprecated (it drew a ``DrawnGeometry``; removed in symrmt 0.3): use
    :func:`grams`.

    Parameters
    ----------
    rank : int
        1 (default); another rank, 2 to 16, is deprecated: it draws a ``DrawnGeometry`` (use :func:`grams`).
    max_norm : float
        The largest norm, in :math:`[0, 2]` (the norms :class:`symrmt.Geometry` takes are at most 100); default 2.

    Returns
    -------
    SearchStrategy of symrmt.Geometry
        Valid geometries (the cosines of actual vectors), which every function of symrmt takes as ``geometry``.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``max_norm`` that is not a number in [0, 2], ``rank`` that is not a whole number in 1..16, or positional
        arguments beyond the two (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    grams : The Gram matrix of rank-r weights.
    points : A geometry with the rest of a parameter point.

    Examples
    --------
    >>> import symrmt
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import geometries
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(geometries())
    ... def check(geometry):
    ...     assert 0 <= symrmt.attention_error("tanh(x)", 1.0, 0.1, geometry) <= 1
    >>> check()
    """
    bound = _max_norm("geometries", max_norm)
    size = _whole("geometries", "rank", rank, 1, MAX_RANK)
    if size != 1:
        warnings.warn(f"geometries(rank={size}) is deprecated (removed in symrmt 0.3): write grams(rank={size}), "
                      "which draws the Gram matrix that gram= takes.", DeprecationWarning, stacklevel=3)
        return _vectors(size, bound).map(lambda v: DrawnGeometry(*v))
    return _vectors(1, bound).map(_geometry)


def grams(*, rank: int = 1, max_norm: float = MAX_NORM) -> st.SearchStrategy[np.ndarray]:
    r"""The :math:`(1 + 2r) \times (1 + 2r)` Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, norms in
    ``[0, max_norm]``: what every function of symrmt takes as ``gram=``, valid (positive semidefinite) by
    construction, since only actual vectors are drawn. ``rank`` is at most :data:`MAX_RANK`.

    Parameters
    ----------
    rank : int
        The rank r of the weights, 1 to 16; default 1.
    max_norm : float
        The largest norm, in :math:`[0, 2]`; default 2.

    Returns
    -------
    SearchStrategy of numpy.ndarray
        Gram matrices of shape ``(1 + 2r, 1 + 2r)``, symmetric and positive semidefinite.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``rank`` that is not a whole number in 1..16, or ``max_norm`` that is not a number in :math:`[0, 2]`.

    See Also
    --------
    geometries : The rank-one geometry as a :class:`symrmt.Geometry`.
    symrmt.attention_error : Takes the drawn matrix as ``gram=``.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import grams
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(grams(rank=2))
    ... def check(gram):
    ...     assert gram.shape == (5, 5) and np.linalg.eigvalsh(gram).min() > -1e-12
    >>> check()
    """
    bound = _max_norm("grams", max_norm)
    size = _whole("grams", "rank", rank, 1, MAX_RANK)
    return _vectors(size, bound).map(lambda v: DrawnGeometry(*v).matrix)


@_deprecated(positional=("hermite", "max_norm", "c", "linear", "d"))
def points(*, hermite: st.SearchStrategy | None = None, c: st.SearchStrategy | None = None,
           d: st.SearchStrategy | None = None, max_norm: float = MAX_NORM, linear: bool = False) -> st.SearchStrategy[Point]:
    r"""A full parameter point: Hermite data, c, d and a rank-one geometry, each from a strategy.

    ``hermite``, ``c`` and ``d`` are strategies replacing :func:`hermite_data` (``linear`` is its option),
    :func:`ratios` and :func:`diagonals`: ``hermite=st.just((a1, nu))`` fixes f. A plain pair for ``hermite``
    is deprecated (removed in symrmt 0.3).

    Parameters
    ----------
    hermite : SearchStrategy, optional
        Draws f's data as ``HermiteData`` or a pair ``(a1, nu)``; default :func:`hermite_data` (with ``linear``).
    c : SearchStrategy, optional
        Draws c; default :func:`ratios` (c in [0.2, 5]).
    d : SearchStrategy, optional
        Draws d; default :func:`diagonals` (:math:`|d| \le 1`).
    max_norm : float
        The largest norm of mu, w_K, w_Q, in [0, 2]; default 2.
    linear : bool
        With the default ``hermite``: a linear f (b = 0).

    Returns
    -------
    SearchStrategy of Point
        Points ``Point(a1, nu, c, d, theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ)``: the Hermite data,
        c, d and the six entries of a rank-one Gram matrix.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``hermite``, ``c`` or ``d`` that is not a strategy (the message shows the ``st.just(...)`` that draws the
        value), ``linear`` that is not True or False, ``max_norm`` outside [0, 2], or positional arguments
        beyond the five (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3; so does a plain pair as ``hermite``).

    See Also
    --------
    hermite_data, ratios, diagonals, geometries : The strategies of each part.
    symrmt.testing.theories.Point : What is drawn.

    Examples
    --------
    >>> from hypothesis import given, settings, strategies as st
    >>> from symrmt.testing import points
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(points(hermite=st.just((0.5, 0.5))))
    ... def check(drawn):
    ...     assert (drawn.a1, drawn.nu) == (0.5, 0.5) and drawn.c > 0
    >>> check()
    """
    if isinstance(hermite, (tuple, list)) and len(hermite) == 2:
        warnings.warn("points(hermite=(a1, nu)) is deprecated (removed in symrmt 0.3): write "
                      "points(hermite=st.just((a1, nu))).", DeprecationWarning, stacklevel=3)
        hermite = st.just(HermiteData(*hermite))
    hermite = _strategy("points", "hermite", hermite)
    c, d = _strategy("points", "c", c), _strategy("points", "d", d)
    if not isinstance(linear, (bool, np.bool_)):
        raise InvalidArgument(f"points(linear={linear!r}): linear must be True or False.")
    return _points(hermite if hermite is not None else hermite_data(linear=bool(linear)),
                   c if c is not None else ratios(), d if d is not None else diagonals(),
                   _max_norm("points", max_norm))


@st.composite
def _points(draw, hermite, c, d, max_norm: float) -> Point:
    drawn = draw(hermite)
    a1, nu = (drawn.a1, drawn.nu) if hasattr(drawn, "a1") else drawn
    geometry = _geometry(draw(_vectors(1, max_norm)))
    return Point(a1=float(a1), nu=float(nu), c=draw(c), d=draw(d),
                 **{name: float(getattr(geometry, name)) for name in GRAM_NAMES})


@dataclass(frozen=True)
class DrawnGeometry:
    r"""Deprecated (removed in symrmt 0.3): what ``geometries(rank=r)`` drew for r > 1; use :func:`grams`.

    Norms of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` and the unit vectors they came from; ``matrix`` is their
    :math:`(1 + 2r) \times (1 + 2r)` Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.testing.strategies import DrawnGeometry
    >>> DrawnGeometry((1.0, 1.0, 1.0, 0.0, 0.0), np.eye(5)).matrix.shape
    (5, 5)
    """

    norms: tuple[float, ...]
    directions: np.ndarray = field(repr=False)

    @property
    def rank(self) -> int:
        return (len(self.norms) - 1) // 2

    @property
    def vectors(self) -> np.ndarray:
        return self.directions * np.array(self.norms)[:, None]

    @property
    def matrix(self) -> np.ndarray:
        v = self.vectors
        return v @ v.T

    def __repr__(self) -> str:
        return f"DrawnGeometry(rank={self.rank}, norms={self.norms})"


from .formulas import (SMOOTH_BLOCKS, KnownNonlinearity, hermite_polynomials, nonlinearities,  # noqa: E402 - re-exported
                       parametric_nonlinearities, scaled_activations, small_rationals, smooth_nonlinearities,
                       trig_mixtures)

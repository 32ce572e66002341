r"""Hypothesis strategies for symrmt: nonlinearities, their Hermite data, geometries and regimes.

=========================  ==============================================================================
strategy                   draws
=========================  ==============================================================================
:func:`nonlinearities`     :class:`KnownNonlinearity`: a formula f(x) (with or without parameters) and, where
                           known in closed form, its Hermite data
:func:`hermite_data`       :math:`(a_1, \nu)` with :math:`|a_1| \le 2`, :math:`b^2 = \nu - a_1^2 \in [0, 2]`,
                           :math:`\nu \ge 0.05`
:func:`geometries`         :class:`DrawnGeometry`: :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` as norms
                           :math:`\le 2` and unit directions, so every Gram matrix is a valid one
:func:`regimes`            :math:`(c, \gamma)`: :math:`c \in [0.2, 5]`, :math:`\gamma \in [10^{-2}, 10^2]`,
                           both log-uniform
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

Examples
--------
>>> from hypothesis import given, settings
>>> @settings(max_examples=3, deadline=None)
... @given(geometry=geometries(rank=2))
... def test_gram_is_positive_semidefinite(geometry):
...     assert np.linalg.eigvalsh(geometry.matrix).min() >= -1e-12
>>> test_gram_is_positive_semidefinite()
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from ..geometry import Geometry
from ..runtime.memory import check_fits
from ..validate import integer
from .theories import Point

__all__ = [
    "nonlinearities", "hermite_data", "geometries", "regimes", "points", "DrawnGeometry", "KnownNonlinearity",
    "RATIOS", "RIDGES", "MAX_NORM", "MAX_DIAGONAL", "MAX_A1", "MAX_B2", "MIN_NU",
    "log_uniform", "ratios", "ridges", "diagonals", "unit_vectors", "small_rationals",
    "hermite_polynomials", "trig_mixtures", "scaled_activations", "parametric_nonlinearities", "smooth_nonlinearities",
    "SMOOTH_BLOCKS",
]

#: Range of c = p/n drawn by :func:`regimes` and :func:`points`.
RATIOS = (0.2, 5.0)
#: Range of the ridge gamma drawn by :func:`regimes`.
RIDGES = (1e-2, 1e2)
#: Largest norm of mu, w_K, w_Q drawn by :func:`geometries`.
MAX_NORM = 2.0
#: Largest |d| drawn by :func:`points`.
MAX_DIAGONAL = 1.0
#: |a_1| <= MAX_A1 and 0 <= b^2 <= MAX_B2 in :func:`hermite_data`, with nu >= MIN_NU.
MAX_A1, MAX_B2, MIN_NU = 2.0, 2.0, 0.05


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats spread evenly in log scale over ``[low, high]``."""
    return st.floats(math.log(low), math.log(high)).map(lambda v: float(min(max(math.exp(v), low), high)))


def ratios(low: float = RATIOS[0], high: float = RATIOS[1]) -> st.SearchStrategy[float]:
    """:math:`c = p/n`, log-uniform in ``[low, high]``."""
    return log_uniform(low, high)


def ridges(low: float = RIDGES[0], high: float = RIDGES[1]) -> st.SearchStrategy[float]:
    r"""The ridge :math:`\gamma`, log-uniform in ``[low, high]``."""
    return log_uniform(low, high)


def regimes(c: tuple[float, float] = RATIOS, gamma: tuple[float, float] = RIDGES) -> st.SearchStrategy[tuple]:
    r"""``(c, gamma)``: :math:`c \in [0.2, 5]` and :math:`\gamma \in [10^{-2}, 10^2]`, both log-uniform.

    The solver's range is wider (:data:`symrmt.validate.C_RANGE`, :math:`\gamma \le 10^{12}`); this is
    where the catalogue's tolerances are stated. Near :math:`c = 1` with :math:`\gamma \lesssim 10^{-8}` the
    quadrature cannot resolve the hard edge (docs/theory.md, section 13), far outside this range.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import regimes
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(regimes())
    ... def check(drawn):
    ...     c, gamma = drawn
    ...     assert 0.2 <= c <= 5 and 1e-2 <= gamma <= 1e2
    >>> check()
    """
    return st.tuples(ratios(*c), ridges(*gamma))


def diagonals(bound: float = MAX_DIAGONAL) -> st.SearchStrategy[float]:
    """The diagonal d of the attention matrix, in ``[-bound, bound]``."""
    return st.floats(-bound, bound)


def _generic(draw) -> np.random.Generator | None:
    """A NumPy generator for a generic draw (three times in four), or None for Hypothesis' own edge-seeking draw.

    Generic draws come from a generator seeded by Hypothesis, so they are reproducible from the
    printed example.
    """
    if draw(st.sampled_from(("generic", "generic", "generic", "edge"))) == "edge":
        return None
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))


@st.composite
def hermite_data(draw, max_a1: float = MAX_A1, max_b2: float = MAX_B2, min_nu: float = MIN_NU,
                 linear: bool = False) -> tuple[float, float]:
    r""":math:`(a_1, \nu)` of some f: :math:`|a_1| \le` ``max_a1``, :math:`\nu = a_1^2 + b^2`, :math:`0 \le b^2 \le` ``max_b2``.

    :math:`\nu \ge a_1^2` always (Parseval: :math:`\nu = \sum_{k \ge 1} a_k^2`) and :math:`\nu \ge`
    ``min_nu`` (f is not 0). With ``linear`` :math:`b = 0` (f linear), :math:`a_1^2 \ge` ``min_nu``.
    The theory depends on f only through these two numbers (and d).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import hermite_data
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(hermite_data())
    ... def check(drawn):
    ...     a1, nu = drawn
    ...     assert nu >= a1**2 and abs(a1) <= 2
    >>> check()
    """
    rng = _generic(draw)
    if linear:
        size = rng.uniform(math.sqrt(min_nu), max_a1) if rng is not None else draw(st.floats(math.sqrt(min_nu), max_a1))
        a1 = float(size if (rng.random() < 0.5 if rng is not None else draw(st.booleans())) else -size)
        return a1, a1 * a1
    if rng is not None:
        a1 = float(rng.uniform(-max_a1, max_a1))
        return a1, a1 * a1 + float(rng.uniform(max(0.0, min_nu - a1 * a1), max_b2))
    a1 = draw(st.floats(-max_a1, max_a1))
    b2 = draw(st.floats(max(0.0, min_nu - a1 * a1), max_b2))
    return a1, a1 * a1 + b2


@st.composite
def unit_vectors(draw, dimension: int = 3) -> np.ndarray:
    """A unit vector in :math:`R^{dimension}` (for 3: two angles, every direction reachable; shrinks to e_3)."""
    if dimension == 3:
        polar = draw(st.floats(0.0, math.pi))
        azimuth = draw(st.floats(0.0, 2 * math.pi))
        return np.array([math.sin(polar) * math.cos(azimuth), math.sin(polar) * math.sin(azimuth), math.cos(polar)])
    v = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=dimension, max_size=dimension)))
    norm = np.linalg.norm(v)
    return v / norm if norm > 1e-6 else np.eye(dimension)[0]


@dataclass(frozen=True)
class DrawnGeometry:
    r"""Norms of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` and the unit vectors they came from.

    ``matrix`` is the :math:`(1 + 2r) \times (1 + 2r)` Gram matrix of these vectors (valid by construction);
    for rank one ``geometry`` (a :class:`~symrmt.geometry.Geometry`) and ``gram`` (the six named entries)
    describe the same vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import geometries
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(geometries(rank=2))
    ... def check(drawn):
    ...     assert drawn.rank == 2 and drawn.matrix.shape == (5, 5)
    ...     assert np.all(np.linalg.eigvalsh(drawn.matrix) > -1e-12)        # a valid Gram matrix
    >>> check()
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

    @property
    def cosines(self) -> tuple[float, float, float]:
        self._rank_one()
        g = np.clip(self.directions @ self.directions.T, -1.0, 1.0)
        return float(g[0, 1]), float(g[0, 2]), float(g[1, 2])

    @property
    def geometry(self) -> Geometry:
        return Geometry(*self.norms, *self.cosines)

    @property
    def gram(self) -> dict[str, float]:
        self._rank_one()
        g = self.matrix
        return {"theta": float(g[0, 0]), "alpha_K": float(g[0, 1]), "alpha_Q": float(g[0, 2]),
                "omega_KK": float(g[1, 1]), "omega_QQ": float(g[2, 2]), "omega_KQ": float(g[1, 2])}

    def _rank_one(self) -> None:
        if self.rank != 1:
            raise ValueError(f"a rank-{self.rank} geometry has no rank-one form; use .matrix.")

    def __repr__(self) -> str:
        if self.rank == 1:
            return f"DrawnGeometry(norms={self.norms}, cosines={tuple(round(x, 6) for x in self.cosines)})"
        return f"DrawnGeometry(rank={self.rank}, norms={self.norms})"


def geometries(rank: int = 1, max_norm: float = MAX_NORM) -> st.SearchStrategy[DrawnGeometry]:
    r"""Norms of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` in ``[0, max_norm]`` and :math:`1 + 2r` unit directions.

    Generic draws: norms uniform in ``[max_norm/8, max_norm]``, directions Gaussian in
    :math:`R^{1 + 2r}`; edge draws: Hypothesis floats and directions (zeros, parallel, orthogonal).
    Only actual vectors are drawn, so the Gram matrix is always positive semidefinite.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import geometries
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(geometries())
    ... def check(drawn):
    ...     assert max(drawn.norms) <= 2.0 and len(drawn.gram) == 6
    >>> check()

    The rank is read, and the memory of a draw (the :math:`(1 + 2r)^2` directions and Gram matrix, float64)
    checked against what the process has (:func:`symrmt.runtime.memory.check_fits`), when the strategy is made:

    >>> geometries(rank=10**6)
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: a geometry of rank 1000000 needs about 58.2 TiB but only ...
    """
    rank = integer("rank", rank, 1, "(the weights have rank 1 or more)")
    size = 1 + 2 * rank
    check_fits(2 * 8.0 * size * max(3, size), f"a geometry of rank {rank}",
               "Its directions and Gram matrix are (1 + 2r)^2 float64 each: use a smaller rank.")
    return _geometries(rank, max_norm)


@st.composite
def _geometries(draw, rank: int, max_norm: float) -> DrawnGeometry:
    """The draws of :func:`geometries`, its arguments read."""
    size = 1 + 2 * rank
    dimension = max(3, size)
    rng = _generic(draw)
    if rng is not None:
        norms = tuple(float(v) for v in rng.uniform(max_norm / 8, max_norm, size))
        directions = rng.standard_normal((size, dimension))
        return DrawnGeometry(norms, directions / np.linalg.norm(directions, axis=1, keepdims=True))
    norms = tuple(draw(st.floats(0.0, max_norm)) for _ in range(size))
    directions = np.stack([draw(unit_vectors(dimension)) for _ in range(size)])
    return DrawnGeometry(norms, directions)


@st.composite
def points(draw, hermite=None, max_norm: float = MAX_NORM, c=None, linear: bool = False, d=None) -> Point:
    """A full parameter point: f as Hermite data (drawn, or ``hermite = (a1, nu)`` fixed), c, d and a rank-one geometry.

    ``c`` and ``d`` may be strategies replacing :func:`ratios` and :func:`diagonals`.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import points
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(points(hermite=(0.5, 0.5)))
    ... def check(drawn):
    ...     assert (drawn.a1, drawn.nu) == (0.5, 0.5) and drawn.c > 0
    >>> check()
    """
    a1, nu = hermite if hermite is not None else draw(hermite_data(linear=linear))
    geometry = draw(geometries(max_norm=max_norm))
    return Point(a1=float(a1), nu=float(nu), c=draw(c if c is not None else ratios()),
                 d=draw(d if d is not None else diagonals()), **geometry.gram)


# --------------------------------------------------------------------------- symbolic nonlinearities

_X = sp.Symbol("x", real=True)


@dataclass(frozen=True)
class KnownNonlinearity:
    r"""A formula for f with, where known in closed form, its Hermite data (derived where the strategy made it).

    ``text`` is what :func:`symrmt.hermite` and ``symrmt check --f`` take; ``params`` the values of its
    parameters (empty without); ``center`` whether it needs ``center=True``; ``a1``, ``nu``, ``a2``
    are SymPy numbers at those values, or None where no closed form is given (smooth f of
    :func:`smooth_nonlinearities`, and :math:`\nu` of GELU).

    Examples
    --------
    >>> import sympy as sp
    >>> from symrmt.testing import KnownNonlinearity
    >>> f = KnownNonlinearity("x**3 - 3*x", a1=sp.Integer(0), nu=sp.Integer(6))
    >>> f.text, f.a1, f.nu, f.center
    ('x**3 - 3*x', 0, 6, False)
    """

    text: str
    a1: sp.Expr | None
    nu: sp.Expr | None
    a2: sp.Expr | None = None
    center: bool = False
    params: Mapping[str, float] = field(default_factory=dict)


def small_rationals(max_numerator: int = 9, max_denominator: int = 4, nonzero: bool = False):
    """Fractions p/q with |p| <= max_numerator, 1 <= q <= max_denominator."""
    values = st.builds(Fraction, st.integers(-max_numerator, max_numerator), st.integers(1, max_denominator))
    return values.filter(lambda q: q != 0) if nonzero else values


def _rational(q: Fraction) -> sp.Rational:
    return sp.Rational(q.numerator, q.denominator)


@st.composite
def hermite_polynomials(draw, max_degree: int = 5) -> KnownNonlinearity:
    r""":math:`f = \sum_{k=1}^K q_k \mathrm{He}_k(x)/k!`, written out in monomials, rational :math:`|q_k| \le 2`.

    Orthonormal convention of symrmt: the coefficient :math:`c_k = q_k/k!` of :math:`\mathrm{He}_k` gives
    :math:`a_k = c_k\sqrt{k!} = q_k/\sqrt{k!}`, so :math:`a_1 = q_1`, :math:`a_2 = q_2/\sqrt 2`,
    :math:`\nu = \sum_k q_k^2/k! \le 4(e - 1) < 7` (orthogonality
    :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = k!\,\delta_{jk}`): inside the ranges of :func:`hermite_data`
    where the catalogue's tolerances are stated.
    """
    coefficients = draw(st.lists(small_rationals(4, 2), min_size=1, max_size=max_degree).filter(any))
    terms = [_rational(q) / sp.factorial(k) for k, q in enumerate(coefficients, start=1)]
    expr = sp.expand(sum(ck * sp.hermite_prob(k, _X) for k, ck in enumerate(terms, start=1)))
    nu = sum(sp.factorial(k) * ck**2 for k, ck in enumerate(terms, start=1))
    a2 = sp.sqrt(2) * terms[1] if len(terms) > 1 else sp.Integer(0)
    return KnownNonlinearity(str(expr), terms[0], nu, a2)


@st.composite
def trig_mixtures(draw) -> KnownNonlinearity:
    r""":math:`f = \alpha\sin(kx) + \beta(\cos(lx) - e^{-l^2/2})`.

    :math:`\mathbb E\sin(k\xi)\xi = k e^{-k^2/2}` (Stein), :math:`\mathbb E\cos(l\xi) = e^{-l^2/2}`,
    :math:`\mathbb E\sin^2(k\xi) = (1 - e^{-2k^2})/2`, :math:`\mathbb E\cos^2(l\xi) = (1 + e^{-2l^2})/2`,
    and the odd-times-even cross term vanishes: :math:`a_1 = \alpha k e^{-k^2/2}`,
    :math:`\nu = \alpha^2(1 - e^{-2k^2})/2 + \beta^2[(1 + e^{-2l^2})/2 - e^{-l^2}]`.
    """
    alpha, beta = (_rational(draw(small_rationals(4, 2))) for _ in range(2))
    k, l = (_rational(draw(small_rationals(3, 2, nonzero=True))) for _ in range(2))
    if alpha == 0 and beta == 0:
        alpha = sp.Integer(1)
    text = f"({alpha})*sin(({k})*x) + ({beta})*(cos(({l})*x) - exp(-({l})**2/2))"
    a1 = alpha * k * sp.exp(-k**2 / 2)
    nu = alpha**2 * (1 - sp.exp(-2 * k**2)) / 2 + beta**2 * ((1 + sp.exp(-2 * l**2)) / 2 - sp.exp(-l**2))
    return KnownNonlinearity(text, a1, nu)


@st.composite
def scaled_activations(draw) -> KnownNonlinearity:
    r""":math:`s\,g(kx)`, centered, for g in ReLU, GELU, erf (tanh has no closed form).

    * ReLU: :math:`a_1 = sk/2`, :math:`\nu = s^2k^2(1/2 - 1/(2\pi))` (for either sign of k).
    * GELU :math:`u\Phi(u)`: :math:`a_1 = s k\,\mathbb E[\xi^2\Phi(k\xi)] = sk/2` because
      :math:`\xi^2(\Phi(k\xi) - 1/2)` is odd; :math:`\nu` has no short form (None).
    * erf: :math:`a_1 = \frac{2sk}{\sqrt{\pi(1 + 2k^2)}}` (Stein),
      :math:`\nu = \frac{2s^2}{\pi}\arcsin\frac{2k^2}{1 + 2k^2}`.
    """
    s = _rational(draw(small_rationals(4, 2, nonzero=True)))
    k = _rational(draw(small_rationals(3, 2, nonzero=True)))
    kind = draw(st.sampled_from(["relu", "gelu", "erf"]))
    text = f"({s})*{kind}(({k})*x)"
    if kind == "relu":
        return KnownNonlinearity(text, s * k / 2, s**2 * k**2 * (sp.Rational(1, 2) - 1 / (2 * sp.pi)), center=True)
    if kind == "gelu":
        return KnownNonlinearity(text, s * k / 2, None, center=True)
    return KnownNonlinearity(text, 2 * s * k / sp.sqrt(sp.pi * (1 + 2 * k**2)),
                             2 * s**2 / sp.pi * sp.asin(2 * k**2 / (1 + 2 * k**2)))


@st.composite
def parametric_nonlinearities(draw) -> KnownNonlinearity:
    r"""A family with symbolic parameters, its parameters' values and its Hermite data there.

    * ``A*sin(k*x)``: :math:`a_1 = Ak e^{-k^2/2}`, :math:`\nu = A^2(1 - e^{-2k^2})/2`;
    * ``A*erf(k*x)``: :math:`a_1 = 2Ak/\sqrt{\pi(1 + 2k^2)}`, :math:`\nu = \frac{2A^2}{\pi}\arcsin\frac{2k^2}{1 + 2k^2}`;
    * ``relu(x) - s*relu(-x)`` (leaky ReLU of slope s, centered): :math:`a_1 = (1 + s)/2`,
      :math:`\nu = \mathbb E f^2 - a_0^2 = \frac{1 + s^2}{2} - \frac{(1 - s)^2}{2\pi}`
      (f is x for x > 0 and s x below, so :math:`\mathbb E f^2 = (1 + s^2)/2`, :math:`a_0 = (1 - s)/\sqrt{2\pi}`).

    Values are rationals with :math:`|A| \le 2`, :math:`0 < |k| \le 3/2`, :math:`|s| \le 2`.
    """
    kind = draw(st.sampled_from(["sin", "erf", "leaky"]))
    if kind == "leaky":
        s = _rational(draw(small_rationals(4, 2)))
        nu = (1 + s**2) / 2 - (1 - s) ** 2 / (2 * sp.pi)
        return KnownNonlinearity("relu(x) - s*relu(-x)", (1 + s) / 2, nu, center=True, params={"s": float(s)})
    amplitude = _rational(draw(small_rationals(4, 2, nonzero=True)))
    k = _rational(draw(small_rationals(3, 2, nonzero=True)))
    params = {"A": float(amplitude), "k": float(k)}
    if kind == "sin":
        return KnownNonlinearity("A*sin(k*x)", amplitude * k * sp.exp(-k**2 / 2),
                                 amplitude**2 * (1 - sp.exp(-2 * k**2)) / 2, params=params)
    return KnownNonlinearity("A*erf(k*x)", 2 * amplitude * k / sp.sqrt(sp.pi * (1 + 2 * k**2)),
                             2 * amplitude**2 / sp.pi * sp.asin(2 * k**2 / (1 + 2 * k**2)), params=params)


#: Smooth building blocks g(x) of :func:`smooth_nonlinearities` (odd, even and neither).
SMOOTH_BLOCKS = ("tanh({u})", "atan({u})", "sin({u})", "erf({u})", "cos({u})", "exp(-({u})**2)", "({u})*exp(-({u})**2/2)",
                 "sigmoid({u})", "log(1 + exp({u}))")


@st.composite
def smooth_nonlinearities(draw, max_terms: int = 3) -> KnownNonlinearity:
    r""":math:`f = \sum_i s_i\,g_i(k_i x)`, centered: one to ``max_terms`` different smooth blocks :data:`SMOOTH_BLOCKS`.

    Rational :math:`0 < |s_i| \le 2`, :math:`0 < |k_i| \le 3/2`. No closed form is claimed
    (``a1 = nu = None``): these are for properties that hold for every f.
    """
    blocks = draw(st.lists(st.sampled_from(SMOOTH_BLOCKS), min_size=1, max_size=max_terms, unique=True))
    terms = []
    for block in blocks:
        s = _rational(draw(small_rationals(4, 2, nonzero=True)))
        k = _rational(draw(small_rationals(3, 2, nonzero=True)))
        terms.append(f"({s})*" + block.format(u=f"({k})*x"))
    return KnownNonlinearity(" + ".join(terms), None, None, center=True)


def nonlinearities(known: bool = True, parameters: bool = True, smooth: bool = True) -> st.SearchStrategy[KnownNonlinearity]:
    """Formulas for f: the families with known Hermite data (``known``: :func:`hermite_polynomials`,
    :func:`trig_mixtures`, :func:`scaled_activations`), families with symbolic parameters
    (``parameters``: :func:`parametric_nonlinearities`) and arbitrary smooth sums (``smooth``:
    :func:`smooth_nonlinearities`, no closed form).

    Examples
    --------
    >>> import symrmt
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import nonlinearities
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(nonlinearities(smooth=False, parameters=False))
    ... def check(f):
    ...     if f.a1 is not None:                                   # the closed form agrees with symrmt.hermite
    ...         assert abs(symrmt.hermite(f.text, center=f.center).a1 - float(f.a1)) < 1e-9
    >>> check()
    """
    chosen = ([hermite_polynomials(), trig_mixtures(), scaled_activations()] if known else []) + \
        ([parametric_nonlinearities()] if parameters else []) + ([smooth_nonlinearities()] if smooth else [])
    if not chosen:
        raise ValueError("nonlinearities(): choose at least one of known, parameters, smooth.")
    return st.one_of(chosen)

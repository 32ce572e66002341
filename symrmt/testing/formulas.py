r"""Formulas for f that Hypothesis draws, with their Hermite data where known in closed form.

The :class:`KnownNonlinearity` families of :func:`nonlinearities`, re-exported by :mod:`symrmt.testing.strategies`."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .arguments import deprecated as _deprecated
from .arguments import whole as _whole

__all__ = ["KnownNonlinearity", "small_rationals", "hermite_polynomials", "trig_mixtures", "scaled_activations",
           "parametric_nonlinearities", "smooth_nonlinearities", "nonlinearities", "SMOOTH_BLOCKS"]

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
    >>> import symrmt
    >>> symrmt.hermite(f).nu                     # symrmt takes it as f
    6.0
    """

    text: str
    a1: sp.Expr | None
    nu: sp.Expr | None
    a2: sp.Expr | None = None
    center: bool = False
    params: Mapping[str, float] = field(default_factory=dict)

    def __symrmt_formula__(self) -> tuple[str, dict[str, float], bool]:
        """``(formula, parameter values, center)``: how every function of symrmt that takes f reads this one
        (:func:`symrmt.hermite`), so that a drawn f can be passed as f as it is."""
        return self.text, dict(self.params), self.center


@_deprecated(positional=("max_numerator", "max_denominator", "nonzero"))
def small_rationals(*, max_numerator: int = 9, max_denominator: int = 4,
                    nonzero: bool = False) -> st.SearchStrategy[Fraction]:
    r"""Fractions :math:`p/q` with :math:`|p| \le` ``max_numerator``, :math:`1 \le q \le` ``max_denominator`` (not 0
    with ``nonzero``).

    Parameters
    ----------
    max_numerator : int
        The largest :math:`|p|`, 0 to :math:`10^6`; default 9.
    max_denominator : int
        The largest :math:`q`, 1 to :math:`10^6`; default 4.
    nonzero : bool
        Never draw 0.

    Returns
    -------
    SearchStrategy of fractions.Fraction
        The fractions :math:`p/q` (not reduced when drawn; :class:`~fractions.Fraction` reduces them).

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a whole number in its range, ``max_numerator=0`` with ``nonzero``, or a positional
        argument beyond the three (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    hermite_polynomials, trig_mixtures, scaled_activations : The formulas whose coefficients are drawn here.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import small_rationals
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(small_rationals(max_numerator=3, max_denominator=2, nonzero=True))
    ... def check(q):
    ...     assert q != 0 and abs(q) <= 3
    >>> check()
    """
    max_numerator = _whole("small_rationals", "max_numerator", max_numerator, 0, 10**6)
    max_denominator = _whole("small_rationals", "max_denominator", max_denominator, 1, 10**6)
    if nonzero and max_numerator == 0:
        raise InvalidArgument("small_rationals(max_numerator=0, nonzero=True): no fraction is drawable.")
    values = st.builds(Fraction, st.integers(-max_numerator, max_numerator), st.integers(1, max_denominator))
    return values.filter(lambda q: q != 0) if nonzero else values


def _rational(q: Fraction) -> sp.Rational:
    return sp.Rational(q.numerator, q.denominator)


@_deprecated(positional=("max_degree",))
def hermite_polynomials(*, max_degree: int = 5) -> st.SearchStrategy[KnownNonlinearity]:
    r""":math:`f = \sum_{k=1}^K q_k \mathrm{He}_k(x)/k!`, written out in monomials, rational :math:`|q_k| \le 2`.

    Orthonormal convention of symrmt: the coefficient :math:`c_k = q_k/k!` of :math:`\mathrm{He}_k` gives
    :math:`a_k = c_k\sqrt{k!} = q_k/\sqrt{k!}`, so :math:`a_1 = q_1`, :math:`a_2 = q_2/\sqrt 2`,
    :math:`\nu = \sum_k q_k^2/k! \le 4(e - 1) < 7` (orthogonality
    :math:`\mathbb E[\mathrm{He}_j\mathrm{He}_k] = k!\,\delta_{jk}`): inside the ranges of :func:`hermite_data`
    where the catalogue's tolerances are stated.

    Parameters
    ----------
    max_degree : int
        The largest degree K, 1 to 12; default 5.

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        The polynomial's text, with :math:`a_1 = q_1`, :math:`a_2 = q_2/\sqrt 2` and :math:`\nu` exact (SymPy
        rationals), centred by construction (:math:`\mathrm{He}_k` has mean 0 for :math:`k \ge 1`).

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``max_degree`` that is not a whole number in 1..12, or a second positional argument (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    nonlinearities : All the families together.
    symrmt.hermite : What the drawn data are checked against.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import hermite_polynomials
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(hermite_polynomials(max_degree=3))
    ... def check(f):
    ...     assert f.nu >= f.a1**2
    >>> check()
    """
    return _hermite_polynomials(_whole("hermite_polynomials", "max_degree", max_degree, 1, 12))


@st.composite
def _hermite_polynomials(draw, max_degree: int) -> KnownNonlinearity:
    coefficients = draw(st.lists(small_rationals(max_numerator=4, max_denominator=2), min_size=1,
                                 max_size=max_degree).filter(any))
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

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        The formula with rational :math:`|\alpha|, |\beta| \le 2` (not both 0) and :math:`0 < |k|, |l| \le 3/2`, and
        :math:`a_1`, :math:`\nu` exact (SymPy expressions); centred by construction.

    Raises
    ------
    Nothing
        It takes no argument to check.

    See Also
    --------
    nonlinearities : All the families together.
    scaled_activations : Activations at a scale, with their closed forms.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import trig_mixtures
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(trig_mixtures())
    ... def check(f):
    ...     assert f.nu >= f.a1**2
    >>> check()
    """
    alpha, beta = (_rational(draw(small_rationals(max_numerator=4, max_denominator=2))) for _ in range(2))
    k, l = (_rational(draw(small_rationals(max_numerator=3, max_denominator=2, nonzero=True))) for _ in range(2))
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

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        The formula with rational :math:`0 < |s| \le 2`, :math:`0 < |k| \le 3/2`, its :math:`a_1` and :math:`\nu`
        (None for GELU's :math:`\nu`); ReLU and GELU are drawn with ``center=True`` (their :math:`a_0 \ne 0`).

    Raises
    ------
    Nothing
        It takes no argument to check.

    See Also
    --------
    nonlinearities : All the families together.
    parametric_nonlinearities : Families whose scale is a symbolic parameter.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import scaled_activations
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(scaled_activations())
    ... def check(f):
    ...     assert f.a1 is not None
    >>> check()
    """
    s = _rational(draw(small_rationals(max_numerator=4, max_denominator=2, nonzero=True)))
    k = _rational(draw(small_rationals(max_numerator=3, max_denominator=2, nonzero=True)))
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

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        The formula with its parameters (``params``, e.g. ``{"A": 1.5, "k": -0.5}``) and :math:`a_1`, :math:`\nu` at
        those values; what :func:`symrmt.hermite` takes as f with ``params``.

    Raises
    ------
    Nothing
        It takes no argument to check.

    See Also
    --------
    nonlinearities : All the families together.
    symrmt.hermite : Reads the parameters of a drawn f from it.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import parametric_nonlinearities
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(parametric_nonlinearities())
    ... def check(f):
    ...     assert f.params
    >>> check()
    """
    kind = draw(st.sampled_from(["sin", "erf", "leaky"]))
    if kind == "leaky":
        s = _rational(draw(small_rationals(max_numerator=4, max_denominator=2)))
        nu = (1 + s**2) / 2 - (1 - s) ** 2 / (2 * sp.pi)
        return KnownNonlinearity("relu(x) - s*relu(-x)", (1 + s) / 2, nu, center=True, params={"s": float(s)})
    amplitude = _rational(draw(small_rationals(max_numerator=4, max_denominator=2, nonzero=True)))
    k = _rational(draw(small_rationals(max_numerator=3, max_denominator=2, nonzero=True)))
    params = {"A": float(amplitude), "k": float(k)}
    if kind == "sin":
        return KnownNonlinearity("A*sin(k*x)", amplitude * k * sp.exp(-k**2 / 2),
                                 amplitude**2 * (1 - sp.exp(-2 * k**2)) / 2, params=params)
    return KnownNonlinearity("A*erf(k*x)", 2 * amplitude * k / sp.sqrt(sp.pi * (1 + 2 * k**2)),
                             2 * amplitude**2 / sp.pi * sp.asin(2 * k**2 / (1 + 2 * k**2)), params=params)


#: Smooth building blocks g(x) of :func:`smooth_nonlinearities` (odd, even and neither).
SMOOTH_BLOCKS = ("tanh({u})", "atan({u})", "sin({u})", "erf({u})", "cos({u})", "exp(-({u})**2)", "({u})*exp(-({u})**2/2)",
                 "sigmoid({u})", "log(1 + exp({u}))")


@_deprecated(positional=("max_terms",))
def smooth_nonlinearities(*, max_terms: int = 3) -> st.SearchStrategy[KnownNonlinearity]:
    r""":math:`f = \sum_i s_i\,g_i(k_i x)`, centered: one to ``max_terms`` different smooth blocks :data:`SMOOTH_BLOCKS`.

    Rational :math:`0 < |s_i| \le 2`, :math:`0 < |k_i| \le 3/2`. No closed form is claimed
    (``a1 = nu = None``): these are for properties that hold for every f.

    Parameters
    ----------
    max_terms : int
        The largest number of blocks, 1 to 9 (the size of :data:`SMOOTH_BLOCKS`); default 3.

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        The sum's text, ``center=True``, ``a1 = nu = None``.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``max_terms`` that is not a whole number in 1..9, or a second positional argument (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    nonlinearities : All the families together.
    SMOOTH_BLOCKS : The blocks :math:`g_i`.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import smooth_nonlinearities
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(smooth_nonlinearities(max_terms=2))
    ... def check(f):
    ...     assert f.center and f.a1 is None
    >>> check()
    """
    return _smooth_nonlinearities(_whole("smooth_nonlinearities", "max_terms", max_terms, 1, len(SMOOTH_BLOCKS)))


@st.composite
def _smooth_nonlinearities(draw, max_terms: int) -> KnownNonlinearity:
    blocks = draw(st.lists(st.sampled_from(SMOOTH_BLOCKS), min_size=1, max_size=max_terms, unique=True))
    terms = []
    for block in blocks:
        s = _rational(draw(small_rationals(max_numerator=4, max_denominator=2, nonzero=True)))
        k = _rational(draw(small_rationals(max_numerator=3, max_denominator=2, nonzero=True)))
        terms.append(f"({s})*" + block.format(u=f"({k})*x"))
    return KnownNonlinearity(" + ".join(terms), None, None, center=True)


@_deprecated(positional=("known", "parameters", "smooth"))
def nonlinearities(*, known: bool = True, parameters: bool = True,
                   smooth: bool = True) -> st.SearchStrategy[KnownNonlinearity]:
    r"""Formulas for f: the families with known Hermite data (``known``: :func:`hermite_polynomials`,
    :func:`trig_mixtures`, :func:`scaled_activations`), families with symbolic parameters
    (``parameters``: :func:`parametric_nonlinearities`) and arbitrary smooth sums (``smooth``:
    :func:`smooth_nonlinearities`, no closed form).

    Parameters
    ----------
    known : bool
        Draw the families with closed-form Hermite data; default True.
    parameters : bool
        Draw the families with symbolic parameters; default True.
    smooth : bool
        Draw the smooth sums without closed form; default True.

    Returns
    -------
    SearchStrategy of KnownNonlinearity
        One of the chosen families per draw. Every f drawn has :math:`|a_1| \le 2` and :math:`\nu < 7`; a drawn f is passed to
        symrmt's functions as f as it is.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        An option that is not True or False, all three False, or positional arguments beyond the three
        (0.1's positional arguments warn (:class:`DeprecationWarning`) until symrmt 0.3).

    See Also
    --------
    hermite_polynomials, trig_mixtures, scaled_activations : The families with known data.
    parametric_nonlinearities : The families with parameters.
    smooth_nonlinearities : The smooth sums.
    KnownNonlinearity : What is drawn.

    Examples
    --------
    >>> import symrmt
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import nonlinearities
    >>> @settings(max_examples=3, database=None, deadline=None)
    ... @given(nonlinearities(smooth=False, parameters=False))
    ... def check(f):
    ...     if f.a1 is not None:                                   # the closed form agrees with symrmt.hermite
    ...         assert abs(symrmt.hermite(f).a1 - float(f.a1)) < 1e-9
    >>> check()
    """
    for name, value in (("known", known), ("parameters", parameters), ("smooth", smooth)):
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidArgument(f"nonlinearities({name}={value!r}): {name} must be True or False.")
    chosen = ([hermite_polynomials(), trig_mixtures(), scaled_activations()] if known else []) + \
        ([parametric_nonlinearities()] if parameters else []) + ([smooth_nonlinearities()] if smooth else [])
    if not chosen:
        raise InvalidArgument("nonlinearities(): choose at least one of known, parameters, smooth.")
    return st.one_of(chosen)

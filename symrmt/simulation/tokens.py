r"""The law of the noise tokens: the entries of :math:`Z` in :math:`X = Z + \mu y^\top`.

The theory assumes i.i.d. :math:`\mathcal N(0, 1)` entries. Universality results (Cheng--Singer 2013; Do--Vu 2013;
Fan--Montanari 2019) say that the bulk of the kernel spectra depends on the entries' law only through its first
moments when they are finite, while the outlier created by the second Hermite coefficient :math:`a_2` moves with the
fourth moment :math:`m_4 = \mathbb E z^4` (it disappears for :math:`\pm 1` entries, :math:`m_4 = 1`), and heavy
tails break universality. :class:`TokenLaw` lets the Monte Carlo draw :math:`Z` from another law, always centred and
of unit variance, so that the Gaussian theory can be held against it.

The laws, by name (the command line's ``--tokens`` reads the same strings):

================  =====================================================  =====================================
name              entries :math:`z`                                      :math:`m_4`
================  =====================================================  =====================================
``gaussian``      :math:`\mathcal N(0, 1)`                               3
``rademacher``    :math:`\pm 1`, each with probability 1/2               1
``two_point:q``   :math:`\sqrt{(1-q)/q}` w.p. q, else                    :math:`(1-q)^2/q + q^2/(1-q)`
                  :math:`-\sqrt{q/(1-q)}` (skewed for q != 1/2)
``student_t:nu``  Student t with :math:`\nu > 4` degrees of freedom,     :math:`3(\nu-2)/(\nu-4)`
                  times :math:`\sqrt{(\nu-2)/\nu}`
``sparse:s``      :math:`b\,g/\sqrt s`, :math:`b \sim` Bernoulli(s),     :math:`3/s`
                  :math:`g \sim \mathcal N(0, 1)`, :math:`0 < s \le 1`
================  =====================================================  =====================================

A user's sampler, a callable ``sample(rng, shape)`` returning a float array of that shape, is taken as it is: its
draws are checked to be finite with the right shape, and its :math:`m_4` is estimated from one draw of
:data:`MOMENT_DRAW` entries (with the standard error of that estimate).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import ParameterError, ParameterTypeError

Sampler = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]

#: Entries drawn to estimate the fourth moment of a user's sampler: the standard error of the estimate is
#: :math:`\sqrt{(m_8 - m_4^2)/N}`, about 0.004 for Gaussian entries.
MOMENT_DRAW = 1_000_000
#: The Student t law needs :math:`\nu > 4` for a finite fourth moment; above this it is Gaussian to round-off.
MAX_DEGREES = 1e6
LAWS = ("gaussian", "rademacher", "two_point", "student_t", "sparse")


@dataclass(frozen=True)
class TokenLaw:
    r"""A centred, unit-variance law for the entries of :math:`Z`.

    Attributes
    ----------
    name : str
        How the law is written (``"student_t:5"``), or ``"user"`` for a sampler.
    sample : callable
        ``sample(rng, shape)``: an array of i.i.d. entries of that shape.
    fourth_moment : float
        :math:`m_4 = \mathbb E z^4`, exact for the named laws, estimated for a user's sampler.
    fourth_moment_error : float
        The standard error of :attr:`fourth_moment` (0 where it is exact).
    """

    name: str
    sample: Sampler
    fourth_moment: float
    fourth_moment_error: float = 0.0

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Entries of the given shape, float64, checked finite (a user's sampler is data, not trusted)."""
        values = self.sample(rng, shape)
        return _checked(values, shape, self.name)

    def summary(self) -> dict:
        """``{"name", "m4", "m4_error"}``, as a simulation result reports the law."""
        return {"name": self.name, "m4": self.fourth_moment, "m4_error": self.fourth_moment_error}

    @property
    def is_gaussian(self) -> bool:
        """Whether this is the theory's own law (the Monte Carlo then draws exactly as it always has)."""
        return self.name == "gaussian"


def _gaussian(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape)


def _rademacher(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return 2.0 * rng.integers(0, 2, size=shape) - 1.0


def two_point(q: float) -> TokenLaw:
    r"""The skewed two-point law: :math:`\sqrt{(1-q)/q}` with probability q, :math:`-\sqrt{q/(1-q)}` otherwise.

    Parameters
    ----------
    q : float
        The probability of the positive value, :math:`0 < q < 1` (q = 1/2 is Rademacher).

    Returns
    -------
    TokenLaw
        Mean 0, variance 1, third moment :math:`(1-2q)/\sqrt{q(1-q)}`, :math:`m_4 = (1-q)^2/q + q^2/(1-q)`.

    Raises
    ------
    ParameterError
        A q outside (0, 1).

    See Also
    --------
    token_law : The laws by name.
    """
    q = _number("two_point's q", q, 0.0, 1.0)
    high, low = math.sqrt((1 - q) / q), -math.sqrt(q / (1 - q))

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return np.where(rng.random(shape) < q, high, low)

    return TokenLaw(f"two_point:{q:g}", sample, (1 - q) ** 2 / q + q**2 / (1 - q))


def student_t(nu: float) -> TokenLaw:
    r"""Student's t with :math:`\nu > 4` degrees of freedom, scaled to unit variance.

    Parameters
    ----------
    nu : float
        Degrees of freedom, :math:`4 < \nu \le 10^6` (the fourth moment is infinite at :math:`\nu \le 4`).

    Returns
    -------
    TokenLaw
        :math:`z = t\sqrt{(\nu-2)/\nu}`, :math:`m_4 = 3(\nu-2)/(\nu-4)`.

    Raises
    ------
    ParameterError
        A :math:`\nu` outside :math:`(4, 10^6]`.

    See Also
    --------
    token_law : The laws by name.
    """
    nu = _number("student_t's degrees of freedom nu", nu, 4.0, MAX_DEGREES, closed_high=True)
    scale = math.sqrt((nu - 2) / nu)

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return scale * rng.standard_t(nu, size=shape)

    return TokenLaw(f"student_t:{nu:g}", sample, 3 * (nu - 2) / (nu - 4))


def sparse(s: float) -> TokenLaw:
    r"""Sparse entries: :math:`b\,g/\sqrt s` with :math:`b \sim \mathrm{Bernoulli}(s)` and :math:`g \sim \mathcal N(0,1)`.

    Parameters
    ----------
    s : float
        The fraction of nonzero entries, :math:`0 < s \le 1` (s = 1 is Gaussian).

    Returns
    -------
    TokenLaw
        Mean 0, variance 1, :math:`m_4 = 3/s`.

    Raises
    ------
    ParameterError
        An s outside (0, 1].

    See Also
    --------
    token_law : The laws by name.
    """
    s = _number("sparse's density s", s, 0.0, 1.0, closed_high=True)

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return (rng.random(shape) < s) * rng.standard_normal(shape) / math.sqrt(s)

    return TokenLaw(f"sparse:{s:g}", sample, 3.0 / s)


GAUSSIAN = TokenLaw("gaussian", _gaussian, 3.0)
RADEMACHER = TokenLaw("rademacher", _rademacher, 1.0)
_WITH_PARAMETER: dict[str, Callable[[float], TokenLaw]] = {"two_point": two_point, "student_t": student_t,
                                                          "sparse": sparse}


def token_law(law: Any = None, *, seed: int = 0) -> TokenLaw:
    r"""Read a token law: a name (``"student_t:5"``), a :class:`TokenLaw`, a sampler, or None (Gaussian).

    Parameters
    ----------
    law : str, TokenLaw, callable or None
        ``"gaussian"`` (the default, also None), ``"rademacher"``, ``"two_point:q"``, ``"student_t:nu"``,
        ``"sparse:s"`` (see the module docstring for each law and its :math:`m_4`), a :class:`TokenLaw`, or a
        callable ``sample(rng, shape)`` returning i.i.d. centred, unit-variance entries.
    seed : int
        The seed of the draw that checks a user's sampler and estimates its :math:`m_4`.

    Returns
    -------
    TokenLaw
        The law, with its fourth moment.

    Raises
    ------
    ParameterError
        An unknown name, a missing or bad parameter, or a sampler whose draw is not finite, has the wrong shape,
        or is not centred with unit variance (beyond six standard errors of its :data:`MOMENT_DRAW` entries).
    ParameterTypeError
        A law of another type.

    See Also
    --------
    symrmt.simulate : Its ``tokens=`` argument.

    Examples
    --------
    >>> token_law("student_t:6").fourth_moment
    6.0
    >>> token_law("rademacher").fourth_moment
    1.0
    """
    if law is None:
        return GAUSSIAN
    if isinstance(law, TokenLaw):
        return law
    if isinstance(law, str):
        return _named(law)
    if callable(law):
        return _user(law, seed)
    raise ParameterTypeError(f"tokens must be a law's name ({', '.join(LAWS)}), a TokenLaw or a sampler "
                             f"sample(rng, shape); got {type(law).__name__}")


def _named(text: str) -> TokenLaw:
    name, _, parameter = text.strip().partition(":")
    if name in ("gaussian", "rademacher"):
        if parameter:
            raise ParameterError(f"tokens = {text!r}: {name} takes no parameter; write {name!r}")
        return GAUSSIAN if name == "gaussian" else RADEMACHER
    if name not in _WITH_PARAMETER:
        raise ParameterError(f"unknown token law {text[:40]!r}: use one of gaussian, rademacher, two_point:q, "
                             "student_t:nu, sparse:s (e.g. student_t:6)")
    try:
        value = float(parameter)
    except ValueError:
        raise ParameterError(f"tokens = {text[:40]!r}: {name} needs a number after the colon, e.g. "
                             f"{name}:{ {'two_point': 0.2, 'student_t': 6, 'sparse': 0.1}[name] }") from None
    return _WITH_PARAMETER[name](value)


def _user(sample: Sampler, seed: int) -> TokenLaw:
    size = MOMENT_DRAW
    values = _checked(sample(np.random.default_rng(seed), (size,)), (size,), "the sampler")
    mean, variance = float(values.mean()), float(values.var())
    m4 = float(np.mean(values**4))
    # Six standard errors: a sampler off by less than that is indistinguishable from a centred, unit-variance one
    # with this many entries; the m_4 error from the sample's own eighth moment.
    m8 = float(np.mean(values**8))
    if abs(mean) > 6 * math.sqrt(max(variance, 1e-300) / size) or abs(variance - 1) > 6 * math.sqrt(
            max(m4 - variance**2, 1e-300) / size):
        raise ParameterError(f"the token sampler's entries have mean {mean:.4g} and variance {variance:.4g}; they "
                             "must be centred with unit variance: return (z - mean) / std")
    return TokenLaw("user", sample, m4, math.sqrt(max(m8 - m4**2, 0.0) / size))


def _checked(values: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} returned {type(values).__name__}, not an array of numbers") from None
    if array.shape != tuple(shape):
        raise ParameterError(f"{name} returned shape {array.shape} for shape {tuple(shape)}: sample(rng, shape) must "
                             "return exactly that shape")
    if not np.all(np.isfinite(array)):
        raise ParameterError(f"{name} returned a non-finite entry (inf or NaN)")
    return array


def _number(what: str, value: Any, low: float, high: float, closed_high: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ParameterTypeError(f"{what} must be a number, got {type(value).__name__}")
    number = float(value)
    inside = low < number <= high if closed_high else low < number < high
    if not inside:
        bracket = "]" if closed_high else ")"
        raise ParameterError(f"{what} must be in ({low:g}, {high:g}{bracket}, got {number:g}")
    return number

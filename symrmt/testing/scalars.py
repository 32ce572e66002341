r"""Hypothesis strategies of the scalar parameters: the ratio :math:`c = p/n`, the ridge :math:`\gamma` and the diagonal d.

:func:`ratios` and :func:`ridges` draw log-uniform in their ranges (default :math:`c \in [0.2, 5]`,
:math:`\gamma \in [10^{-2}, 10^2]`), :func:`regimes` the two together as a :class:`Regime`, :func:`diagonals`
uniform in :math:`[-1, 1]` by default; :func:`log_uniform` is the rule under the first two. Re-exported by
:mod:`symrmt.testing.strategies`, whose module docstring states the conventions (keyword arguments,
``min_*``/``max_*`` bounds, :class:`hypothesis.errors.InvalidArgument`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .arguments import deprecated as _deprecated
from .arguments import interval as _interval
from .arguments import pair as _pair
from .arguments import real as _real

__all__ = ["log_uniform", "ratios", "ridges", "regimes", "diagonals", "Regime", "RATIOS", "RIDGES", "MAX_DIAGONAL"]

#: Range of c = p/n drawn by :func:`regimes` and :func:`points`.
RATIOS = (0.2, 5.0)
#: Range of the ridge gamma drawn by :func:`regimes`.
RIDGES = (1e-2, 1e2)
#: Largest |d| drawn by :func:`points`.
MAX_DIAGONAL = 1.0


class Regime(NamedTuple):
    r"""What :func:`regimes` draws: the ratio :math:`c = p/n` and the ridge :math:`\gamma`.

    Examples
    --------
    >>> from symrmt.testing import Regime
    >>> Regime(c=0.5, gamma=0.1).gamma
    0.1
    """

    c: float
    gamma: float



@_deprecated(positional=("min_value", "max_value"), renamed={"low": lambda v: {"min_value": v},
                                                            "high": lambda v: {"max_value": v}})
def log_uniform(*, min_value: float, max_value: float) -> st.SearchStrategy[float]:
    """Floats spread evenly in log scale over ``[min_value, max_value]`` (both > 0).

    Parameters
    ----------
    min_value, max_value : float
        The bounds, finite, > 0, min_value <= max_value (required).

    Returns
    -------
    SearchStrategy of float
        Floats in [min_value, max_value], uniform in their logarithm.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a finite number > 0, or min_value > max_value. The 0.1 names ``low=``, ``high=`` and
        positional bounds warn (:class:`DeprecationWarning`) until symrmt 0.3.

    See Also
    --------
    ratios, ridges : This strategy with the ranges of c and gamma.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import log_uniform
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(log_uniform(min_value=0.1, max_value=10.0))
    ... def check(value):
    ...     assert 0.1 <= value <= 10.0
    >>> check()
    """
    lo, hi = _interval("log_uniform", "min_value", min_value, "max_value", max_value, positive=True)
    return st.floats(math.log(lo), math.log(hi)).map(lambda v: float(min(max(math.exp(v), lo), hi)))


@_deprecated(positional=("min_value", "max_value"), renamed={"low": lambda v: {"min_value": v},
                                                            "high": lambda v: {"max_value": v}})
def ratios(*, min_value: float = RATIOS[0], max_value: float = RATIOS[1]) -> st.SearchStrategy[float]:
    r""":math:`c = p/n`, log-uniform in ``[min_value, max_value]`` (default :math:`[0.2, 5]`).

    Parameters
    ----------
    min_value, max_value : float
        The bounds, finite, > 0, ``min_value <= max_value``; default 0.2 and 5.

    Returns
    -------
    SearchStrategy of float
        :math:`c \in [` ``min_value``, ``max_value`` :math:`]`, uniform in :math:`\log c`.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a finite number > 0, or ``min_value > max_value``. The 0.1 names ``low=``, ``high=`` and
        positional bounds warn (:class:`DeprecationWarning`) until symrmt 0.3.

    See Also
    --------
    regimes : c with the ridge.
    symrmt.attention_error : Takes :math:`10^{-6} \le c \le 10^{6}`.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import ratios
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(ratios(min_value=0.5, max_value=2.0))
    ... def check(c):
    ...     assert 0.5 <= c <= 2.0
    >>> check()
    """
    _interval("ratios", "min_value", min_value, "max_value", max_value, positive=True)
    return log_uniform(min_value=min_value, max_value=max_value)


@_deprecated(positional=("min_value", "max_value"), renamed={"low": lambda v: {"min_value": v},
                                                            "high": lambda v: {"max_value": v}})
def ridges(*, min_value: float = RIDGES[0], max_value: float = RIDGES[1]) -> st.SearchStrategy[float]:
    r"""The ridge :math:`\gamma`, log-uniform in ``[min_value, max_value]`` (default :math:`[10^{-2}, 10^2]`).

    Parameters
    ----------
    min_value, max_value : float
        The bounds, finite, > 0, ``min_value <= max_value``; default :math:`10^{-2}` and :math:`10^{2}`.

    Returns
    -------
    SearchStrategy of float
        :math:`\gamma \in [` ``min_value``, ``max_value`` :math:`]`, uniform in :math:`\log \gamma`.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a finite number > 0, or ``min_value > max_value``. The 0.1 names ``low=``, ``high=`` and
        positional bounds warn (:class:`DeprecationWarning`) until symrmt 0.3.

    See Also
    --------
    regimes : The ridge with c.
    symrmt.attention_error : Takes :math:`0 < \gamma \le 10^{12}`.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import ridges
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(ridges(max_value=1.0))
    ... def check(gamma):
    ...     assert 1e-2 <= gamma <= 1.0
    >>> check()
    """
    _interval("ridges", "min_value", min_value, "max_value", max_value, positive=True)
    return log_uniform(min_value=min_value, max_value=max_value)


@_deprecated(renamed={"c": _pair("c", "min_c", "max_c"), "gamma": _pair("gamma", "min_gamma", "max_gamma")})
def regimes(*, min_c: float = RATIOS[0], max_c: float = RATIOS[1], min_gamma: float = RIDGES[0],
            max_gamma: float = RIDGES[1]) -> st.SearchStrategy[Regime]:
    r""":class:`Regime` ``(c, gamma)``: :math:`c \in [0.2, 5]` and :math:`\gamma \in [10^{-2}, 10^2]` by default, both
    log-uniform.

    The solver's range is wider (:data:`symrmt.validate.C_RANGE`, :math:`\gamma \le 10^{12}`); this is
    where the catalogue's tolerances are stated. Near :math:`c = 1` with :math:`\gamma \lesssim 10^{-8}` the
    quadrature cannot resolve the hard edge (section 13 of the theory page), far outside this range.

    Parameters
    ----------
    min_c, max_c : float
        The range of :math:`c`, finite, > 0, ``min_c <= max_c``; default 0.2 and 5.
    min_gamma, max_gamma : float
        The range of :math:`\gamma`, finite, > 0, ``min_gamma <= max_gamma``; default :math:`10^{-2}` and
        :math:`10^{2}`.

    Returns
    -------
    SearchStrategy of Regime
        Named pairs ``Regime(c, gamma)``, each drawn log-uniform in its range.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        A bound that is not a finite number > 0, or a lower bound above its upper one. The 0.1 pairs ``c=(lo, hi)``
        and ``gamma=(lo, hi)`` warn (:class:`DeprecationWarning`) until symrmt 0.3.

    See Also
    --------
    ratios, ridges : Each of the two alone.
    points : A whole parameter point.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import regimes
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(regimes(max_c=2.0))
    ... def check(drawn):
    ...     assert 0.2 <= drawn.c <= 2 and 1e-2 <= drawn.gamma <= 1e2
    >>> check()
    """
    _interval("regimes", "min_c", min_c, "max_c", max_c, positive=True)
    _interval("regimes", "min_gamma", min_gamma, "max_gamma", max_gamma, positive=True)
    return st.builds(Regime, ratios(min_value=min_c, max_value=max_c), ridges(min_value=min_gamma, max_value=max_gamma))


@_deprecated(positional=("max_abs",), renamed={"bound": lambda v: {"max_abs": v}})
def diagonals(*, max_abs: float = MAX_DIAGONAL) -> st.SearchStrategy[float]:
    r"""The diagonal d of the attention matrix, in ``[-max_abs, max_abs]``.

    Parameters
    ----------
    max_abs : float
        The largest :math:`|d|`, finite and :math:`\ge 0`; default 1 (the solver takes :math:`|d| \le 100`).

    Returns
    -------
    SearchStrategy of float
        d in [-max_abs, max_abs], shrinking towards 0.

    Raises
    ------
    hypothesis.errors.InvalidArgument
        ``max_abs`` that is not a finite number >= 0. The 0.1 name ``bound=`` and a positional bound warn
        (:class:`DeprecationWarning`) until symrmt 0.3.

    See Also
    --------
    points : d with the rest of a parameter point.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from symrmt.testing import diagonals
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(diagonals(max_abs=0.5))
    ... def check(d):
    ...     assert abs(d) <= 0.5
    >>> check()
    """
    bound = _real("diagonals", "max_abs", max_abs)
    if bound < 0:
        raise InvalidArgument(f"diagonals(max_abs={max_abs!r}): max_abs must be >= 0.")
    return st.floats(-bound, bound)

r"""The split of a centered f into its linear part and the rest: :math:`b^2 = \nu - a_1^2`, the one rule.

A centered f is :math:`a_1 \xi + g(\xi)` with :math:`g \perp \xi`, and :math:`\nu = a_1^2 + b^2` where
:math:`b^2 = \mathbb E[g(\xi)^2] \ge 0` (Cauchy--Schwarz: :math:`a_1^2 \le \nu`). Every numeric :math:`b`
of the package comes from :func:`nonlinear_share`, so the Hermite data, the theory and the command line
accept and refuse the same pairs.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import SymrmtInputError

__all__ = ["B2_ROUNDOFF", "nonlinear_share", "nonlinear_part"]

#: A computed :math:`\nu - a_1^2` down to :math:`-10^{-12}\max(\nu, 1)` is round-off of an f with no nonlinear
#: part (f = x gives exactly 1 - 1, a tabulated closed form may give -1e-16) and counts as 0; below it the pair
#: is not the data of any f.
B2_ROUNDOFF = 1e-12


def nonlinear_share(a1: Any, nu: Any) -> np.ndarray:
    r""":math:`b^2 = \nu - a_1^2` (arrays broadcast), round-off below 0 clipped; a pair with :math:`\nu < a_1^2` refused.

    Parameters
    ----------
    a1, nu : array_like
        The Hermite data :math:`a_1 = \mathbb E[\xi f(\xi)]` and :math:`\nu = \mathbb E f(\xi)^2`; broadcast together.

    Returns
    -------
    numpy.ndarray
        :math:`b^2 = \nu - a_1^2 \ge 0`.

    Raises
    ------
    SymrmtInputError
        A pair with :math:`\nu < a_1^2` beyond round-off (Cauchy-Schwarz forbids it).

    See Also
    --------
    nonlinear_part : Its square root :math:`b`.

    Examples
    --------
    >>> float(nonlinear_share(0.5, 1.25))
    1.0
    >>> nonlinear_share(1.0, 0.5)
    Traceback (most recent call last):
    ...
    symrmt.errors.SymrmtInputError: need nu >= a_1^2 (nu = E f^2 bounds a_1 = E[xi f] by Cauchy-Schwarz).
    """
    a1, nu = np.asarray(a1, dtype=float), np.asarray(nu, dtype=float)
    b2 = nu - a1**2
    if np.any(b2 < -B2_ROUNDOFF * np.maximum(1, nu)):
        raise SymrmtInputError("need nu >= a_1^2 (nu = E f^2 bounds a_1 = E[xi f] by Cauchy-Schwarz).")
    return np.clip(b2, 0, None)


def nonlinear_part(a1: Any, nu: Any) -> np.ndarray:
    r""":math:`b = \sqrt{\nu - a_1^2}`, by the rule of :func:`nonlinear_share`.

    Parameters
    ----------
    a1, nu : array_like
        The Hermite data; broadcast together.

    Returns
    -------
    numpy.ndarray
        :math:`b = \sqrt{\nu - a_1^2}`.

    Raises
    ------
    SymrmtInputError
        A pair with :math:`\nu < a_1^2` beyond round-off.

    See Also
    --------
    nonlinear_share : :math:`b^2`.

    Examples
    --------
    >>> float(nonlinear_part(0.6, 1.0))
    0.8
    """
    return np.sqrt(nonlinear_share(a1, nu))

r"""The Stieltjes transform of each spectral law, as the algebraic equation it solves.

For the Marchenko--Pastur law of :math:`A = Z^\top Z/p` (ratio :math:`1/c`, atom :math:`(1 - c)_+` at 0),
:math:`m(z) = \mathbb E_\lambda[1/(\lambda - z)]` is the root of

.. math::

    P(z, m) = z\,m^2 + (cz - c + 1)\,m + c = 0

with :math:`m(z) \sim -1/z` at infinity and :math:`\operatorname{Im} m > 0` above the real axis
(Marchenko and Pastur 1967; Bai and Silverstein 2010, Thm 3.10, written for :math:`A`). The other root
is :math:`c/(z\,m)`. Everything else the algebraic form of a system (:mod:`.algebraic`) needs is derived
from this one equation:

* the moments :math:`\mathbb E[\lambda^k]`, from the expansion of the root at infinity (:func:`moment`);
* the atom :math:`w` at 0: a pole :math:`m \approx -w/z` needs :math:`\lim_{z\to0} z\,P(z, -w/z) = 0`, whose
  roots are the possible masses; the atom is the largest one in :math:`[0, 1]` (:func:`atom`:
  :math:`w = \max(0, 1 - c)`);
* the equation of the bulk's transform :math:`\tilde m = m + w/z`, which has no pole at 0
  (:func:`bulk_polynomial`): :math:`z\tilde m^2 + (cz - c + 1 - 2w)\tilde m + c(1 - w) = 0`, valid for
  either root :math:`w` of the residue equation;
* the equation of :math:`\psi_k(u) = \mathbb E[\lambda^k/(1 + u\lambda)]` (:func:`transform_polynomial`),
  from :math:`m(-1/u) = u\,(\sum_{j<k} \mathbb E[\lambda^j](-u)^j + (-u)^k \psi_k(u))`; its physical root is
  the one analytic at :math:`u = 0`.

``tests/derive/test_stieltjes.py`` checks them against the density of the quadrature rule.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .components import SpectralLaw

__all__ = ["stieltjes_polynomial", "moment", "atom", "bulk_polynomial", "transform_polynomial", "LAWS"]

#: The laws whose Stieltjes transform solves a known polynomial equation.
LAWS = ("marchenko_pastur",)


def stieltjes_polynomial(law: SpectralLaw, z: sp.Expr, m: sp.Expr) -> sp.Expr:
    r""":math:`P(z, m)`, whose root :math:`m \sim -1/z` at infinity is the law's Stieltjes transform at ``z``.

    Examples
    --------
    >>> from .dyson import MARCHENKO_PASTUR
    >>> z, m = sp.symbols("z m")
    >>> stieltjes_polynomial(MARCHENKO_PASTUR, z, m)
    c + m**2*z + m*(c*z - c + 1)
    """
    if law.name == "marchenko_pastur":
        c = law.parameters["c"]
        return z * m**2 + (c * z - c + 1) * m + c
    raise ValueError(f"the law {law.name!r} has no Stieltjes equation here; algebraic forms exist for {LAWS}")


def moment(law: SpectralLaw, k: int) -> sp.Expr:
    r""":math:`\mathbb E[\lambda^k]`: minus the coefficient of :math:`z^{-k-1}` in the root :math:`m \sim -1/z`.

    Examples
    --------
    >>> from .dyson import MARCHENKO_PASTUR
    >>> moment(MARCHENKO_PASTUR, 1), moment(MARCHENKO_PASTUR, 2)
    (1, (c + 1)/c)
    """
    return _moments(law, k)[k]


@lru_cache(maxsize=None)
def _moments(law: SpectralLaw, k: int) -> tuple[sp.Expr, ...]:
    r"""Moments 0..k, solved order by order from :math:`P(1/w, -\sum_j \mu_j w^{j+1}) = O(w^{k+1})`."""
    w = sp.Dummy("w")
    mu = sp.symbols(f"mu0:{k + 1}", cls=sp.Dummy)
    m = -sum(mu[j] * w ** (j + 1) for j in range(k + 1))
    series = sp.expand(stieltjes_polynomial(law, 1 / w, m) * w**2)     # a polynomial in w
    solved: dict = {}
    for order in range(k + 1):                # mu_j first appears, linearly, at the order of its own term
        coefficient = series.coeff(w, order + _lowest_order(series, mu[0], w)).xreplace(solved)
        unknown = mu[order]
        solved[unknown] = sp.simplify(sp.solve(coefficient, unknown)[0])
    return tuple(sp.simplify(solved[mu[j]]) for j in range(k + 1))


def _lowest_order(series: sp.Expr, first: sp.Symbol, w: sp.Symbol) -> int:
    """The lowest power of ``w`` whose coefficient involves the first moment's unknown."""
    return min(order for (order,), c in sp.Poly(series, w).terms() if c.has(first))


def _residue_polynomial(law: SpectralLaw, w: sp.Symbol) -> sp.Expr:
    r""":math:`\lim_{z \to 0} z\,P(z, -w/z)`: zero exactly when :math:`m \approx -w/z` near 0 is possible."""
    z = sp.Dummy("z")
    return sp.expand(sp.limit(sp.expand(z * stieltjes_polynomial(law, z, -w / z)), z, 0))


def atom(law: SpectralLaw) -> sp.Expr:
    r"""The law's mass at 0: the largest root in :math:`[0, 1]` of the residue equation.

    Examples
    --------
    >>> from .dyson import MARCHENKO_PASTUR
    >>> atom(MARCHENKO_PASTUR)
    Max(0, 1 - c)
    """
    w = sp.Dummy("w")
    roots = sp.solve(_residue_polynomial(law, w), w)
    return sp.Max(*roots) if len(roots) > 1 else roots[0]


def bulk_polynomial(law: SpectralLaw, z: sp.Expr, m: sp.Expr, w: sp.Expr) -> sp.Expr:
    r"""The polynomial solved by :math:`\tilde m = m + w/z`, the transform of the law without its atom :math:`w`.

    :math:`z P(z, \tilde m - w/z)` reduced modulo the residue equation of :math:`w` vanishes at
    :math:`z = 0` and is divided by :math:`z`; the result holds for each root :math:`w` (with or without
    an atom), and its root :math:`\tilde m \sim -(1 - w)/z` at infinity is the bulk's transform.

    Examples
    --------
    >>> from .dyson import MARCHENKO_PASTUR
    >>> z, m, w = sp.symbols("z m w")
    >>> sp.expand(bulk_polynomial(MARCHENKO_PASTUR, z, m, w))
    c*m*z - c*m - c*w + c + m**2*z - 2*m*w + m
    """
    W, Z, M = sp.Dummy("w"), sp.Dummy("z"), sp.Dummy("m")
    shifted = sp.expand(Z * stieltjes_polynomial(law, Z, M - W / Z))
    reduced = sp.rem(sp.Poly(shifted, W), sp.Poly(_residue_polynomial(law, W), W)).as_expr()
    quotient, remainder = sp.div(sp.expand(reduced), Z, Z)
    if remainder != 0:
        raise ValueError(f"the law {law.name!r}: z P(z, m - w/z) is not divisible by z; no bulk equation")
    return sp.expand(quotient).xreplace({Z: z, M: m, W: w})


def transform_polynomial(law: SpectralLaw, k: int, u: sp.Expr, value: sp.Expr) -> sp.Expr:
    r"""The polynomial whose root analytic at :math:`u = 0` is :math:`\psi_k(u) = \mathbb E[\lambda^k/(1 + u\lambda)]`.

    The numerator of :math:`P(-1/u, u\,\phi)` with
    :math:`\phi = \sum_{j<k} \mathbb E[\lambda^j](-u)^j + (-u)^k \psi_k` (so that :math:`u\phi = m(-1/u)`),
    with the powers of :math:`u` that divide it removed and the :math:`\psi_k^2` term made positive.

    Examples
    --------
    >>> from .dyson import MARCHENKO_PASTUR
    >>> u, psi = sp.symbols("u psi")
    >>> sp.collect(transform_polynomial(MARCHENKO_PASTUR, 1, u, psi), psi)
    c + psi**2*u**2 + psi*(-c*u - c - u)
    """
    U, V = sp.Dummy("u"), sp.Dummy("value")
    phi = sum(moment(law, j) * (-U) ** j for j in range(k)) + (-U) ** k * V
    numerator = sp.expand(sp.numer(sp.together(stieltjes_polynomial(law, -1 / U, U * phi))))
    lowest = min(monomial[0] for monomial in sp.Poly(numerator, U).monoms())
    polynomial = sp.expand(numerator / U**lowest)
    if sp.Poly(polynomial, V).LC().could_extract_minus_sign():
        polynomial = -polynomial
    return polynomial.xreplace({U: u, V: value})

r"""Eigenvalue densities: the same resolvents at a complex spectral argument :math:`z = x + i\eta`.

Two matrices, two pencils, one engine:

* ``"gram"``: the attention Gram matrix :math:`K^\top X^\top X K/n`. The top-left block
  of the ridge pencil's inverse is :math:`(\gamma + K^\top C K)^{-1}`, so at
  :math:`\gamma = -z` the attention system's Dyson equations give its Stieltjes transform
  :math:`m(z) = \frac1n \operatorname{tr}(K^\top C K - z)^{-1} \simeq \tau_{11}`.
* ``"kernel"``: the kernel matrix :math:`K` itself (symmetric when :math:`w_K^{(k)} = w_Q^{(k)}`),
  a one-block pencil :math:`K_N - z` with its Wigner part: :math:`R(\lambda) = 1/M(\lambda)`,
  :math:`M(\lambda) = a_1\lambda + d - a_1 - z - b^2 t_{11}`, :math:`t_{11} = \mathbb E_\lambda[R]/c`
  and :math:`m(z) = \mathbb E_\lambda[R]`: the free additive convolution of the law of
  :math:`a_1 A + (d - a_1) I` with a semicircle of variance :math:`b^2/c`.

The low-rank part of the model moves only :math:`O(1)` eigenvalues (outliers), not the
bulk, so neither system depends on the geometry. The unknowns are complex; the solver
continues in :math:`\eta` from far above the spectrum down to the target on the branch
:math:`\operatorname{Im} m > 0`, and the density is :math:`\frac1\pi \operatorname{Im} m(x + i\eta)`
(for :math:`\eta > 0` the spectral measure smoothed by the Cauchy kernel of width :math:`\eta`).
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import symbols as S
from .algebraic import in_form
from .components import Admissible, Continuation
from .dyson import GLOSSARY, KERNEL_SCALE, NOISE_KERNEL, START_FACTOR, dyson_fixed_point, noise_pencil, ridge_scale
from .fixed_point import FixedPointSystem
from .pencil import Pencil
from .statement import density_statement

__all__ = ["density_system", "STIELTJES", "DENSITY", "MATRICES"]

#: The observables: the Stieltjes transform m(z) and the density (1/pi) Im m.
STIELTJES = sp.Symbol("m")
DENSITY = sp.Symbol("rho")
#: The matrices whose densities are derived.
MATRICES = ("gram", "kernel")
_MATRIX_LATEX = {"gram": r"\frac{K^\top X^\top X K}{n}", "kernel": "K"}

_Z = S.x + sp.I * S.eta



def _pencil(matrix: str) -> Pencil:
    if matrix == "gram":                 # the ridge pencil at gamma = -z
        ridge = noise_pencil()
        return Pencil(ridge.deterministic.xreplace({S.gamma: -_Z}), ridge.wigner)
    if matrix == "kernel":
        return Pencil(sp.Matrix([[NOISE_KERNEL - _Z]]), sp.Matrix([[S.b]]))
    raise ValueError(f"matrix = {matrix!r}: use one of {MATRICES}")


def _spectrum_scale(matrix: str) -> sp.Expr:
    r"""A bound on the spectrum of the matrix: :func:`~.dyson.ridge_scale` for the Gram matrix; for :math:`K`,
    :math:`|a_1|` times the Marchenko--Pastur edge :math:`(1 + 1/\sqrt c)^2` plus the Wigner and diagonal parts."""
    if matrix == "gram":
        return ridge_scale(KERNEL_SCALE)
    return 1 + sp.Abs(S.a1) * (1 + 1 / sp.sqrt(S.c)) ** 2 + S.b + sp.Abs(S.d)


def density_system(matrix: str = "gram", form: str = "quadrature") -> FixedPointSystem:
    r"""The Stieltjes transform and density of the attention Gram matrix (``"gram"``) or of :math:`K` (``"kernel"``).

    Parameters of the system: ``c, x, eta, a_1, b, d``; continuation in ``eta``. ``form="algebraic"``:
    averages in closed form (valid for :math:`a_1 \ne 0`).

    Parameters
    ----------
    matrix : {"gram", "kernel"}
        :math:`K^\top X^\top X K/n` or :math:`K`.
    form : {"quadrature", "algebraic"}
        The spectral averages as integrals over :math:`\lambda` (default) or in closed form.

    Returns
    -------
    FixedPointSystem
        The Stieltjes transform and the density as SymPy objects.

    Raises
    ------
    ValueError
        An unknown matrix or form.

    See Also
    --------
    symrmt.spectral_density : Solves it at the user's points.

    Examples
    --------
    >>> system = density_system("kernel")
    >>> system.residuals[S.trace_symbol(1, 1)]
    t_11 - tau_11/c
    """
    return _density_system(matrix, form)


@lru_cache(maxsize=None)
def _density_system(matrix: str, form: str) -> FixedPointSystem:
    if form != "quadrature":
        return in_form(_density_system(matrix, "quadrature"), form)
    dyson = dyson_fixed_point(_pencil(matrix))
    t11 = S.trace_symbol(1, 1)
    return FixedPointSystem(
        name=f"{matrix} density",
        parameters={p: S.domain(p) for p in (S.c, S.x, S.eta, S.a1, S.b, S.d)},
        unknowns=tuple(dyson.unknowns),
        residuals=dyson.residuals,
        averages=dyson.averages,
        observables={STIELTJES: S.tau_symbol(1, 1), DENSITY: sp.im(STIELTJES) / sp.pi},
        continuation=Continuation(S.eta, START_FACTOR * (_spectrum_scale(matrix) + sp.Abs(S.x)),
                                  {t: 0 for t in dyson.unknowns}, "linear"),
        branch=(sp.GreaterThan(sp.im(t11), 0),),
        admissible={DENSITY: Admissible(0, sp.oo, "absolute")},
        complex_unknowns=True,
        glossary={**GLOSSARY, S.x: r"z = x + i\eta \text{ the spectral argument}"},
        definitions=dyson.definitions,
        display={STIELTJES: "m(z)", DENSITY: r"\rho_\eta(x)"},
        statement=density_statement(_MATRIX_LATEX[matrix]),
    )

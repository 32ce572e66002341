r"""What every derived system shares: the law of :math:`A`, the noise kernel, the Dyson fixed point, the start scale.

Each system of symrmt -- the ridge systems of :mod:`.attention` and the densities of
:mod:`.density` -- is the Dyson equation of a pencil built from the noise kernel

.. math::

    K_N = a_1 A + (d - a_1) I + b\,W/\sqrt p, \qquad C = cA,

averaged over the Marchenko--Pastur law of :math:`A = Z^\top Z/p` (:mod:`.pencil`): with
:math:`M(\lambda)` the pencil minus its self-energy and :math:`R = M^{-1}`,

.. math::

    t_{ij} = \frac{\tau_{ij}}{c}, \qquad \tau_{ij} = \mathbb E_\lambda[R_{ij}(\lambda)].

:func:`dyson_fixed_point` builds these residuals, averages and definitions once for any
pencil; :func:`ridge_scale` bounds the spectrum of :math:`K^\top C K`, from which every
continuation starts (:data:`START_FACTOR` times above it).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from . import symbols as S
from .components import SpectralAverage, SpectralLaw
from .pencil import Pencil, ridge_pencil

__all__ = ["MARCHENKO_PASTUR", "GLOSSARY", "NOISE_KERNEL", "KERNEL_SCALE", "START_FACTOR", "noise_pencil",
           "ridge_scale", "dyson_symbols", "resolvent_average", "DysonFixedPoint", "dyson_fixed_point"]

#: The spectral law of A = Z^T Z / p.
MARCHENKO_PASTUR = SpectralLaw("marchenko_pastur", {"c": S.c})
#: The deterministic part of the noise kernel K_N at an eigenvalue lambda of A: a_1 lambda + d - a_1.
NOISE_KERNEL = S.a1 * S.lam + S.d - S.a1
#: A bound on the scale of the squared entries of K (Wigner part included).
KERNEL_SCALE = 1 + S.a1**2 + S.b**2 + S.d**2
#: Continuation starts at this multiple of a crude bound on the spectrum (see ridge_scale).
START_FACTOR = 10

GLOSSARY = {
    S.c: r"c = p/n",
    S.gamma: r"\gamma > 0 \text{ the ridge parameter}",
    S.a1: r"a_1 = \mathbb{E}[\xi f(\xi)],\ \xi \sim \mathcal{N}(0, 1)",
    S.b: r"b^2 = \nu - a_1^2,\ \nu = \mathbb{E}[f(\xi)^2]",
    S.d: r"d = K_{ii} \text{ the diagonal of the attention matrix}",
    S.theta: r"\theta = \|\mu\|^2",
    S.lam: r"\lambda \text{ an eigenvalue of } A = Z^\top Z/p,\ Z \in \mathbb{R}^{p \times n} \text{ the noise of the "
           r"tokens } X = Z + \mu y^\top",
    S.trace_symbol(1, 1): r"t_{ij} = \operatorname{tr}(H_N^{-1})_{ij}/p,\ H_N \text{ the noise part of the model's "
                          r"linear pencil } H",
    S.tau_symbol(1, 1): r"\tau_{ij} = \mathbb{E}_\lambda[R_{ij}],\ \tau^A_{ij} = \mathbb{E}_\lambda[\lambda R_{ij}] "
                        r"\text{ the spectral averages}",
}


def noise_pencil() -> Pencil:
    r"""The ridge pencil of :math:`Q = (\gamma + K_N^\top C K_N)^{-1}` with :math:`C = c\lambda`."""
    return ridge_pencil(NOISE_KERNEL, S.b, S.c * S.lam)


def ridge_scale(kernel_scale: sp.Expr) -> sp.Expr:
    r"""A bound on the spectrum of :math:`K^\top C K` from a bound on the squared entries of :math:`K`.

    :math:`(1 + c)(1 + 1/c)` bounds the Marchenko--Pastur edge of :math:`cA` and its moments.
    Far above it (:data:`START_FACTOR` times), :math:`t = 0` is in Newton's basin.
    """
    return (1 + S.c) * (1 + 1 / S.c) * kernel_scale


def dyson_symbols(size: int) -> tuple[sp.MatrixSymbol, sp.MatrixSymbol]:
    r"""The Dyson matrix :math:`M(\lambda)` and its inverse :math:`R(\lambda)` as matrix symbols (``size`` blocks)."""
    return sp.MatrixSymbol("M", size, size), sp.MatrixSymbol("R", size, size)


def resolvent_average(resolvent: sp.MatrixSymbol, i: int, j: int, weighted: bool = False) -> SpectralAverage:
    r""":math:`\mathbb E_\lambda[R_{ij}]`, or :math:`\mathbb E_\lambda[\lambda R_{ij}]` if ``weighted``.

    Blocks are numbered from 1.
    """
    return SpectralAverage((S.lam if weighted else 1) * resolvent[i - 1, j - 1], MARCHENKO_PASTUR, S.lam)


@dataclass(frozen=True)
class DysonFixedPoint:
    r"""The Dyson equations of a pencil as parts of a :class:`~.fixed_point.FixedPointSystem`.

    ``unknowns`` maps each :math:`t_{ij}` to its block :math:`(i, j)`; ``residuals`` are
    :math:`t_{ij} - \tau_{ij}/c`; ``averages`` hold :math:`\tau_{ij} = \mathbb E_\lambda[R_{ij}]` for
    the unknowns and :math:`\tau_{11}`; ``definitions`` define :math:`M(\lambda)` and
    :math:`R = M^{-1}` (the matrix symbol ``resolvent``).
    """

    unknowns: dict
    residuals: dict
    averages: dict
    definitions: dict
    resolvent: sp.MatrixSymbol


def dyson_fixed_point(pencil: Pencil) -> DysonFixedPoint:
    """The residuals, averages and definitions of the Dyson equations of ``pencil`` (see the module docstring)."""
    dyson, resolvent = dyson_symbols(pencil.size)
    unknowns = pencil.unknown_blocks()
    averages = {}
    for i, j in [*unknowns.values(), (1, 1)]:
        averages.setdefault(S.tau_symbol(i, j), resolvent_average(resolvent, i, j))
    return DysonFixedPoint(unknowns, {t: t - S.tau_symbol(i, j) / S.c for t, (i, j) in unknowns.items()}, averages,
                           {dyson: pencil.dyson_matrix(), resolvent: sp.Inverse(dyson)}, resolvent)

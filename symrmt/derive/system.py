r"""Assemble the derivation of :math:`E_\mathrm{attn}` and :math:`E_\mathrm{lin}`.

A :class:`Derivation` holds, as SymPy objects,

* the Dyson matrix :math:`M(\lambda)` and resolvent :math:`R(\lambda) = M^{-1}`
  of the noise pencil (:mod:`.pencil`),
* the fixed-point equations :math:`t_{ij} = \tau_{ij}/c` for the unknown
  normalized traces,
* the spectral averages :math:`\tau_{ij} = \mathbb E_\lambda[R_{ij}]`,
  :math:`\tau^A_{ij} = \mathbb E_\lambda[\lambda R_{ij}]` that are needed, as
  integrands in :math:`\lambda`,
* the Woodbury correction (:mod:`.woodbury`) giving
  :math:`\Phi(\gamma) = y^\top Q y / n`,

and the error is :math:`E(\gamma) = -\gamma^2\, \mathrm d\Phi/\mathrm d\gamma`
(total derivative, the unknowns moving with :math:`\gamma`). The numeric solver
evaluates exactly these objects; :mod:`.latex` prints them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from . import symbols as S
from .gaussian_equivalent import data_low_rank, score_low_rank
from .pencil import Pencil, ridge_pencil
from .woodbury import PlacedTerm, WoodburyCorrection, woodbury_correction

__all__ = ["Derivation", "derive_attention", "derive_linear"]


@dataclass(frozen=True, eq=False)  # hashed by identity: cached builds are reused
class Derivation:
    r"""Everything needed to evaluate :math:`y^\top Q(\gamma) y / n` and its error, symbolically."""

    name: str
    pencil: Pencil
    dyson: sp.Matrix                                  # M(lambda)
    resolvent: sp.Matrix                              # R(lambda) = M^{-1}
    unknowns: tuple[sp.Symbol, ...]                   # t_ij
    fixed_point: dict[sp.Symbol, sp.Expr]             # t_ij = tau_ij / c
    integrands: dict[sp.Symbol, sp.Expr]              # tau symbol -> integrand in lambda
    woodbury: WoodburyCorrection
    parameters: tuple[sp.Symbol, ...] = field(default=S.PARAMETERS)

    @property
    def taus(self) -> tuple[sp.Symbol, ...]:
        """The spectral averages, fixed-point ones first, in a stable order."""
        return tuple(self.integrands)

    def tau_of_unknown(self, t: sp.Symbol) -> sp.Symbol:
        """The :math:`\\tau` whose :math:`1/c` multiple the unknown ``t`` equals."""
        return S.tau_symbol(int(t.name[2]), int(t.name[3]))

    def resolvent_derivative(self, variable: sp.Symbol) -> sp.Matrix:
        r""":math:`\partial R / \partial x = -R\, (\partial M/\partial x)\, R` for one variable."""
        return -self.resolvent * self.dyson.diff(variable) * self.resolvent

    def subs(self, mapping: dict) -> "Derivation":
        """The same derivation with symbols replaced (a special case, or f's Hermite data)."""
        sub = lambda e: e.subs(mapping)  # noqa: E731
        return Derivation(
            self.name, self.pencil, self.dyson.applyfunc(sub), self.resolvent.applyfunc(sub),
            self.unknowns, {t: sub(v) for t, v in self.fixed_point.items()},
            {k: sub(v) for k, v in self.integrands.items()},
            WoodburyCorrection(self.woodbury.vectors, self.woodbury.core.applyfunc(sub),
                               self.woodbury.gram.applyfunc(sub), self.woodbury.source.applyfunc(sub)),
            self.parameters,
        )


def _integrands(resolvent: sp.Matrix, unknowns, woodbury: WoodburyCorrection) -> dict[sp.Symbol, sp.Expr]:
    needed = [S.tau_symbol(int(t.name[2]), int(t.name[3])) for t in unknowns]
    for tau in sorted(woodbury.taus() | {S.tau_symbol(1, 1)}, key=lambda s: s.name):
        if tau not in needed:
            needed.append(tau)
    out = {}
    for tau in needed:
        i, j = int(tau.name[-2]), int(tau.name[-1])
        weight = S.lam if tau.name.startswith("tauA") else 1
        out[tau] = weight * resolvent[i - 1, j - 1]
    return out


def _assemble(name: str, pencil: Pencil, terms: list[PlacedTerm]) -> Derivation:
    dyson = pencil.dyson_matrix()
    resolvent = pencil.resolvent()
    unknowns = pencil.unknowns()
    woodbury = woodbury_correction(terms)
    fixed_point = pencil.fixed_point_equations(S.tau_symbol)
    return Derivation(name, pencil, dyson, resolvent, unknowns, fixed_point,
                      _integrands(resolvent, unknowns, woodbury), woodbury)


@lru_cache(maxsize=None)
def derive_attention() -> Derivation:
    r"""The attention system for general :math:`(a_1, b, d)` and geometry. Built once, cached.

    Noise pencil: :math:`K_N = a_1\lambda + (d - a_1) + b\,W/\sqrt p`, :math:`C = c\lambda`.
    Low rank: :math:`L = (a_1/p)\,\Delta` in blocks (2, 1) and (1, 2), :math:`P/n` in block (3, 3).
    """
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    delta, data = score_low_rank(), data_low_rank()
    delta_t = type(delta)(delta.right, delta.left, delta.core.T)
    n_scale = S.a1 / S.c                                   # n * a_1 / p
    terms = [PlacedTerm(2, 1, delta, n_scale), PlacedTerm(1, 2, delta_t, n_scale),
             PlacedTerm(3, 3, data, sp.Integer(1))]
    return _assemble("attention", pencil, terms)


@lru_cache(maxsize=None)
def derive_linear() -> Derivation:
    r"""Linear ridge regression: the same pencil with :math:`K = I` (no Wigner part, no :math:`L`)."""
    pencil = ridge_pencil(sp.Integer(1), sp.Integer(0), S.c * S.lam)
    return _assemble("linear", pencil, [PlacedTerm(3, 3, data_low_rank(), sp.Integer(1))])

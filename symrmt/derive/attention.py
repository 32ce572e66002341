r"""The ridge-regression fixed-point systems: nonlinear attention (any rank of weights) and linear regression.

Both are the same construction (docs/theory.md): the pencil

.. math::

    H = \begin{pmatrix} \gamma I & K^\top & 0 \\ K & 0 & I \\ 0 & I & C \end{pmatrix},
    \qquad (H^{-1})_{11} = Q(\gamma) = (\gamma + K^\top C K)^{-1},

split into a noise part, whose Dyson equation closes on the normalized block
traces :math:`t_{ij}` (:mod:`.pencil`), and a low-rank part, added back by the
Woodbury identity (:mod:`.woodbury`) with every quadratic form reduced to the
spectral averages :math:`\tau_{ij} = \mathbb E_\lambda[R_{ij}]` and
:math:`\tau^A_{ij} = \mathbb E_\lambda[\lambda R_{ij}]`. The result is a
:class:`~.fixed_point.FixedPointSystem` with

* residuals :math:`t_{ij} - \tau_{ij}/c`,
* :math:`\Phi(\gamma) = y^\top Q y / n = \tau_{11} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g`,
* :math:`E(\gamma) = -\gamma^2\, \mathrm d\Phi/\mathrm d\gamma`.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import symbols as S
from .fixed_point import Admissible, Continuation, FixedPointSystem, SpectralAverage, SpectralLaw, derivative_of
from .gaussian_equivalent import data_low_rank, score_low_rank
from .pencil import Pencil, ridge_pencil
from .woodbury import PlacedTerm, WoodburyCorrection, woodbury_correction

__all__ = ["attention_system", "linear_system", "ridge_system", "PHI", "ERROR", "MARCHENKO_PASTUR",
           "START_FACTOR", "DYSON", "RESOLVENT"]

#: The observables: Phi = y^T Q y / n and the interpolation error E.
PHI = sp.Symbol("Phi")
ERROR = sp.Symbol("E")
#: The spectral law of A = Z^T Z / p.
MARCHENKO_PASTUR = SpectralLaw("marchenko_pastur", {"c": S.c})
#: Continuation starts at this multiple of a crude bound on the scale of K^T C K (see _start).
START_FACTOR = 10

_POSITIVE = sp.Interval.open(0, sp.oo)
_NONNEGATIVE = sp.Interval(0, sp.oo)

GLOSSARY = {
    S.c: r"c = p/n",
    S.gamma: r"\gamma > 0 \text{ the ridge parameter}",
    S.a1: r"a_1 = \mathbb{E}[\xi f(\xi)],\ \xi \sim \mathcal{N}(0, 1)",
    S.b: r"b^2 = \nu - a_1^2,\ \nu = \mathbb{E}[f(\xi)^2]",
    S.d: r"d = K_{ii} \text{ the diagonal of the attention matrix}",
    S.theta: r"\theta = \|\mu\|^2",
    S.lam: r"\lambda \text{ an eigenvalue of } A = Z^\top Z/p",
    S.trace_symbol(1, 1): r"t_{ij} = \operatorname{tr} R_{ij}/p \text{ the normalized traces of the blocks of the resolvent}",
    S.tau_symbol(1, 1): r"\tau_{ij} = \mathbb{E}_\lambda[R_{ij}],\ \tau^A_{ij} = \mathbb{E}_\lambda[\lambda R_{ij}] "
                        r"\text{ the spectral averages}",
}


def _domain(symbol: sp.Symbol) -> sp.Set:
    if symbol in (S.c, S.gamma):
        return _POSITIVE
    if symbol.is_nonnegative:
        return _NONNEGATIVE
    return sp.S.Reals


#: The Dyson matrix M(lambda) of the noise pencil and its inverse R(lambda), as matrix symbols (3 x 3 blocks).
DYSON = sp.MatrixSymbol("M", 3, 3)
RESOLVENT = sp.MatrixSymbol("R", 3, 3)


def _averages(unknowns: dict, woodbury: WoodburyCorrection) -> dict[sp.Symbol, SpectralAverage]:
    """The averages the residuals and the observables use: tau_ij = E[R_ij], tauA_ij = E[lambda R_ij]."""
    resolvent = RESOLVENT
    needed = {S.tau_symbol(i, j): (i, j, False) for i, j in unknowns.values()}
    needed.setdefault(S.tau_symbol(1, 1), (1, 1, False))
    for (i, j, weighted) in woodbury.averages():
        needed.setdefault(S.tau_symbol(i, j, weighted), (i, j, weighted))
    return {tau: SpectralAverage((S.lam if weighted else 1) * resolvent[i - 1, j - 1], MARCHENKO_PASTUR, S.lam)
            for tau, (i, j, weighted) in needed.items()}


def _start(kernel_scale: sp.Expr) -> sp.Expr:
    r"""A :math:`\gamma` far above the spectrum of :math:`K^\top C K`, where :math:`t = 0` is in Newton's basin.

    ``kernel_scale`` bounds the squared entries' scale of :math:`K` (e.g. :math:`1 + a_1^2 + b^2 + d^2`);
    :math:`(1 + c)(1 + 1/c)` bounds the Marchenko--Pastur edge of :math:`cA` and its moments.
    """
    return START_FACTOR * (1 + S.c) * (1 + 1 / S.c) * kernel_scale


def ridge_system(name: str, pencil: Pencil, terms: list[PlacedTerm], parameters: tuple[sp.Symbol, ...],
                 kernel_scale: sp.Expr, glossary: dict | None = None, error_name: str = "E") -> FixedPointSystem:
    r"""The fixed-point system of :math:`\Phi = y^\top Q y/n` and :math:`E` for a ridge pencil and low-rank terms."""
    unknowns = pencil.unknown_blocks()
    woodbury = woodbury_correction(terms)
    averages = _averages(unknowns, woodbury)
    residuals = {t: t - S.tau_symbol(i, j) / S.c for t, (i, j) in unknowns.items()}
    t11 = S.trace_symbol(1, 1)
    branch = (sp.StrictGreaterThan(S.c * t11, 0), sp.LessThan(S.gamma * S.c * t11, 1)) if t11 in unknowns else ()
    return FixedPointSystem(
        name=name,
        parameters={p: _domain(p) for p in parameters},
        unknowns=tuple(unknowns),
        residuals=residuals,
        averages=averages,
        observables={PHI: woodbury.form(S.tau_symbol(1, 1)), ERROR: -S.gamma**2 * derivative_of(PHI, S.gamma)},
        continuation=Continuation(S.gamma, _start(kernel_scale), {t: 0 for t in unknowns}),
        branch=branch,
        admissible={PHI: Admissible(0, 1 / S.gamma, "relative"), ERROR: Admissible(0, 1, "absolute")},
        glossary={**GLOSSARY, **(glossary or {})},
        definitions={DYSON: pencil.dyson_matrix(), RESOLVENT: sp.Inverse(DYSON)},
        display={ERROR: error_name},
    )


def _vector_tex(v: str) -> str:
    if v == "mu":
        return r"\mu"
    return f"w_{v[1]}" + (f"^{{({v[2:]})}}" if v[2:] else "")


def _geometry_glossary(rank: int) -> dict:
    """Each Gram entry defined as the inner product it stands for (theta = |mu|^2, alpha_K = mu^T w_K, ...)."""
    vectors = S.geometry_vectors(rank)
    out = {}
    for i, u in enumerate(vectors):
        for v in vectors[i:]:
            symbol = S.gram_symbol(u, v)
            if symbol not in out:
                product = (r"\|" + _vector_tex(u) + r"\|^2") if u == v else \
                    ("{" + _vector_tex(u) + r"}^\top " + _vector_tex(v))
                out[symbol] = sp.latex(symbol) + " = " + product
    return out


@lru_cache(maxsize=None)
def attention_system(rank: int = 1) -> FixedPointSystem:
    r"""Nonlinear attention with :math:`W_K^\top W_Q = I + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}`. Built once per rank.

    Noise pencil: :math:`K_N = a_1\lambda + (d - a_1) + b\,W/\sqrt p`, :math:`C = c\lambda`.
    Low rank: :math:`L = (a_1/p)\,\Delta` in blocks (2, 1) and (1, 2), :math:`P/n` in block (3, 3),
    with :math:`\Delta` and :math:`P` from the word expansion (:mod:`.gaussian_equivalent`).

    Examples
    --------
    >>> system = attention_system()
    >>> [t.name for t in system.unknowns]
    ['t_11', 't_12', 't_22']
    >>> system.residuals[system.unknowns[0]]
    t_11 - tau_11/c
    """
    if not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank = {rank!r}: need an integer >= 1")
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    delta, data = score_low_rank(rank), data_low_rank(rank)
    n_scale = S.a1 / S.c                                   # n * a_1 / p
    terms = [PlacedTerm(2, 1, delta, n_scale), PlacedTerm(1, 2, delta.transpose(), n_scale),
             PlacedTerm(3, 3, data, sp.Integer(1))]
    parameters = (*S.MODEL_PARAMETERS, *S.gram_symbols(rank))
    return ridge_system("attention" if rank == 1 else f"attention, rank {rank}", pencil, terms, parameters,
                        1 + S.a1**2 + S.b**2 + S.d**2, _geometry_glossary(rank), r"E_\mathrm{attn}")



@lru_cache(maxsize=None)
def linear_system() -> FixedPointSystem:
    r"""Linear ridge regression: the same pencil with :math:`K = I` (no Wigner part, no :math:`L`).

    Only :math:`\theta = \|\mu\|^2` of the geometry enters.
    """
    pencil = ridge_pencil(sp.Integer(1), sp.Integer(0), S.c * S.lam)
    return ridge_system("linear", pencil, [PlacedTerm(3, 3, data_low_rank(), sp.Integer(1))],
                        (S.c, S.gamma, S.theta), sp.Integer(1), error_name=r"E_\mathrm{lin}")

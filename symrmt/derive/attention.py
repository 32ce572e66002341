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
:class:`~.fixed_point.FixedPointSystem` (the Dyson part from
:mod:`.dyson`) with

* residuals :math:`t_{ij} - \tau_{ij}/c`,
* :math:`\Phi(\gamma) = y^\top Q y / n = \tau_{11} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g`,
* :math:`E(\gamma) = -\gamma^2\, \mathrm d\Phi/\mathrm d\gamma`.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import symbols as S
from .algebraic import in_form
from .components import Admissible, Continuation, derivative_of
from .dyson import (GLOSSARY, KERNEL_SCALE, START_FACTOR, dyson_fixed_point, dyson_symbols, noise_pencil,
                    resolvent_average, ridge_scale)
from .fixed_point import FixedPointSystem
from .gaussian_equivalent import data_low_rank, score_low_rank
from .pencil import Pencil, ridge_pencil
from .statement import ridge_statement
from .woodbury import PlacedTerm, woodbury_correction

__all__ = ["attention_system", "linear_system", "ridge_system", "PHI", "ERROR", "DYSON", "RESOLVENT"]

#: The observables: Phi = y^T Q y / n and the interpolation error E (symbols of :mod:`.symbols`).
PHI, ERROR = S.PHI, S.ERROR
#: The Dyson matrix M(lambda) of the ridge pencil and its inverse R(lambda), as matrix symbols (3 x 3 blocks).
DYSON, RESOLVENT = dyson_symbols(3)

def ridge_system(name: str, pencil: Pencil, terms: list[PlacedTerm], parameters: tuple[sp.Symbol, ...],
                 spectrum_scale: sp.Expr, glossary: dict | None = None, error_name: str = "E",
                 statement: tuple = ()) -> FixedPointSystem:
    r"""The fixed-point system of :math:`\Phi = y^\top Q y/n` and :math:`E` for a ridge pencil and low-rank terms.

    :math:`Q = (\gamma + G)^{-1}` is the top-left block of the pencil's inverse, for a PSD Gram matrix
    :math:`G` (:math:`K^\top C K` for attention, :math:`K^\top K` for kernel ridge); ``spectrum_scale``
    bounds its spectrum (e.g. :func:`~.dyson.ridge_scale` for :math:`K^\top C K`). Continuation in
    :math:`\gamma` starts :data:`~.dyson.START_FACTOR` times above it, where :math:`t = 0` is in Newton's basin.
    """
    dyson = dyson_fixed_point(pencil)
    woodbury = woodbury_correction(terms)
    averages = dict(dyson.averages)
    for (i, j, weighted) in woodbury.averages():
        averages.setdefault(S.tau_symbol(i, j, weighted), resolvent_average(dyson.resolvent, i, j, weighted))
    t11 = S.trace_symbol(1, 1)
    branch = (sp.StrictGreaterThan(S.c * t11, 0), sp.LessThan(S.gamma * S.c * t11, 1)) if t11 in dyson.unknowns else ()
    return FixedPointSystem(
        name=name,
        parameters={p: S.domain(p) for p in parameters},
        unknowns=tuple(dyson.unknowns),
        residuals=dyson.residuals,
        averages=averages,
        observables={PHI: woodbury.form(S.tau_symbol(1, 1)), ERROR: -S.gamma**2 * derivative_of(PHI, S.gamma)},
        continuation=Continuation(S.gamma, START_FACTOR * spectrum_scale, {t: 0 for t in dyson.unknowns}),
        branch=branch,
        admissible={PHI: Admissible(0, 1 / S.gamma, "relative"), ERROR: Admissible(0, 1, "absolute")},
        glossary={**GLOSSARY, **(glossary or {})},
        definitions=dyson.definitions,
        display={ERROR: error_name},
        statement=statement,
    )


def _geometry_glossary(rank: int) -> dict:
    """Each Gram entry defined as the inner product it stands for (theta = |mu|^2, alpha_K = mu^T w_K, ...)."""
    vectors = S.geometry_vectors(rank)
    out = {}
    for i, u in enumerate(vectors):
        for v in vectors[i:]:
            symbol = S.gram_symbol(u, v)
            if symbol not in out:
                product = (r"\|" + S.vector_latex(u) + r"\|^2") if u == v else \
                    ("{" + S.vector_latex(u) + r"}^\top " + S.vector_latex(v))
                out[symbol] = sp.latex(symbol) + " = " + product
    weights = r"w_K w_Q^\top" if rank == 1 else r"\sum_{h=1}^{" + str(rank) + r"} w_K^{(h)} w_Q^{(h)\top}"
    out[S.theta] += r",\ \mu \text{ the signal},\ W_K^\top W_Q = I_p + " + weights + r" \text{ the weights}"
    return out


def attention_system(rank: int = 1, form: str = "quadrature") -> FixedPointSystem:
    r"""Nonlinear attention with :math:`W_K^\top W_Q = I + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}`. Built once per rank.

    ``form="algebraic"``: the same system with its spectral averages in closed form
    (:func:`~.algebraic.algebraic_form`; valid for :math:`a_1 \ne 0`).

    Noise pencil: :math:`K_N = a_1\lambda + (d - a_1) + b\,W/\sqrt p`, :math:`C = c\lambda`.
    Low rank: :math:`L = (a_1/p)\,\Delta` in blocks (2, 1) and (1, 2), :math:`P/n` in block (3, 3),
    with :math:`\Delta` and :math:`P` from the word expansion (:mod:`.gaussian_equivalent`).

    Parameters
    ----------
    rank : int
        The rank :math:`r \ge 1` of the attention weights.
    form : {"quadrature", "algebraic"}
        The spectral averages as integrals over :math:`\lambda` (default) or in closed form.

    Returns
    -------
    FixedPointSystem
        The unknowns, equations, observables (:math:`E_\mathrm{attn}`, :math:`\Phi`) and solver data, as SymPy objects.

    Raises
    ------
    ValueError
        A rank below 1 or an unknown form.

    See Also
    --------
    linear_system : The baseline.
    symrmt.codegen.compile_system : Its numeric functions.
    symrmt.latex : The system as LaTeX.

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
    return _attention_system(rank, form)


@lru_cache(maxsize=None)
def _attention_system(rank: int, form: str) -> FixedPointSystem:
    if form != "quadrature":
        return in_form(_attention_system(rank, "quadrature"), form)
    pencil = noise_pencil()
    delta, data = score_low_rank(rank), data_low_rank(rank)
    n_scale = S.a1 / S.c                                   # n * a_1 / p
    terms = [PlacedTerm(2, 1, delta, n_scale), PlacedTerm(1, 2, delta.transpose(), n_scale),
             PlacedTerm(3, 3, data, sp.Integer(1))]
    parameters = (*S.MODEL_PARAMETERS, *S.gram_symbols(rank))
    return ridge_system("attention" if rank == 1 else f"attention, rank {rank}", pencil, terms, parameters,
                        ridge_scale(KERNEL_SCALE), _geometry_glossary(rank), r"E_\mathrm{attn}",
                        ridge_statement(r"\frac{K^\top X^\top X K}{n}", rank))


def linear_system(form: str = "quadrature") -> FixedPointSystem:
    r"""Linear ridge regression: the same pencil with :math:`K = I` (no Wigner part, no :math:`L`).

    Only :math:`\theta = \|\mu\|^2` of the geometry enters. ``form="algebraic"``: averages in closed form.

    Parameters
    ----------
    form : {"quadrature", "algebraic"}
        The spectral averages as integrals over :math:`\lambda` (default) or in closed form.

    Returns
    -------
    FixedPointSystem
        The unknowns, equations and observables (:math:`E_\mathrm{lin}`) as SymPy objects.

    Raises
    ------
    ValueError
        An unknown form.

    See Also
    --------
    attention_system : Nonlinear attention on the same data.

    Examples
    --------
    >>> from symrmt.derive import linear_system
    >>> system = linear_system()
    >>> system.name, system.unknowns, sorted(str(p) for p in system.parameters)
    ('linear', (), ['c', 'gamma', 'theta'])
    """
    return _linear_system(form)


@lru_cache(maxsize=None)
def _linear_system(form: str) -> FixedPointSystem:
    if form != "quadrature":
        return in_form(_linear_system("quadrature"), form)
    pencil = ridge_pencil(sp.Integer(1), sp.Integer(0), S.c * S.lam)
    return ridge_system("linear", pencil, [PlacedTerm(3, 3, data_low_rank(), sp.Integer(1))],
                        (S.c, S.gamma, S.theta), ridge_scale(sp.Integer(1)), error_name=r"E_\mathrm{lin}",
                        statement=ridge_statement(r"\frac{X^\top X}{n}"))

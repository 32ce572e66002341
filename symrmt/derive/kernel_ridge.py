r"""Kernel ridge regression on the attention matrix alone: the second model, built from the same parts.

Each label :math:`y_j` is regressed on the column j of :math:`K` itself (no token features
:math:`X`): :math:`y \approx K^\top w`, with the ridge estimate

.. math::

    w = \operatorname*{arg\,min}_w \|y - K^\top w\|^2 + \gamma \|w\|^2 = (K K^\top + \gamma I_n)^{-1} K y,

and the in-sample error, by the push-through identity,

.. math::

    E_\mathrm{kernel}(\gamma) = \frac1n \|y - K^\top w\|^2 = \frac{\gamma^2}{n}\, y^\top Q_K(\gamma)^2\, y,
    \qquad Q_K(\gamma) = (K^\top K + \gamma I_n)^{-1}.

Normalization: :math:`K` has entries :math:`f(S_{ij})/\sqrt p`, so its spectrum is of order one and
:math:`K^\top K` needs no further factor (:math:`1/n` would shrink it to 0). The eigenvalues of
:math:`\gamma Q_K` lie in :math:`(0, 1]`, so :math:`E_\mathrm{kernel} \in [0, 1]`, increasing in
:math:`\gamma`, and :math:`E_\mathrm{kernel} \to \|y\|^2/n = 1` as :math:`\gamma \to \infty`.

Derivation (docs/architecture.md walks through it; every step is a module of this package):

1. Gaussian equivalent (:mod:`.gaussian_equivalent`): :math:`K \simeq K_N + L` with the same
   noise kernel :math:`K_N = a_1 A + (d - a_1) I + b\,W/\sqrt p` (:data:`~.dyson.NOISE_KERNEL`) and the
   same low rank :math:`L = (a_1/p)\,\Delta` (:func:`~.gaussian_equivalent.score_low_rank`).
2. Pencil (:class:`~.pencil.Pencil`): two blocks,

   .. math::

       H = \begin{pmatrix} \gamma I & K^\top \\ K & -I \end{pmatrix}, \qquad
       (H^{-1})_{11} = (\gamma + K^\top K)^{-1} = Q_K(\gamma),

   the Schur complement of the :math:`-I` block. The attention pencil has a third block for
   :math:`C = X^\top X/n`; here :math:`C = I` and the pencil is smaller.
3. Dyson equations of the noise pencil (:func:`~.dyson.dyson_fixed_point`): the Wigner part sits in
   the off-diagonal blocks, so with :math:`k(\lambda) = a_1\lambda + d - a_1`

   .. math::

       M(\lambda) = \begin{pmatrix} \gamma - b^2 t_{22} & k(\lambda) - b^2 t_{12} \\
       k(\lambda) - b^2 t_{12} & -1 - b^2 t_{11} \end{pmatrix}, \qquad
       t_{ij} = \frac1c\,\mathbb E_\lambda[R_{ij}(\lambda)].

4. Woodbury (:mod:`.woodbury`): :math:`L` in block (2, 1) and :math:`L^\top` in block (1, 2), as in
   attention, without the data term of block (3, 3):
   :math:`\Phi = y^\top Q_K y/n \simeq \tau_{11} - g^\top \mathsf C (I + \mathsf G \mathsf C)^{-1} g`,
   and :math:`E_\mathrm{kernel} = -\gamma^2\,\mathrm d\Phi/\mathrm d\gamma`
   (:func:`~.attention.ridge_system`).

Special cases: :math:`b = 0` and no signal give
:math:`\Phi = \mathbb E_\lambda[(\gamma + k(\lambda)^2)^{-1}]`; :math:`a_1 = d = 0` gives
:math:`K = b\,W/\sqrt p`, whose :math:`K^\top K` has the law of :math:`x^2` for :math:`x` semicircular of
variance :math:`b^2/c`, whatever the signal.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import symbols as S
from .algebraic import in_form
from .statement import ridge_statement
from .attention import _geometry_glossary, ridge_system
from .dyson import NOISE_KERNEL
from .fixed_point import FixedPointSystem
from .gaussian_equivalent import score_low_rank
from .pencil import Pencil
from .woodbury import PlacedTerm

__all__ = ["kernel_ridge_pencil", "kernel_ridge_system", "KERNEL_NORM"]

#: A bound on the operator norm of K: |a_1| times the Marchenko--Pastur edge (1 + 1/sqrt c)^2 of A,
#: plus the diagonal shift |d - a_1| and the semicircle edge 2 b / sqrt c of b W / sqrt p.
KERNEL_NORM = sp.Abs(S.a1) * (1 + 1 / sp.sqrt(S.c)) ** 2 + sp.Abs(S.d - S.a1) + 2 * S.b / sp.sqrt(S.c)


def kernel_ridge_pencil(kernel: sp.Expr = NOISE_KERNEL, kernel_wigner: sp.Expr = S.b) -> Pencil:
    r"""The two-block pencil of :math:`Q_K = (\gamma + K^\top K)^{-1}` for :math:`K = k(\lambda) + \omega W/\sqrt p`.

    Examples
    --------
    >>> sp.simplify(kernel_ridge_pencil(S.lam, 0).resolvent()[0, 0])
    1/(gamma + lambda**2)
    """
    deterministic = sp.Matrix([[S.gamma, kernel], [kernel, -1]])
    wigner = sp.Matrix([[0, kernel_wigner], [kernel_wigner, 0]])
    return Pencil(deterministic, wigner)


def kernel_ridge_system(rank: int = 1, form: str = "quadrature") -> FixedPointSystem:
    r"""Kernel ridge regression :math:`y \approx K^\top w` on the attention matrix (weights of rank ``rank``).

    Parameters: ``c, gamma, a_1, b, d`` and the Gram entries of rank ``rank``, as for attention.
    ``form="algebraic"``: the same system with its spectral averages in closed form
    (:func:`~.algebraic.algebraic_form`; :math:`M(\lambda)` is linear in :math:`\lambda` through
    :math:`k(\lambda)`, and :math:`M_1` is invertible when :math:`a_1 \ne 0`).
    Continuation starts :data:`~.dyson.START_FACTOR` times above :math:`1 + \|K\|^2`
    (:data:`KERNEL_NORM`), where :math:`t = 0` is in Newton's basin.

    Parameters
    ----------
    rank : int
        The rank :math:`r \ge 1` of the attention weights.
    form : {"quadrature", "algebraic"}
        The spectral averages as integrals over :math:`\lambda` (default) or in closed form.

    Returns
    -------
    FixedPointSystem
        The unknowns, equations and observables (:math:`E_\mathrm{kernel}`) as SymPy objects.

    Raises
    ------
    ValueError
        A rank below 1 or an unknown form.

    See Also
    --------
    symrmt.kernel_ridge_error : Solves it.
    attention_system : The ridge on :math:`XK`.

    Examples
    --------
    >>> system = kernel_ridge_system()
    >>> [t.name for t in system.unknowns]
    ['t_11', 't_12', 't_22']
    >>> system.definitions[sp.MatrixSymbol("M", 2, 2)][1, 1]
    -b**2*t_11 - 1
    """
    if not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank = {rank!r}: need an integer >= 1")
    return _kernel_ridge_system(rank, form)


@lru_cache(maxsize=None)
def _kernel_ridge_system(rank: int, form: str) -> FixedPointSystem:
    if form != "quadrature":
        return in_form(_kernel_ridge_system(rank, "quadrature"), form)
    delta = score_low_rank(rank)
    n_scale = S.a1 / S.c                                   # n * a_1 / p, as in attention
    terms = [PlacedTerm(2, 1, delta, n_scale), PlacedTerm(1, 2, delta.transpose(), n_scale)]
    parameters = (*S.MODEL_PARAMETERS, *S.gram_symbols(rank))
    name = "kernel ridge" if rank == 1 else f"kernel ridge, rank {rank}"
    return ridge_system(name, kernel_ridge_pencil(), terms, parameters, 1 + KERNEL_NORM**2,
                        _geometry_glossary(rank), r"E_\mathrm{kernel}", ridge_statement(r"K^\top K", rank))

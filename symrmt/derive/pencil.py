r"""Linear pencil, covariance map and Dyson equations of the noise part.

The ridge resolvent is the top-left block of the inverse of a pencil with no
inverses in it (docs/theory.md, "The pencil"): with :math:`C = X^\top X / n`,

.. math::

    H = \begin{pmatrix} \gamma I & K^\top & 0 \\ K & 0 & I \\ 0 & I & C \end{pmatrix},
    \qquad (H^{-1})_{11} = (\gamma + K^\top C K)^{-1} = Q(\gamma).

For the noise part, :math:`K_N = a_1 A + \kappa I + b W/\sqrt p` and
:math:`C = cA`. Conditioned on :math:`A` (diagonalized, eigenvalue
:math:`\lambda`), the Wigner matrix enters as :math:`\mathcal W = \Omega
\otimes W/\sqrt p` with a constant block pattern :math:`\Omega`; since
:math:`\mathbb E[(W/\sqrt p) X (W/\sqrt p)] = (\operatorname{tr} X / p) I`,
the self-energy (covariance map) is :math:`\Omega T \Omega` with
:math:`T_{ij} = t_{ij} = \operatorname{tr} R_{ij} / p`, and the Dyson equation reads

.. math::

    R(\lambda) = \bigl(H_0(\lambda) - \Omega T \Omega\bigr)^{-1},\qquad
    t_{ij} = \frac{n}{p}\,\mathbb E_\lambda[R_{ij}(\lambda)] = \frac1c\,\mathbb E_\lambda[R_{ij}(\lambda)],

with :math:`\mathbb E_\lambda` the average over the spectral law of :math:`A`.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .symbols import gamma, trace_symbol

__all__ = ["Pencil", "ridge_pencil"]


@dataclass(frozen=True)
class Pencil:
    r"""A block pencil :math:`H_0(\lambda) + \Omega \otimes W/\sqrt p` with :math:`n \times n` blocks.

    Attributes
    ----------
    deterministic : sympy.Matrix
        :math:`H_0(\lambda)`: each block is a function of :math:`A` evaluated at :math:`\lambda`.
    wigner : sympy.Matrix
        :math:`\Omega`, symmetric: the coefficient of :math:`W/\sqrt p` in each block.
    """

    deterministic: sp.Matrix
    wigner: sp.Matrix

    @property
    def size(self) -> int:
        return self.deterministic.shape[0]

    def trace_matrix(self) -> sp.Matrix:
        """:math:`T` with entries :math:`t_{ij}` (symmetric)."""
        return sp.Matrix(self.size, self.size, lambda i, j: trace_symbol(i + 1, j + 1))

    def self_energy(self) -> sp.Matrix:
        r"""The covariance map :math:`\Omega T \Omega` of the Wigner part."""
        return (self.wigner * self.trace_matrix() * self.wigner).applyfunc(sp.expand)

    def unknowns(self) -> tuple[sp.Symbol, ...]:
        """The normalized traces the self-energy depends on: the fixed-point unknowns."""
        symbols = self.self_energy().free_symbols & set(self.trace_matrix())
        return tuple(sorted(symbols, key=lambda s: s.name))

    def dyson_matrix(self) -> sp.Matrix:
        r""":math:`M(\lambda) = H_0(\lambda) - \Omega T \Omega`; its inverse is :math:`R(\lambda)`."""
        return self.deterministic - self.self_energy()

    def resolvent(self) -> sp.Matrix:
        r""":math:`R(\lambda) = M(\lambda)^{-1}`, explicitly (for checks by hand; the systems keep
        :math:`R` as the inverse of the matrix symbol :math:`M`, which :mod:`symrmt.codegen` expands)."""
        return self.dyson_matrix().inv(method="LU")

    def unknown_blocks(self) -> dict[sp.Symbol, tuple[int, int]]:
        """Each unknown with its block (i, j), i <= j, numbered from 1."""
        unknowns = set(self.unknowns())
        trace = self.trace_matrix()
        out = {}
        for i in range(self.size):
            for j in range(i, self.size):
                if trace[i, j] in unknowns:
                    out[trace[i, j]] = (i + 1, j + 1)
        return dict(sorted(out.items(), key=lambda item: item[0].name))


def ridge_pencil(kernel: sp.Expr, kernel_wigner: sp.Expr, data_gram: sp.Expr) -> Pencil:
    r"""The pencil of :math:`Q = (\gamma + K^\top C K)^{-1}` for :math:`K = k(\lambda) + \omega W/\sqrt p`, :math:`C = C(\lambda)`.

    Parameters
    ----------
    kernel : the deterministic part of :math:`K` as a function of :math:`\lambda`.
    kernel_wigner : the coefficient :math:`\omega` of :math:`W/\sqrt p` in :math:`K` (0 for none).
    data_gram : :math:`C(\lambda)`.

    Examples
    --------
    >>> from symrmt.derive.symbols import c, lam
    >>> sp.simplify(ridge_pencil(sp.Integer(1), 0, c * lam).resolvent()[0, 0])
    1/(c*lambda + gamma)
    """
    deterministic = sp.Matrix([[gamma, kernel, 0], [kernel, 0, 1], [0, 1, data_gram]])
    wigner = sp.Matrix([[0, kernel_wigner, 0], [kernel_wigner, 0, 0], [0, 0, 0]])
    return Pencil(deterministic, wigner)

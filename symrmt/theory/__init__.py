r"""The public theory: deterministic equivalents bound to user arguments, solved, and read back by symbol.

.. math::

    E_\mathrm{attn}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{attn}(\gamma),
    \qquad E_\mathrm{lin}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{lin}(\gamma),

with :math:`\Phi = y^\top Q y / n` given by the derived systems of the models (:mod:`symrmt.models`), compiled by
:func:`symrmt.codegen.compile_system` and solved by :func:`symrmt.solve.solve`.

=========================  ====================================================================
module                     what it holds
=========================  ====================================================================
:mod:`.forms`              the form a system is solved in (algebraic, quadrature, auto)
:mod:`.solution`           :class:`RidgeSolution` and :func:`solve_model`, which solves any registered model
:mod:`.ridge`              attention's ridge error
:mod:`.baselines`          the baselines: linear regression, kernel ridge
:mod:`.ridgeless`          the ridgeless limit :math:`E(0^+)` and its rate
:mod:`.density`            eigenvalue densities of the attention Gram matrix and of :math:`K`
:mod:`.softmax`            softmax attention through the entrywise system
:mod:`.heads`              several heads, summed, through the rank-r system
:mod:`.latex`              the derived systems printed as LaTeX
=========================  ====================================================================

Every function is vectorized: parameters broadcast against each other.
"""
from __future__ import annotations

from ..models.binding import gram_parameters, hermite_data, kernel_parameters
from .density import SpectralDensity, spectral_density
from .heads import summed_heads_error
from .latex import MAX_DIGITS, MAX_RANK, latex
from .ridge import (RidgeSolution, attention_error, kernel_ridge_error, linear_error, ridge_solution, solve_attention,
                    solve_kernel_ridge, solve_linear, solve_model)
from .ridgeless import RidgelessLimit, ridgeless_error
from .softmax import softmax_error

__all__ = ["attention_error", "linear_error", "solve_attention", "solve_linear", "hermite_data", "ridgeless_error",
           "RidgeSolution", "RidgelessLimit", "ridge_solution", "gram_parameters", "latex", "MAX_RANK", "MAX_DIGITS",
           "kernel_parameters", "solve_kernel_ridge", "kernel_ridge_error", "spectral_density", "SpectralDensity",
           "softmax_error", "summed_heads_error", "solve_model"]

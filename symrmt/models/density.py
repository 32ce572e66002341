r"""Eigenvalue densities: of the attention Gram matrix :math:`K^\top X^\top X K/n` and of :math:`K` itself.

One model per matrix, from :func:`symrmt.derive.density.density_system`; the parameters are
:math:`c, x, \eta, a_1, b, d` (:func:`~.binding.density_parameters`). The Monte Carlo is
:func:`symrmt.simulation.simulate_spectrum`.
"""
from __future__ import annotations

from functools import partial

from .binding import density_parameters
from .model import Model, register

__all__ = ["GRAM_DENSITY", "KERNEL_DENSITY", "DENSITIES"]


def _derive(matrix: str, rank: int, form: str):
    from ..derive.density import density_system  # heavy: SymPy

    return density_system(matrix, form)


#: The density of :math:`K^\top X^\top X K/n`, the matrix whose resolvent gives the ridge error.
GRAM_DENSITY = register(Model(
    name="gram_density", summary="eigenvalue density of K^T X^T X K / n",
    derive=partial(_derive, "gram"), read=density_parameters, auto_form="algebraic",
    observables=("m", "rho"), simulator="symrmt.simulation:simulate_spectrum"))

#: The density of :math:`K` (symmetric weights only).
KERNEL_DENSITY = register(Model(
    name="kernel_density", summary="eigenvalue density of K (symmetric weights)",
    derive=partial(_derive, "kernel"), read=density_parameters, auto_form="algebraic",
    observables=("m", "rho"), simulator="symrmt.simulation:simulate_spectrum"))

#: The density model of each ``matrix`` choice of :func:`symrmt.theory.spectral_density`.
DENSITIES = {"gram": GRAM_DENSITY, "kernel": KERNEL_DENSITY}

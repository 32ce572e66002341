r"""Kernel ridge regression on the attention matrix alone: :math:`y \approx K^\top w`.

The second model built from the same parts (:func:`symrmt.derive.kernel_ridge.kernel_ridge_system`).
``form="auto"`` solves it by quadrature: its algebraic form (``form="algebraic"``) agrees with the quadrature to
about 1e-13 where it converges, but its continuation stalls at some small c and small gamma (e.g.
f = x exp(-x^2/2), c = 0.05, gamma = 1e-5). Its Monte Carlo is :func:`symrmt.simulation.simulate_kernel_ridge`.
"""
from __future__ import annotations

from .binding import kernel_parameters
from .model import Model, register

__all__ = ["KERNEL_RIDGE"]


def _derive(rank: int, form: str):
    from ..derive.kernel_ridge import kernel_ridge_system  # heavy: SymPy

    return kernel_ridge_system(rank, form)


#: Kernel ridge: :math:`E_\mathrm{kernel}(\gamma)` and :math:`\Phi`.
KERNEL_RIDGE = register(Model(
    name="kernel_ridge", summary="kernel ridge regression on K alone: y ~ K^T w",
    derive=_derive, read=kernel_parameters, takes_rank=True, auto_form="quadrature", observables=("E", "Phi"),
    simulator="symrmt.simulation:simulate_kernel_ridge"))

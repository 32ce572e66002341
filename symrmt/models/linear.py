r"""Linear (ridge) regression on :math:`X`: the baseline, the ridge pencil with :math:`K = I`.

The system is :func:`symrmt.derive.attention.linear_system` (only :math:`\theta = \|\mu\|^2` of the geometry
enters); ``form="auto"`` solves it by quadrature, which is cheap here (no continuation). Its Monte Carlo is
part of :func:`symrmt.simulation.simulate` (the result's ``linear_mean``).
"""
from __future__ import annotations

from .binding import ridge_parameters
from .model import Model, register

__all__ = ["LINEAR"]


def _derive(rank: int, form: str):
    from ..derive.attention import linear_system  # heavy: SymPy

    return linear_system(form)


#: Linear regression: :math:`E_\mathrm{lin}(\gamma)` and :math:`\Phi`.
LINEAR = register(Model(
    name="linear", summary="linear (ridge) regression on X: the baseline",
    derive=_derive, read=ridge_parameters, takes_rank=False, auto_form="quadrature", observables=("E", "Phi"),
    simulator="symrmt.simulation:simulate"))

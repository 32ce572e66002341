r"""Nonlinear attention: the ridge probe on :math:`XK` with :math:`K = f(S)/\sqrt p`, weights of any rank.

The system is :func:`symrmt.derive.attention.attention_system`; the parameters are those of every model
of :math:`K` (:func:`~.binding.kernel_parameters`); the Monte Carlo is :func:`symrmt.simulation.simulate`.
"""
from __future__ import annotations

from .binding import kernel_parameters
from .model import Model, register

__all__ = ["ATTENTION"]


def _derive(rank: int, form: str):
    from ..derive.attention import attention_system  # heavy: SymPy

    return attention_system(rank, form)


#: Attention: :math:`E_\mathrm{attn}(\gamma)` and :math:`\Phi = y^\top Q y/n`.
ATTENTION = register(Model(
    name="attention", summary="nonlinear attention: ridge on X K, K = f(S)/sqrt(p), weights I + rank r",
    derive=_derive, read=kernel_parameters, takes_rank=True, auto_form="algebraic", observables=("E", "Phi"),
    simulator="symrmt.simulation:simulate"))

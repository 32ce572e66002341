r"""The models with a numeric solver of their own: general M, its elliptic model, softmax, summed heads.

Their theory is not one derived system compiled by :mod:`symrmt.codegen`: general M is a fixed point in
normalized traces of words in M (:mod:`symrmt.general`), softmax and summed heads solve the attention system at
rescaled arguments (:mod:`symrmt.theory.softmax`, :mod:`symrmt.theory.heads`). Each gives its solve hook
(:attr:`~.model.Model.solver`, imported on first use, so that the registry stays light), which
:func:`symrmt.theory.solve_model` calls, and states in ``domains`` the ranges it checks beyond those of the
attention system (whose domains, from its derivation, the hooks check c, gamma and d against). Concatenated heads
have a Monte Carlo and no theory, and say so.
"""
from __future__ import annotations

from .model import Model, register

__all__ = ["ATTENTION_GENERAL", "ATTENTION_ELLIPTIC", "SOFTMAX", "SUMMED_HEADS", "CONCATENATED_HEADS"]

_HOOKS = "symrmt.theory.general"
_ATTENTION_DOMAINS = "c, gamma and d: the attention system's domains (symrmt.derive.symbols.domain)"

#: Scores :math:`X^\top M X/\sqrt p` for any real weight matrix M: :math:`E_\mathrm{attn}` and :math:`\Phi`.
ATTENTION_GENERAL = register(Model(
    name="attention_general", summary="nonlinear attention with any weight matrix M (scores X^T M X/sqrt(p))",
    solver=f"{_HOOKS}:solve_general", observables=("E", "Phi"), simulator="symrmt.simulation:simulate",
    domains={"c, gamma, d": _ATTENTION_DOMAINS, "c, d": "single numbers (one matrix fixes p)",
             "weights": "a real p x p matrix M or a pair (W_K, W_Q), finite", "mu": "a finite vector of length p"}))

#: The cheaper comparison model of general M: M replaced by sI + L + E (:mod:`symrmt.general.elliptic`).
ATTENTION_ELLIPTIC = register(Model(
    name="attention_elliptic", summary="general M replaced by sI + L + E: its top-k singular part kept, the rest "
                                       "elliptic", solver=f"{_HOOKS}:solve_elliptic", observables=("E",),
    domains={"c, gamma, d": _ATTENTION_DOMAINS, "rank": "an integer in 0..p"}))

#: Softmax attention at temperature tau, through the entrywise system with the exact data of exp(x/tau).
SOFTMAX = register(Model(
    name="softmax", summary="softmax attention at temperature tau, through the entrywise system",
    solver="symrmt.theory.softmax:solve_softmax", observables=("E",), simulator="symrmt.simulation:simulate",
    domains={"temperature": "tau >= symrmt.validate.MIN_TEMPERATURE",
             "gamma, temperature": "gamma tau^2 e^(-1/tau^2) <= symrmt.validate.MAX_GAMMA"}))

#: H heads summed, K = sum_h K_h: one head with the averaged weights at gamma/H^2.
SUMMED_HEADS = register(Model(
    name="summed_heads", summary="H attention heads summed, K = sum of K_h", solver="symrmt.theory.heads:solve_summed_heads",
    observables=("E",), simulator="symrmt.simulation.heads:simulate_heads",
    domains={"heads": "an integer >= 1 that divides the rank of gram"}))

#: H heads concatenated: a Monte Carlo, no theory.
CONCATENATED_HEADS = register(Model(
    name="concatenated_heads", summary="H attention heads concatenated, a probe on [X K_1; ...; X K_H]",
    simulator="symrmt.simulation.heads:simulate_heads",
    no_theory="the concatenated heads add a low-rank term between the heads that the engine does not derive "
              "(symrmt.theory.heads); simulate it with symrmt.simulation.heads.simulate_heads(combine='concat')."))

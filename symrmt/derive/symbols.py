r"""The symbols every derived expression is written in.

========================  =====================================================
symbol                    meaning
========================  =====================================================
``c``                     :math:`c = p/n`
``gamma``                 ridge parameter :math:`\gamma > 0`
``a_1``, ``b``            :math:`a_1 = \mathbb E[\xi f(\xi)]`, :math:`b = \sqrt{\nu - a_1^2}`
``d``                     diagonal of the attention matrix, :math:`K_{ii} = d`
``theta``                 :math:`\theta = \|\mu\|^2`
``alpha_K``, ``alpha_Q``  :math:`\mu^\top w_K`, :math:`\mu^\top w_Q`
``omega_KK`` ...          :math:`\|w_K\|^2`, :math:`\|w_Q\|^2`, :math:`w_K^\top w_Q`
``lambda``                an eigenvalue of :math:`A = Z^\top Z / p`
========================  =====================================================
"""
from __future__ import annotations

import sympy as sp

c = sp.Symbol("c", positive=True)
gamma = sp.Symbol("gamma", positive=True)
a1 = sp.Symbol("a_1", real=True)
b = sp.Symbol("b", nonnegative=True)
d = sp.Symbol("d", real=True)
nu = sp.Symbol("nu", nonnegative=True)
theta = sp.Symbol("theta", nonnegative=True)
alpha_K = sp.Symbol("alpha_K", real=True)
alpha_Q = sp.Symbol("alpha_Q", real=True)
omega_KK = sp.Symbol("omega_KK", nonnegative=True)
omega_QQ = sp.Symbol("omega_QQ", nonnegative=True)
omega_KQ = sp.Symbol("omega_KQ", real=True)
lam = sp.Symbol("lambda", nonnegative=True)

#: Parameters of the attention problem, in the order the generated code takes them.
PARAMETERS = (c, gamma, a1, b, d, theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ)

#: Inner products of the deterministic vectors: GRAM[(u, v)] = u^T v.
GRAM = {
    ("mu", "mu"): theta, ("mu", "wK"): alpha_K, ("mu", "wQ"): alpha_Q,
    ("wK", "wK"): omega_KK, ("wQ", "wQ"): omega_QQ, ("wK", "wQ"): omega_KQ,
}


def gram_entry(u: str, v: str) -> sp.Expr:
    """:math:`u^\\top v` for two of the deterministic vectors ``mu``, ``wK``, ``wQ``."""
    return GRAM.get((u, v), GRAM.get((v, u)))


def trace_symbol(i: int, j: int) -> sp.Symbol:
    r"""The unknown :math:`t_{ij} = \operatorname{tr} R_{ij} / p` (symmetric: ``t_ji`` is ``t_ij``)."""
    i, j = min(i, j), max(i, j)
    return sp.Symbol(f"t_{i}{j}", real=True)


def tau_symbol(i: int, j: int, weighted: bool = False) -> sp.Symbol:
    r""":math:`\tau_{ij} = \mathbb E_\lambda[R_{ij}]`, or :math:`\tau^A_{ij} = \mathbb E_\lambda[\lambda R_{ij}]` if ``weighted``."""
    i, j = min(i, j), max(i, j)
    return sp.Symbol(f"tau{'A' if weighted else ''}_{i}{j}", real=True)

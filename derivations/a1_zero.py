"""a_1 = 0 and d = 0: attention cannot use the signal (THEORY.md section 4, consequences).

Run: python derivations/a1_zero.py
Shows symbolically that the score coupling of the Woodbury core vanishes and that the
fixed point has t_12 = 0, so only the data block P/n is left, which R does not connect to
e_1 (R_13 = 0); then checks numerically that E_attn does not move with |mu| or alignment.
"""
import numpy as np
import sympy as sp

from symrmt.codegen import expand_definitions
from symrmt.derive import attention_system, symbols as S
from symrmt.derive.attention import PHI, RESOLVENT
from symrmt.geometry import Geometry
from symrmt.theory import attention_error, solve_attention

if __name__ == "__main__":
    system = attention_system().subs({S.a1: 0, S.d: 0})
    print("Woodbury core with a_1 = 0, d = 0:")
    sp.pprint(system.observables[PHI].core)
    resolvent = expand_definitions(system.definitions)[RESOLVENT[0, 2]]
    r13 = sp.simplify(resolvent.subs(S.trace_symbol(1, 2), 0))
    print("R_13 at t_12 = 0:", r13)
    f = "cos(x) - exp(-1/2)"
    gamma = np.array([0.01, 0.1, 1.0])
    print("t_12 at the solution:", solve_attention(f, 1.0, gamma).unknowns[1])
    for geometry in [Geometry(), Geometry(mu_norm=2.0), Geometry(1.5, 2.0, 1.0, 1.0, 0.5, 0.5)]:
        print(geometry.as_dict(), np.round(attention_error(f, 1.0, gamma, geometry), 10))

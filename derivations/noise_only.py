"""Noise only (THEORY.md section 3): the attention system with mu = 0, w = 0, and its values.

Run: python derivations/noise_only.py
Prints the specialized system in LaTeX (the Woodbury correction vanishes, Phi = tau_11),
then E_attn for f = tanh, d = 0 at c in {0.5, 1, 2}, gamma in {0.01, 0.1, 1} next to the
simulation values recorded in THEORY.md (n = 1600, 4 seeds).
"""
import numpy as np

from symrmt.derive import attention_system, symbols as S
from symrmt.derive.latex import system_latex
from symrmt.theory import attention_error

NOISE = {S.theta: 0, S.alpha_K: 0, S.alpha_Q: 0, S.omega_KK: 0, S.omega_QQ: 0, S.omega_KQ: 0}
RECORDED = {0.5: (0.517, 0.642, 0.777), 1.0: (0.170, 0.451, 0.737), 2.0: (0.088, 0.317, 0.699)}

if __name__ == "__main__":
    system = attention_system().subs(NOISE)
    print(system_latex(system))
    print("Phi with no signal:", system.observables[list(system.observables)[0]].expression().simplify())
    gamma = np.array([0.01, 0.1, 1.0])
    for c, recorded in RECORDED.items():
        print(f"c = {c}: theory {np.round(attention_error('tanh(x)', c, gamma), 3)}   simulation {recorded}")

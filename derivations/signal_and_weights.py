"""Signal and weights (THEORY.md section 4): the full system, and E_attn against E_lin.

Run: python derivations/signal_and_weights.py [f]
Prints the general system in LaTeX with the Hermite data of f (default erf, exact) put in,
then a table of E_attn and E_lin for noise, signal and aligned weights at c = 1.
"""
import sys

import numpy as np

from symrmt.derive import attention_system
from symrmt.derive.latex import hermite_substitution, system_latex
from symrmt.geometry import Geometry
from symrmt.nonlinearity import hermite
from symrmt.theory import attention_error, linear_error

if __name__ == "__main__":
    f = sys.argv[1] if len(sys.argv) > 1 else "erf(x)"
    h = hermite(f)
    a1 = h.exact["a1"] if h.exact["a1"] is not None else h.a1
    nu = h.exact["nu"] if h.exact["nu"] is not None else h.nu
    print(system_latex(attention_system(), hermite_substitution(a1, nu)))
    gamma = np.array([0.01, 0.1, 1.0, 10.0])
    for label, geometry in [("noise", Geometry()), ("signal |mu|=1.5", Geometry(mu_norm=1.5)),
                            ("aligned", Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0))]:
        print(f"{label:>16}: attention {np.round(attention_error(h, 1.0, gamma, geometry), 4)}"
              f"  linear {np.round(linear_error(1.0, gamma, geometry), 4)}")

"""Linear ridge regression: the same pencil with K = I (Marchenko-Pastur plus the rank-one signal).

Run: python derivations/linear_regression.py
Prints the system, the closed form of y^T Q y / n in the spectral averages, and E_lin on a grid.
"""
import numpy as np
import sympy as sp

from symrmt.derive import linear_system
from symrmt.derive.latex import system_latex
from symrmt.geometry import Geometry
from symrmt.theory import linear_error

if __name__ == "__main__":
    system = linear_system()
    print(system_latex(system))
    print("y^T Q y / n =", sp.simplify(system.observables[sp.Symbol("Phi")].expression()))
    gamma = np.array([0.01, 0.1, 1.0])
    for c in (0.5, 1.0, 2.0):
        for mu in (0.0, 1.0, 2.0):
            print(f"c = {c}, |mu| = {mu}: E_lin = {np.round(linear_error(c, gamma, Geometry(mu_norm=mu)), 4)}")

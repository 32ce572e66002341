"""An independent, high-precision solution of the attention system (rank 1), to decide between the two forms.

The system's own SymPy objects (the Dyson matrix, the Woodbury form: what both forms share) are
evaluated in mpmath at ``DIGITS`` digits, with every spectral average an adaptive tanh-sinh integral
over the Marchenko-Pastur density (split at the support's edges, the atom added) and the fixed point
solved by mpmath's Newton. No code of symrmt.codegen or symrmt.solve runs here. E is
-gamma^2 dPhi/dgamma by mpmath's finite-difference derivative at that precision. Seconds to a minute
per point: for a handful of points only.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

DIGITS = 40


def _average(integrand, c):
    """E over the law of A = Z^T Z/p (ratio 1/c): tanh-sinh over the bulk, plus the atom (1 - c)_+ at 0."""
    q = 1 / c
    lo, hi = (1 - mp.sqrt(q)) ** 2, (1 + mp.sqrt(q)) ** 2
    density = lambda x: mp.sqrt((hi - x) * (x - lo)) / (2 * mp.pi * q * x)  # noqa: E731
    bulk = mp.quad(lambda x: integrand(x) * density(x), [lo, (lo + hi) / 2, hi])
    return bulk + (1 - c) * integrand(mp.mpf(0)) if c < 1 else bulk


def reference(system, point: dict, start: dict) -> tuple:
    """``(Phi, E)`` of the quadrature form ``system`` at ``point`` (symbols -> numbers), from unknowns near ``start``."""
    from symrmt.derive import symbols as S
    from symrmt.derive.attention import DYSON, ERROR, PHI

    mp.mp.dps = DIGITS
    unknowns = list(system.unknowns)
    matrix = system.definitions[DYSON]
    entries = {a: (avg.integrand.args if avg.integrand.is_Mul else (1, avg.integrand)) for a, avg in system.averages.items()}
    woodbury = system.observables[PHI].expression()

    def averages(t, gamma):
        values = {**{k: mp.mpf(v) for k, v in point.items()}, **dict(zip(unknowns, t)), S.gamma: gamma}
        numeric = sp.lambdify(S.lam, matrix.xreplace({k: sp.Float(str(v), DIGITS) for k, v in values.items()}), "mpmath")
        c = values[S.c]
        out = {}
        for a, (weight, element) in entries.items():
            i, j = int(element.i), int(element.j)
            f = (lambda x, i=i, j=j: mp.inverse(mp.matrix(numeric(x)))[i, j])
            out[a] = _average((lambda x, f=f: x * f(x)) if weight == S.lam else f, c)
        return out, values

    def solve(gamma, guess):
        def residual(*t):
            taus, values = averages(list(t), gamma)
            return [sp.N(system.residuals[u].xreplace({**taus, **values}), DIGITS) for u in unknowns]
        return list(mp.findroot(lambda *t: [mp.mpf(str(r)) for r in residual(*t)], guess, tol=mp.mpf(10) ** (-DIGITS + 8)))

    def phi(gamma):
        t = solve(gamma, [mp.mpf(start[u]) for u in unknowns])
        taus, values = averages(t, gamma)
        return mp.mpf(str(sp.N(woodbury.xreplace({**taus, **values}), DIGITS)))

    gamma = mp.mpf(point[S.gamma])
    value = phi(gamma)
    derivative = mp.diff(phi, gamma, h=gamma * mp.mpf(10) ** (-12))
    return float(value), float(-gamma**2 * derivative)

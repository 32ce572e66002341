"""An independent solution of the attention system at 40 digits, to decide between the algebraic and quadrature forms.

Shared with both forms: the system's SymPy objects (the Dyson matrix M(lambda) = M_0 + lambda M_1, the
residuals and the Woodbury form). Independent of both: no code of symrmt.codegen or symrmt.solve runs,
and the spectral averages are neither a quadrature nor the algebraic form's coordinates: with
N = M_1^{-1} M_0 diagonalized in mpmath, E[(lambda + N)^{-1}] has the eigenvalues m(-mu_k), with m the
Marchenko-Pastur Stieltjes transform from its principal-branch formula (valid off the support; the
atom's pole included); for M_1 of rank one (a_1 = 0), Sherman-Morrison with E[lambda^k/(1 + u lambda)]
from m. The fixed point is mpmath's Newton from the quadrature form's unknowns; E = -gamma^2 dPhi/dgamma
by mpmath's finite differences at that precision. A second or so per point.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixElement

DIGITS = 40


def stieltjes(z, c):
    r""":math:`m(z) = \mathbb E[1/(\lambda - z)]` for the law of :math:`A = Z^\top Z/p` (ratio :math:`1/c`), any z off the support."""
    q = 1 / c
    lo, hi = (1 - mp.sqrt(q)) ** 2, (1 + mp.sqrt(q)) ** 2
    return (-(c * z - c + 1) + c * mp.sqrt(z - hi) * mp.sqrt(z - lo)) / (2 * z)


def _averages(m0: mp.matrix, m1: mp.matrix, c) -> tuple[mp.matrix, mp.matrix]:
    """E[R], E[lambda R] of R = (M_0 + lambda M_1)^{-1}."""
    n = m0.rows
    eye = mp.eye(n)
    if abs(mp.det(m1)) > mp.mpf(10) ** (-DIGITS // 2):
        inverse = mp.inverse(m1)
        n_matrix = inverse * m0
        values, vectors = mp.eig(n_matrix)
        transform = vectors * mp.diag([stieltjes(-mu, c) for mu in values]) * mp.inverse(vectors)
        return transform * inverse, (eye - n_matrix * transform) * inverse
    i, j = next((i, j) for i in range(n) for j in range(n) if m1[i, j] != 0)      # rank one: M_1 = u v^T
    u, v = m1[:, j], m1[i, :] / m1[i, j]
    inverse = mp.inverse(m0)
    g, h = inverse * u, v * inverse
    scale = (v * inverse * u)[0, 0]
    phi = stieltjes(-1 / scale, c) / scale if scale != 0 else mp.mpf(1)       # E[1/(1 + u lambda)]
    first = (1 - phi) / scale if scale != 0 else mp.mpf(1)                    # E[lambda/(1 + u lambda)]
    second = (1 - first) / scale if scale != 0 else 1 + 1 / c                 # E[lambda^2/(1 + u lambda)], E[lambda] = 1
    return inverse - first * g * h, inverse - second * g * h


def _real(x):
    """A real number of the ridge system (eigenvalues come in conjugate pairs; their sum is real to round-off)."""
    x = mp.mpmathify(x)
    if isinstance(x, mp.mpc):
        assert abs(x.imag) <= mp.mpf(10) ** (-DIGITS // 2) * (1 + abs(x)), x
        return x.real
    return x


def reference(system, point: dict, start: dict) -> tuple[float, float]:
    """``(Phi, E)`` of the quadrature form ``system`` at ``point`` (symbols -> numbers), from unknowns near ``start``."""
    from symrmt.derive import symbols as S
    from symrmt.derive.attention import DYSON, PHI

    mp.mp.dps = DIGITS
    unknowns = list(system.unknowns)
    matrix = system.definitions[DYSON]
    entries = {}
    for average, spectral in system.averages.items():
        element = next(iter(spectral.integrand.atoms(MatrixElement)))
        entries[average] = (int(element.i), int(element.j), spectral.integrand.has(S.lam))
    form = system.observables[PHI]
    numbers = {k: mp.mpf(v) for k, v in point.items()}

    def evaluate(t, gamma):
        values = {**numbers, **dict(zip(unknowns, t)), S.gamma: gamma}
        digits = mp.mp.dps                  # mpmath raises it inside findroot and diff
        exact = {k: sp.Float(mp.nstr(v, digits), digits) for k, v in values.items()}
        parts = [matrix.xreplace({**exact, S.lam: 0}), matrix.diff(S.lam).xreplace(exact)]
        m0, m1 = (mp.matrix([[mp.mpf(str(sp.N(e, digits))) for e in row] for row in part.tolist()]) for part in parts)
        mean, weighted = _averages(m0, m1, values[S.c])
        taus = {a: (weighted if w else mean)[i, j] for a, (i, j, w) in entries.items()}
        return {**exact, **{a: sp.Float(mp.nstr(_real(x), digits), digits) for a, x in taus.items()}}

    def solve(gamma, guess):
        if not unknowns:
            return []

        def residual(*t):
            values = evaluate(list(t), gamma)
            return [mp.mpf(str(sp.N(system.residuals[u].xreplace(values), mp.mp.dps))) for u in unknowns]
        return list(mp.findroot(residual, guess, tol=mp.mpf(10) ** (-DIGITS + 10)))

    guess = [mp.mpf(start[u]) for u in unknowns]

    def number(expr, values):
        return mp.mpf(str(sp.N(sp.sympify(expr).xreplace(values), mp.mp.dps)))

    def phi(gamma):
        values = evaluate(solve(gamma, guess), gamma)
        as_matrix = lambda m: mp.matrix([[number(e, values) for e in row] for row in m.tolist()])
        core, gram, source = as_matrix(form.core), as_matrix(form.gram), as_matrix(form.source)
        solved = mp.lu_solve(mp.eye(form.size) + gram * core, source)
        return number(form.offset, values) - (source.T * core * solved)[0, 0]

    gamma = numbers[S.gamma]
    return float(phi(gamma)), float(-gamma**2 * mp.diff(phi, gamma, h=gamma * mp.mpf(10) ** (-15)))

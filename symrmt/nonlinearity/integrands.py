"""What is integrated: the Hermite integrand of each datum (SymPy and mpmath), and the
structural degree of a polynomial f."""
from __future__ import annotations

import mpmath
import sympy as sp

from .constants import X

def hermite_integrand(expr: sp.Expr, key: str) -> sp.Expr:
    if key == "nu":
        return expr**2
    k = int(key[1:])
    return expr * sp.hermite_prob(k, X) / sp.sqrt(sp.factorial(k))


_POLY_MAX_DEGREE = 64


def degree_bound(expr: sp.Expr) -> int | None:
    """An upper bound on the degree of ``expr`` in x if it is visibly a polynomial, else None
    (computed structurally: expanding ((x+1)**64 + 1)**64 to find out would take forever)."""
    if X not in expr.free_symbols:
        return 0
    if expr == X:
        return 1
    if isinstance(expr, (sp.Add, sp.Mul)):
        parts = [degree_bound(a) for a in expr.args]
        if any(p is None for p in parts):
            return None
        return max(parts) if isinstance(expr, sp.Add) else sum(parts)
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer and expr.exp >= 0:
        base = degree_bound(expr.base)
        return None if base is None else base * int(expr.exp)
    return None



def hermite_poly_mp(k: int, t):
    h0, h1 = mpmath.mpf(1), t
    if k == 0:
        return h0
    for n in range(1, k):
        h0, h1 = h1, t * h1 - n * h0
    return h1

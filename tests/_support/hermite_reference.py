"""Reference Hermite data of docs/theory.md section 2, computed independently of symrmt.nonlinearity.

Closed forms are evaluated with mpmath; where none exists, SciPy's QUADPACK (not mpmath's
tanh-sinh, which the package uses) integrates against the Gaussian.
"""
from __future__ import annotations

import math

import mpmath
from scipy.integrate import quad


RTOL = 1e-12  # the module promises at least 12 correct digits


# SymPy runs under a wall-clock budget; other jobs on this 2-core machine can slow it
# down, so tests that require a closed form give it room (a finished integral returns
# at once, the budget is only a ceiling).
SLOW_OK = 30.0


def gauss_expect(g) -> float:
    """E g(xi), xi ~ N(0,1), by QUADPACK on [-40, 0] and [0, 40] (the tail beyond is < 1e-340)."""
    phi = lambda t: g(t) * math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    return sum(quad(phi, a, b, epsabs=0, epsrel=1e-13, limit=200)[0] for a, b in ((-40, 0), (0, 40)))


def close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= RTOL * max(abs(b), scale)


# docs/theory.md section 2: (f, a1, nu, a closed form is expected for a1 and nu)
mp = mpmath.mpf


THEORY = {
    "x": ("x", 1.0, 1.0, True),
    "sin": ("sin(x)", float(mpmath.exp(-0.5)), float((1 - mpmath.exp(-2)) / 2), True),
    "erf": ("erf(x)", float(2 / mpmath.sqrt(3 * mpmath.pi)), float(2 / mpmath.pi * mpmath.asin(mp(2) / 3)), True),
    "relu": ("Max(x, 0) - 1/sqrt(2*pi)", 0.5, float(mp(1) / 2 - 1 / (2 * mpmath.pi)), True),
    "hermite3": ("x**3 - 3*x", 0.0, 6.0, True),
    "cos": ("cos(x) - exp(-1/2)", 0.0, float((1 + mpmath.exp(-2)) / 2 - mpmath.exp(-1)), None),
    # tanh: no closed form; QUADPACK of a different integrand (Stein: E[xi tanh xi] = E[sech^2 xi])
    "tanh": (
        "tanh(x)",
        gauss_expect(lambda t: 1 / math.cosh(t) ** 2),
        gauss_expect(lambda t: math.tanh(t) ** 2),
        False,
    ),
}

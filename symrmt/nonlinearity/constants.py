"""Constants shared by the modules of :mod:`symrmt.nonlinearity`: the variable x, the
working precision, the names of the Hermite data and the size limits used by both the
parser and the evaluator.

The variable :data:`X` is a SymPy symbol, made on first use (PEP 562), so that the
NumPy-only modules (``adapter``, ``callables``, ``centering``) can read the numbers here
without importing SymPy.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy as sp

    #: The variable of every nonlinearity.
    X: sp.Symbol


def __getattr__(name: str) -> Any:
    if name == "X":
        import sympy as sp  # heavy: SymPy

        globals()["X"] = value = sp.Symbol("x", real=True)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DPS = 30  # working precision of the quadrature (decimal digits)
MAX_EXPONENT = 64  # |p| in x**p, for the parser and for the evaluator's exact powers
NU_MAX = 1e300  # E f^2 above this does not fit the float64 results
NU_MIN = 1e-40  # E f^2 below this is "f = 0" (the checks would otherwise compare round-off)
NU_SMALL = 1e-20  # E f^2 below this is refused as too small a scale: K ~ 1e-10 is lost against gamma in float64
KEYS = ("a0", "a1", "a2", "nu")

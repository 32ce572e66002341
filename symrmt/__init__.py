"""symrmt: symbolic random-matrix theory of nonlinear attention.

Derive (SymPy) -> generate (lambdify, once) -> solve (NumPy) -> check (Monte Carlo).

>>> import symrmt
>>> h = symrmt.hermite("erf(x)")
>>> h.exact["nu"]
2*asin(2/3)/pi
"""
from .errors import ConvergenceError, SymrmtInputError
from .geometry import Geometry
from .nonlinearity import HermiteCoefficients, hermite, parse_nonlinearity
from .simulation import SimulationResult, simulate
from .theory import attention_error, linear_error, solve_attention, solve_linear

__version__ = "0.1.0"

__all__ = [
    "ConvergenceError", "SymrmtInputError", "Geometry", "HermiteCoefficients", "hermite",
    "parse_nonlinearity", "SimulationResult", "simulate", "attention_error", "linear_error",
    "solve_attention", "solve_linear", "__version__",
]

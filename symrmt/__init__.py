"""symrmt: symbolic random-matrix theory of nonlinear attention.

Derive (SymPy) -> generate (lambdify, once) -> solve (NumPy) -> check (Monte Carlo).

The public names are re-exported lazily (PEP 562), so that the NumPy layers
(``import symrmt.solve``, ``import symrmt.simulation``) load without SymPy.

>>> import symrmt
>>> h = symrmt.hermite("erf(x)")
>>> h.exact["nu"]
2*asin(2/3)/pi
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "SymrmtError": "errors", "SymrmtInputError": "errors", "ParseError": "errors",
    "NonlinearityError": "errors", "ParameterError": "errors", "ConvergenceError": "errors",
    "Geometry": "geometry",
    "HermiteCoefficients": "nonlinearity", "hermite": "nonlinearity", "parse_nonlinearity": "nonlinearity",
    "SimulationResult": "simulation", "simulate": "simulation", "simulate_spectrum": "simulation",
    "Convergence": "convergence", "converge": "convergence",
    "attention_error": "theory", "linear_error": "theory", "solve_attention": "theory", "solve_linear": "theory",
    "spectral_density": "spectral", "SpectralDensity": "spectral",
    "latex": "derive.latex",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symrmt' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

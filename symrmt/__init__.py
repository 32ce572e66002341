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

from .runtime.lazy import lazy_exports

#: The version of the package (PEP 440).
__version__ = "0.1.0"

#: public name -> module that defines it
_EXPORTS = {
    "SymrmtError": "errors", "SymrmtInputError": "errors", "ParseError": "errors",
    "NonlinearityError": "errors", "ParameterError": "errors", "ConvergenceError": "errors",
    "Geometry": "geometry",
    "HermiteCoefficients": "nonlinearity", "hermite": "nonlinearity", "parse_nonlinearity": "nonlinearity",
    "SimulationResult": "simulation", "simulate": "analysis.with_theory", "simulate_spectrum": "simulation",
    "Convergence": "analysis.convergence", "converge": "analysis.convergence",
    "attention_error": "theory", "linear_error": "theory", "solve_attention": "theory", "solve_linear": "theory",
    "spectral_density": "theory", "SpectralDensity": "theory",
    "latex": "theory",
    "kernel_ridge_error": "theory", "simulate_kernel_ridge": "simulation",
    "softmax_error": "theory", "summed_heads_error": "theory", "solve_model": "theory",
}

__all__ = [*_EXPORTS, "__version__"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

r"""Code generation: a derived :class:`~symrmt.derive.FixedPointSystem` becomes the functions the solver runs.

Split like PyDy's code generation, by what is symbolic and what depends on the target:

* :mod:`.definitions` -- the chain rule through the system's definitions
  (:math:`\partial R = -R\,(\partial M)\,R` for :math:`R = M^{-1}`);
* :mod:`.calculus` -- every function the solver needs (residuals and their Jacobians,
  integrands and their total derivatives, observables, start, branch, ranges) as SymPy
  expressions with ordered arguments;
* :mod:`.numpy_backend` -- those expressions as NumPy functions (the only call of
  :func:`sympy.lambdify` in symrmt), assembled into a :class:`~symrmt.solve.CompiledSystem`.

Nothing here knows which model a system describes.
"""
from ..runtime.lazy import lazy_exports

# Imported on first use: a process that reads its systems from the disk cache (.system_cache) and only lambdifies f
# never imports the derivation.
__getattr__, __dir__ = lazy_exports(__name__, {"parameter_domains": "calculus", "compile_system": "numpy_backend",
                                               "numpy_function": "numpy_backend"}, globals())

__all__ = ["compile_system", "numpy_function", "parameter_domains"]

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
from .calculus import parameter_domains
from .numpy_backend import compile_system, numpy_function

__all__ = ["compile_system", "numpy_function", "parameter_domains"]

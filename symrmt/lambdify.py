r"""The one lambdify: a SymPy expression -> a NumPy function of its symbols (:func:`numpy_function`).

Both the inputs layer (f and its Hermite data, :mod:`symrmt.nonlinearity`) and the code generation
of a derived system (:mod:`symrmt.codegen`) turn SymPy expressions into NumPy functions, with the
same explicit modules, common-subexpression elimination and printer. The function lives here, in
the inputs layer beside the nonlinearity, so that f is compiled without an import upwards;
:mod:`symrmt.codegen.numpy_backend` builds every function of a system from it. It knows no system,
no model and no solver: SymPy, SciPy's printer and NumPy only.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
import sympy as sp
from sympy.printing.numpy import SciPyPrinter

__all__ = ["numpy_function", "MODULES"]

#: scipy.special first so that erf, gamma, ... are vectorized ufuncs; then NumPy.
#: ``Heaviside`` at 0 is 1/2, SymPy's default.
MODULES = [{"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0), "im": np.imag, "re": np.real},
           "scipy", "numpy"]


def numpy_function(
    expr: sp.Basic | Sequence[sp.Basic], args: Sequence[sp.Symbol], name: str = "f"
) -> Callable[..., np.ndarray]:
    """Turn ``expr`` (an expression or a sequence of them) into a NumPy function of ``args``.

    Parameters
    ----------
    expr : sympy.Basic or sequence of sympy.Basic
        The expression(s); scipy.special is used for the special functions (erf, gamma, ...), NumPy for the rest,
        and Heaviside(0) is 1/2.
    args : sequence of sympy.Symbol
        The function's arguments, in order; every free symbol of ``expr`` must be among them.
    name : str
        The name in the error message (default ``"f"``).

    Returns
    -------
    callable
        ``function(*arrays)``: the value of ``expr`` (a tuple of values for a sequence), broadcast over NumPy
        arrays. Cached by the expression and the arguments, so that the same ``expr`` is generated once.

    Raises
    ------
    ValueError
        If ``expr`` has a free symbol that is not in ``args`` (the generated code
        would otherwise fail later with a bare ``NameError``).

    See Also
    --------
    sympy.lambdify : What generates the code (with small integer powers written as products here).
    symrmt.codegen.compile_system : A whole system's functions, generated through this one.

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> from symrmt.codegen import numpy_function
    >>> x, y = sp.symbols("x y")
    >>> numpy_function(x**2 + y, (x, y))(np.array([1.0, 2.0]), 1.0).tolist()
    [2.0, 5.0]
    """
    args = tuple(args)
    exprs = tuple(expr) if isinstance(expr, (list, tuple)) else (expr,)
    missing = set().union(*(sp.sympify(e).free_symbols for e in exprs)) - set(args)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(f"cannot generate {name}: symbols {names} are not among its arguments {args}")
    key = (sp.srepr(sp.Tuple(*exprs)), sp.srepr(sp.Tuple(*args)), isinstance(expr, (list, tuple)))
    return _lambdify_cached(key, exprs if key[2] else exprs[0], args)


class _Printer(SciPyPrinter):
    """SciPy printer that writes small integer powers as products.

    NumPy fast-paths ``x**2`` and ``x**-1`` but sends ``x**-2.0`` to the generic
    ``pow``, measured 20x slower than ``1/(x*x)`` on the (N, nodes) arrays of the solver.
    """

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.as_base_exp()
        if exponent.is_Integer and 2 <= abs(int(exponent)) <= 4:
            product = "*".join([f"({self._print(base)})"] * abs(int(exponent)))
            return f"({product})" if exponent > 0 else f"(1/({product}))"
        return super()._print_Pow(expr, rational=rational)


@lru_cache(maxsize=1)
def _namespace() -> dict:
    """What the strings ``"scipy"`` and ``"numpy"`` of :data:`MODULES` give SymPy's lambdify, built once from the
    modules' own dictionaries: lambdify's ``from numpy import *`` also loads NumPy's lazy submodules (f2py among
    them), 0.13 s of every first call. The same names, in lambdify's order: NumPy, numpy.linalg over it,
    scipy.special over both, then SymPy's translations and ``I``; a name the printer needs and this lacks is still
    imported by lambdify itself (its printer's ``module_imports``)."""
    import scipy  # heavy: SciPy
    import scipy.special  # heavy: SciPy

    def public(module) -> dict:
        names = set(getattr(module, "__all__", ()))
        return {name: value for name, value in vars(module).items() if name in names}

    space = {"numpy": np, "scipy": scipy, **public(np), **public(np.linalg), **public(scipy.special)}
    space.update(jn=scipy.special.spherical_jn, yn=scipy.special.spherical_yn, I=1j)
    return space


@lru_cache(maxsize=256)
def _lambdify_cached(key: tuple, expr, args):
    target = list(expr) if isinstance(expr, tuple) else expr
    printer = _Printer({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                        "user_functions": {}})
    return sp.lambdify(args, target, modules=[MODULES[0], _namespace()], cse=True, docstring_limit=200,
                       printer=printer)

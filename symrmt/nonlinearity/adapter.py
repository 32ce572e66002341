r"""The one adapter from a user's f (formula, SymPy expression or Python callable) to a
vectorized float64 NumPy function. The simulator and the numeric Hermite data of a
callable both go through it.

Wrapping a Python callable needs NumPy only; SymPy (the parser and
:func:`symrmt.lambdify.numpy_function`) is imported when a formula or an expression is
given, so that the NumPy layers (``import symrmt.simulation``) load without it.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from symrmt.errors import NonlinearityError

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["numpy_callable", "label_of"]


def numpy_callable(f: str | sp.Expr | Callable[[np.ndarray], Any],
                   a0: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
    r"""f as a vectorized NumPy function: float64 in, float64 of the same shape out; centered by ``a0``.

    Parameters
    ----------
    f : str, sympy.Expr, sympy function class, or callable
        A formula (parsed by :func:`~symrmt.nonlinearity.parse_nonlinearity`, so it
        must depend on x), a SymPy expression whose only free symbol is named ``x``
        (constants allowed), a SymPy function such as ``sympy.tanh`` (applied to x), or
        a Python callable acting entrywise on arrays such as ``np.tanh``. Expressions
        are compiled once by :func:`symrmt.lambdify.numpy_function` (lambdify with
        explicit modules).
    a0 : float
        Subtracted from every value: :math:`g = f - a_0`. Centering passes
        :math:`a_0 = \mathbb E f(\xi)` (what ``hermite(f, center=True)`` reports as
        ``centered_by``); the default 0 leaves f as it is.

    Returns
    -------
    callable
        ``g(x)`` with :math:`g(x)_i = f(x_i) - a_0` as float64, the shape of ``x``. Overflow
        inside f (``exp`` in ``sigmoid`` at very negative x) is silent and gives the
        limiting value; non-finite values are returned as they are, for the caller
        to judge.

    Raises
    ------
    ParseError
        A formula outside the vocabulary.
    NonlinearityError
        Symbols other than x, an object that is none of the above; and, from ``g``,
        an exception raised by a callable f, complex values with a nonzero imaginary
        part, non-numeric values, or a result of another shape.

    See Also
    --------
    symrmt.hermite : The Hermite data of the same f.
    symrmt.simulate : Applies f entrywise through this function.

    Examples
    --------
    >>> g = numpy_callable("relu(x) - 1/2")
    >>> g(np.array([-1.0, 0.0, 2.0]))
    array([-0.5, -0.5,  1.5])
    >>> bool(numpy_callable(np.tanh)(0.5) == np.tanh(0.5))
    True
    >>> numpy_callable("exp(x)", a0=1.5)(np.array([0.0]))
    array([-0.5])
    """
    g = _uncentered(f)
    return g if a0 == 0 else _shifted(g, float(a0), label_of(f))


def _uncentered(f: Any) -> Callable[[np.ndarray], np.ndarray]:
    if isinstance(f, str) or _is_sympy(f):
        return _compiled(_expression(f))
    if not callable(f):
        raise _not_a_function(f)
    return _checked(f, label_of(f))


def _shifted(g: Callable, a0: float, label: str) -> Callable:
    def centered(x):
        return g(x) - a0

    centered.__name__ = f"({label}) - {a0:.17g}"
    return centered


def label_of(f: Any) -> str:
    """A short name of f for messages: the formula, the expression, or the callable's name."""
    if isinstance(f, str):
        return f.strip()[:80]
    if _is_sympy(f):
        return str(f)[:80]
    return str(getattr(f, "__name__", None) or repr(f))[:80]


def _is_sympy(f: Any) -> bool:
    """Whether f is a SymPy object; such objects exist only if SymPy was imported, so none is imported here."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(f, (sympy.Basic, sympy.FunctionClass))


def _not_a_function(f: Any) -> NonlinearityError:
    return NonlinearityError(
        f"f = {str(f)[:80]!r} ({type(f).__name__}): must be a formula such as 'tanh(x)', a SymPy expression "
        "in x, or a vectorized NumPy function such as np.tanh"
    )


def _expression(f: str | sp.Basic) -> sp.Expr:
    """A formula or SymPy object as an expression in x (SymPy and the parser load here)."""
    import sympy as sp  # heavy: SymPy

    from .constants import X  # heavy: SymPy
    from .parse import as_expression_in_x, parse_nonlinearity  # heavy: SymPy

    if isinstance(f, str):
        return parse_nonlinearity(f)
    if isinstance(f, sp.FunctionClass):        # sympy.tanh, given without its argument
        return f(X)
    if isinstance(f, sp.Expr):
        return as_expression_in_x(f)
    raise _not_a_function(f)


def _compiled(expr: sp.Expr) -> Callable[[np.ndarray], np.ndarray]:
    from symrmt.lambdify import numpy_function  # heavy: SymPy
    from .constants import X  # heavy: SymPy

    fn = numpy_function(expr, [X], name="f")

    def call(x):
        with np.errstate(over="ignore"):   # exp(-x) in sigmoid at x = -1000: the limit is right
            return fn(x)

    call.__name__ = "f"
    g = _checked(call, str(expr)[:80])
    g.__doc__ = f"f(x) = {expr}, vectorized over float64 arrays."
    return g


def _checked(fn: Callable, label: str) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` with float64 input, and its output checked to be real and of the input's shape.

    Whatever ``fn`` raises (a user's ``lambda x: 1/0``, ``math.tanh`` on an array) becomes
    a :class:`~symrmt.errors.NonlinearityError` in one line; ``MemoryError`` passes through.
    """

    def call(x: np.ndarray) -> np.ndarray:
        arr = np.asarray(x, dtype=np.float64)
        try:
            out = np.asarray(fn(arr))
        except (NonlinearityError, MemoryError):
            raise
        except Exception as exc:
            raise NonlinearityError(
                f"f = {label}: calling it on an array failed ({type(exc).__name__}: {exc}); f must act entrywise "
                "on NumPy arrays (np.tanh, not math.tanh)"
            ) from exc
        if out.dtype.kind == "c":
            if np.any(out.imag != 0):   # never drop an imaginary part silently
                raise NonlinearityError(f"f = {label}: returned complex values on real input; f must be real")
            out = out.real
        if out.dtype.kind not in "biuf":
            raise NonlinearityError(f"f = {label}: returned non-numeric values ({out.dtype})")
        if out.shape != arr.shape:
            if out.ndim != 0:
                raise NonlinearityError(
                    f"f = {label}: returned shape {out.shape} for input shape {arr.shape}; f must act entrywise"
                )
            return np.full(arr.shape, out, dtype=np.float64)    # a constant f
        return out.astype(np.float64, copy=False)

    call.__name__ = getattr(fn, "__name__", "f")
    call.__doc__ = f"f = {label}, vectorized over float64 arrays."
    return call

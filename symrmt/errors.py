"""Exceptions raised by symrmt.

Every error symrmt raises on purpose is a :class:`SymrmtError`. Bad input is a
:class:`SymrmtInputError` (also a ``ValueError``) whose message names the
parameter, the value and the fix; its subclasses say which kind of input was
wrong. :class:`ConvergenceError` is only for input that is valid but that the
solver could not solve to its tolerance. The CLI maps them to exit statuses
2 (bad input) and 3 (did not converge).
"""
from __future__ import annotations

__all__ = ["SymrmtError", "SymrmtInputError", "ParseError", "NonlinearityError", "ParameterError",
           "ConvergenceError"]


class SymrmtError(Exception):
    """Base class of every error symrmt raises on purpose.

    Examples
    --------
    >>> import symrmt
    >>> [issubclass(error, symrmt.SymrmtError) for error in (symrmt.ParameterError, symrmt.ConvergenceError)]
    [True, True]
    """


class SymrmtInputError(SymrmtError, ValueError):
    """Bad user input: the message says what is wrong and how to fix it.

    Examples
    --------
    >>> import symrmt
    >>> try:
    ...     symrmt.attention_error("tanh(x)", c=-1.0, gamma=0.1)
    ... except ValueError as exc:                      # a SymrmtInputError is a ValueError
    ...     print(isinstance(exc, symrmt.SymrmtInputError), exc)
    True c = -1.0: every value must be > 0.
    """


class ParseError(SymrmtInputError):
    """A formula for f that the whitelist parser does not accept.

    Examples
    --------
    >>> import symrmt
    >>> try:
    ...     symrmt.hermite("x^2")
    ... except symrmt.ParseError as exc:
    ...     print(str(exc).split(":")[0])
    cannot parse nonlinearity 'x^2'
    """


class NonlinearityError(SymrmtInputError):
    """A nonlinearity that parses but is not usable (not square-integrable, not real, not centered, ...).

    Examples
    --------
    >>> import symrmt
    >>> try:
    ...     symrmt.attention_error("exp(x**2)", c=1.0, gamma=0.1)
    ... except symrmt.NonlinearityError as exc:
    ...     print(str(exc)[:55])
    nonlinearity 'exp(x**2)' is not square-integrable under
    """


class ParameterError(SymrmtInputError):
    """A numeric parameter (size, ratio, ridge, geometry, ...) that is out of range or of the wrong type.

    Examples
    --------
    >>> import symrmt
    >>> try:
    ...     symrmt.linear_error(c=1.0, gamma=-0.1)
    ... except symrmt.ParameterError as exc:
    ...     print(type(exc).__name__)
    ParameterError
    """


class ConvergenceError(SymrmtError, RuntimeError):
    """Valid input that the numeric solver did not solve to its tolerance; the message gives the point.

    ``failures`` lists the points that failed (:class:`symrmt.solve.PointFailure`: index,
    parameters, reason) when the error stands for some points of a larger input; the others
    were solved, and the public functions return them with ``partial=True``.

    Examples
    --------
    >>> import symrmt
    >>> try:                                           # below what the quadrature resolves at c = 1
    ...     symrmt.attention_error("tanh(x)", c=1.0, gamma=[1e-10, 0.1], form="quadrature")
    ... except symrmt.ConvergenceError as exc:
    ...     print(len(exc.failures), exc.failures[0].parameters["gamma"])
    1 1e-10
    """

    def __init__(self, message: str, failures: tuple = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)

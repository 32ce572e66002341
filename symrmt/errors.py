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
    """Base class of every error symrmt raises on purpose."""


class SymrmtInputError(SymrmtError, ValueError):
    """Bad user input: the message says what is wrong and how to fix it."""


class ParseError(SymrmtInputError):
    """A formula for f that the whitelist parser does not accept."""


class NonlinearityError(SymrmtInputError):
    """A nonlinearity that parses but is not usable (not square-integrable, not real, not centered, ...)."""


class ParameterError(SymrmtInputError):
    """A numeric parameter (size, ratio, ridge, geometry, ...) that is out of range or of the wrong type."""


class ConvergenceError(SymrmtError, RuntimeError):
    """Valid input that the numeric solver did not solve to its tolerance; the message gives the point.

    ``failures`` lists the points that failed (:class:`symrmt.solve.PointFailure`: index,
    parameters, reason) when the error stands for some points of a larger input; the others
    were solved, and the public functions return them with ``partial=True``.
    """

    def __init__(self, message: str, failures: tuple = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)

"""Exceptions raised by symrmt.

Every error a user can trigger with bad input is a :class:`SymrmtInputError`
(a ``ValueError``) whose message names the problem and the fix; the CLI turns it
into a one-line message and exit status 2.
"""
from __future__ import annotations

__all__ = ["SymrmtInputError", "ConvergenceError"]


class SymrmtInputError(ValueError):
    """Bad user input: the message says what is wrong and how to fix it."""


class ConvergenceError(RuntimeError):
    """A numeric solver did not reach its tolerance; the message gives the residual."""

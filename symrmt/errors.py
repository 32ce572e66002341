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
           "ParameterTypeError", "ConvergenceError", "shown", "shortened", "printable", "QUOTE_WIDTH"]

#: The most characters a message quotes of one user value (:func:`shown`): a long input is cut in the middle.
QUOTE_WIDTH = 80


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


class ParameterTypeError(ParameterError, TypeError):
    """A parameter of the wrong type: text, a boolean or a complex number where a real number is expected.

    Also a ``TypeError`` (the Python convention for a wrong type) and a :class:`ParameterError` (so that
    ``except ValueError`` and the command line's exit status 2 still catch it).
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


def printable(text: str) -> str:
    r"""``text`` with every character that is not printable written as its Python escape: what the terminal shows.

    The one way the package prints text it did not write itself (a user's value, a file name, a cache
    entry's content): control characters (escape sequences, carriage returns, newlines, NUL) and the
    invisible formatting ones (bidirectional overrides) cannot move the cursor, recolour the terminal, hide
    text or split one message line into two. Printable characters, non-ASCII letters included, are kept.

    >>> printable("name\x1b[31m red")
    'name\\x1b[31m red'
    >>> printable("two\nlines") == "two\\nlines"
    True
    >>> printable("σ(x) ok")
    'σ(x) ok'
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def shortened(text: str, width: int = QUOTE_WIDTH, length: int | None = None) -> str:
    """``text`` if it has at most ``width`` characters, else its start and end around ``...`` and its length
    (``length``, where ``text`` quotes a value of another length: the characters the user typed).

    >>> shortened("x" * 10, 20)
    'xxxxxxxxxx'
    >>> shortened("a" * 50 + "b" * 50, 40)
    'aaaaaaaaaaaaaa...bbbbbb (100 characters)'
    """
    if len(text) <= width:
        return text
    tail = f" ({len(text) if length is None else length} characters)"
    keep = max(width - len(tail) - 3, 8)
    head = keep - keep // 3                   # more of the start, where a value's kind shows
    return text[:head] + "..." + text[len(text) - (keep - head):] + tail


def shown(value: object, width: int = QUOTE_WIDTH) -> str:
    """The repr of a user value for a one-line message, at most about ``width`` characters (cut in the middle).

    The one way a message quotes what the user gave: a 1 MB string or list, a 5000-digit integer (whose repr
    Python refuses beyond 4300 digits) and an object whose repr fails are all shown in one short line, with
    control characters escaped (:func:`printable`).

    >>> shown("tanh(x)")
    "'tanh(x)'"
    >>> shown(10**5000)
    '<an integer of 5001 digits>'
    >>> len(shown("x" * 10**6)) <= 80
    True
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * width:
        digits = _digits(abs(value))
        return f"<{'a negative' if value < 0 else 'an'} integer of {digits} digits>"
    try:
        text = printable(repr(value))          # a str's repr escapes already; an object's own repr may not
    except Exception:  # noqa: BLE001 - a repr that fails (too many digits, a broken object) is not the user's fault
        return f"a {type(value).__name__}"
    return shortened(text if isinstance(value, str) else " ".join(text.split()), width,
                     len(value) if isinstance(value, str) else None)


def _digits(value: int) -> int:
    """The number of decimal digits of ``value`` >= 1, without converting it to text (Python limits that)."""
    estimate = max(int(value.bit_length() * 0.30102999566398120), 1)
    return estimate + (value >= 10**estimate)

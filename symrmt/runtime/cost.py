r"""The one refusal of work estimated to take too long, before it starts.

An entry point that can be asked for hours of work (``symrmt check --examples``, ``theory --weights``,
``simulate --seeds``, ``weights --rank-max``) estimates its seconds from a cost model stated in its own
docstring, then calls :func:`check_seconds`: over the limit, and without ``allow_long``, it raises a
:class:`~symrmt.errors.ParameterError` that gives the estimate, what it grows with and the fix. The
memory of the same work is refused by :func:`symrmt.runtime.memory.check_fits`.

The constants of the cost models were measured on the 2-core development machine at a load average of
13 to 15 (eight jobs sharing it), so they are pessimistic on a quiet machine by a factor of about 5; a
limit is there to stop a command that would run for hours, not to time it.
"""
from __future__ import annotations

from ..errors import ParameterError

__all__ = ["MAX_SECONDS", "duration", "check_seconds"]

#: Work estimated above this many seconds runs only with ``allow_long`` (``--allow-long``): five minutes.
MAX_SECONDS = 300.0


def duration(seconds: float) -> str:
    """A duration for a message: ``'40 s'``, ``'12 min'``, ``'3.5 h'`` or ``'2.1 days'``.

    >>> duration(40), duration(720), duration(12600), duration(2e5)
    ('40 s', '12 min', '3.5 h', '2.3 days')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h" if seconds < 172800 else f"{seconds / 86400:.1f} days"


def check_seconds(seconds: float, what: str, fix: str, allow_long: bool = False, limit: float = MAX_SECONDS,
                  flag: str = "--allow-long") -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) ``what`` when its estimated ``seconds`` exceed ``limit``.

    The message is one line: ``"<what> would take about <estimate> (over the limit of 5 min). <fix>, or pass
    --allow-long to run it."``; nothing is refused with ``allow_long``.

    >>> check_seconds(30.0, "this run", "Use fewer seeds")
    >>> check_seconds(4e4, "this run", "Use fewer seeds")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: this run would take about 11.1 h here (over the limit of 5 min). Use fewer seeds, or pass --allow-long to run it.
    """
    if allow_long or not seconds > limit:
        return
    raise ParameterError(f"{what} would take about {duration(seconds)} here (over the limit of {duration(limit)}). "
                         f"{fix}, or pass {flag} to run it.")

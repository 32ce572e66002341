r"""Points the solver could not solve: where they are, their parameters, and why (NumPy only).

The solver follows every point on its own path, so one point that fails (a continuation that
stalls, a quadrature that cannot resolve it, a value outside its admissible range) does not
spoil the others: it is recorded as a :class:`PointFailure`, and the caller decides whether the
rest is useful (``solve(..., partial=True)``) or the whole input fails
(:class:`~symrmt.errors.ConvergenceError`, which carries the failures).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .problem import Problem

__all__ = ["PointFailure", "point_failures", "failure_message"]


@dataclass(frozen=True)
class PointFailure:
    """A point of the input that has no solution to the solver's tolerance.

    Attributes
    ----------
    index : tuple of int
        Its position in the broadcast parameter arrays (``result.failed[index]`` is True).
    parameters : dict
        The parameters there, by the names of the system's symbols.
    reason : str
        What failed, and what to change.

    Examples
    --------
    >>> import symrmt
    >>> s = symrmt.solve_linear(c=1.0, gamma=[1e-10, 0.1], form="quadrature", partial=True)
    >>> failure = s.failures[0]
    >>> failure.index, failure.parameters["gamma"], "too small" in failure.reason
    ((0,), 1e-10, True)
    """

    index: tuple
    parameters: Mapping[str, float]
    reason: str

    def where(self) -> str:
        """The parameters as ``name=value, ...``."""
        return ", ".join(f"{k}={v:.4g}" for k, v in self.parameters.items())

    def __str__(self) -> str:
        return f"{self.where()}: {self.reason}"


def point_failures(problem: Problem, shape: tuple, reasons: Mapping[int, str]) -> tuple[PointFailure, ...]:
    """The failures of the flat points ``reasons`` (flat index -> reason) of a problem of ``shape``, in order."""
    out = []
    for i in sorted(reasons):
        index = tuple(int(j) for j in np.unravel_index(i, shape)) if shape else ()
        parameters = {str(k): float(problem.flat[k][i]) for k in problem.keys}
        out.append(PointFailure(index, parameters, reasons[i]))
    return tuple(out)


def failure_message(name: str, failures: tuple[PointFailure, ...], size: int) -> str:
    """One line: how many points failed, the first with its reason, and how to get the others."""
    first = failures[0]
    line = (f"the {name} system could not be solved at {len(failures)} of {size} point(s); "
            f"{'first ' if len(failures) > 1 else ''}at {first.where()}: {first.reason}.")
    if len(failures) < size:
        line += " With partial=True the other points are returned, these masked and listed in `failures`."
    return line

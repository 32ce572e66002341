"""Points the solver could not solve, as the command line reports them: a ``failed`` list, a warning, the status.

A curve whose points are solved one by one keeps the points that were solved: their values are
printed, the failed ones are ``-`` in the table and ``null`` in the JSON (never NaN), and the
JSON's ``failed`` list says where and why. The command then exits with status 0 and a warning
on stderr, unless every point failed or ``--strict`` is given: then it is the solver's failure,
status 3, one line and no output.
"""
from __future__ import annotations

import argparse
import warnings
from typing import Sequence

import numpy as np

from ..errors import ConvergenceError

__all__ = ["add_strict", "failed_points", "settle", "print_failures"]


def add_strict(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true",
                   help="exit with status 3 if any point cannot be solved (default: the others are printed, the "
                        "failed ones listed under 'failed', and status 3 only if every point failed)")


def failed_points(failures: Sequence, axes: Sequence[tuple[str, np.ndarray]], curve: str | None = None) -> list[dict]:
    """JSON entries ``{"curve"?, <axis>: value, ..., "reason"}`` of the solver's failures on a grid.

    ``axes`` names the grid's axes in order (``[("s", s_values), ("gamma", gamma)]``): the failure
    at index ``(i, j)`` is at ``s = s_values[i]``, ``gamma = gamma[j]``.
    """
    out = []
    for failure in failures:
        entry: dict = {"curve": curve} if curve else {}
        index = failure.index[len(failure.index) - len(axes):]
        entry.update({name: float(np.ravel(values)[i]) for (name, values), i in zip(axes, index)})
        entry["reason"] = failure.reason
        out.append(entry)
    return out


def _where(entry: dict) -> str:
    """``gamma = 1e-10 (attention)`` for a failed entry."""
    where = ", ".join(f"{k} = {v:g}" for k, v in entry.items() if k not in ("curve", "reason"))
    return where + (f" ({entry['curve']})" if entry.get("curve") else "")


def settle(failed: list[dict], total: int, strict: bool) -> None:
    """Nothing if no point failed; a warning if some did; :class:`ConvergenceError` if all did or ``strict``."""
    if not failed:
        return
    line = f"{len(failed)} of {total} points could not be solved (first at {_where(failed[0])}: {failed[0]['reason']})"
    if strict or len(failed) >= total:
        raise ConvergenceError(line + ("; without --strict the others are printed" if len(failed) < total else ""))
    warnings.warn(line + "; they are null in the output and listed under 'failed' (--strict makes this an error)",
                  UserWarning, stacklevel=2)


def print_failures(failed: list[dict]) -> None:
    """The failed points under a table, one line each."""
    for entry in failed:
        print(f"failed: {_where(entry)}: {entry['reason']}")

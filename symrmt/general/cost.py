r"""The time and memory of the general-M theory, estimated from p and the grid of gamma before any work.

:func:`symrmt.general.solve_general` follows the fixed point from :math:`\gamma_{\rm top} = 50\max(1,
\max\gamma)` down the requested grid, inserting points at most 2.5 apart (:func:`path_points` counts them
exactly as it does). Each point costs a few Newton steps, and each step two symmetric inverses of
:math:`p \times p` matrices (:func:`symrmt.general.kernel.pair_traces`), so

.. math::

    t \approx C\, p^3\, (\text{points} + 1), \qquad C = 1.0 \times 10^{-8}\ \text{s}

(the 1 for the singular value decomposition of M), C measured at p = 512 (11 points and the decomposition in 16 s,
20 points in 27 s) on the 2-core development machine at load 13 to 15 (:mod:`symrmt.runtime.cost`). The memory holds
about :data:`MATRICES` float64 matrices of size :math:`p \times p` at once: M and its transpose, the two
singular bases, H in both bases, and the two inverses with their products in the two threads.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..runtime.cost import check_seconds
from ..runtime.memory import check_fits

__all__ = ["SECONDS_PER_CUBE", "MATRICES", "path_points", "general_seconds", "general_bytes", "check_general_cost"]

#: Seconds per :math:`p^3` per continuation point (module docstring: measured at load 13 to 15 on 2 cores).
SECONDS_PER_CUBE = 1.0e-8
#: float64 :math:`p \times p` matrices alive at once in the general-M solver.
MATRICES = 16
#: The continuation's start above the largest gamma, and its largest ratio (as in symrmt.general.solver).
_TOP, _RATIO = 50.0, 2.5


def path_points(gamma: np.ndarray) -> int:
    """Points the continuation solves for the grid ``gamma`` (all > 0): its start, every gamma, the inserted ones.

    >>> path_points(np.array([1.0])), path_points(np.logspace(-2, 1, 8))
    (6, 20)
    """
    gamma = np.asarray(gamma, dtype=float).ravel()
    prev = max(float(gamma.max()), 1.0) * _TOP
    points = 1
    for g in np.sort(gamma)[::-1]:
        if g < prev / _RATIO:
            points += int(math.ceil(math.log(prev / g) / math.log(_RATIO))) - 1
        points += 1
        prev = min(prev, float(g))
    return points


def general_seconds(p: int, gamma: np.ndarray) -> float:
    r"""Estimated seconds of the general-M theory of a :math:`p \times p` M on the grid ``gamma`` (module docstring).

    >>> round(general_seconds(512, np.logspace(-2, 1, 8)))
    28
    """
    return SECONDS_PER_CUBE * float(p) ** 3 * (path_points(gamma) + 1)


def general_bytes(p: int) -> float:
    r"""Estimated peak bytes of the general-M theory of a :math:`p \times p` M: :data:`MATRICES` of them.

    >>> general_bytes(6000) / 2**30
    4.291534423828125
    """
    return MATRICES * 8.0 * float(p) ** 2


def _size(weights: Any) -> int | None:
    """p of ``weights`` (a matrix or a pair ``(W_K, W_Q)``) from its shape alone, or None where the shape is not
    that of a weight matrix (the reader of the weights then says why)."""
    try:
        shape = np.shape(weights[1]) if isinstance(weights, tuple) and len(weights) == 2 else np.shape(weights)
    except (TypeError, ValueError):
        return None
    return int(shape[-1]) if len(shape) == 2 else None


def check_general_cost(weights: Any, gamma: Any, allow_long: bool = False) -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) the general-M theory of ``weights`` on ``gamma`` when it would
    not fit in memory, or take longer than :data:`symrmt.runtime.cost.MAX_SECONDS` without ``allow_long``.

    Only shapes are read; arguments that are no matrix or no grid are left to the solver's readers.

    >>> check_general_cost(np.eye(3000), [0.1, 1.0])
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: the general-M theory of a 3000 x 3000 M at 2 gamma (9 continuation points) would take about 45 min here (over the limit of 5 min). It grows like p^3 per point: use a smaller M or fewer gamma, or pass allow_long=True (--allow-long) to run it.
    """
    p = _size(weights)
    try:
        grid = np.asarray(gamma, dtype=float).ravel()
    except (TypeError, ValueError):
        return
    if p is None or grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
        return
    points = path_points(grid)
    what = f"the general-M theory of a {p} x {p} M"
    check_fits(general_bytes(p), what, f"It holds about {MATRICES} p x p float64 matrices: use a smaller M.")
    check_seconds(general_seconds(p, grid), f"{what} at {grid.size} gamma ({points} continuation points)",
                  "It grows like p^3 per point: use a smaller M or fewer gamma", allow_long,
                  flag="allow_long=True (--allow-long)")

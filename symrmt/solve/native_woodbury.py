r"""The Woodbury form of an observable, point by point as machine code (Numba).

:func:`~.observe._woodbury` evaluates :math:`\Phi = \text{offset} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g`
and its derivative with NumPy calls over the points: a transposed copy of the entries, batched
:math:`k \times k` products and two LAPACK solves per point (about a third of a random cloud's time once the
path is compiled). Here each point's entries are read where the observable's function wrote them and the same
formulas are evaluated by loops, the solves by Gaussian elimination with partial pivoting. The arithmetic is
the NumPy code's up to the order of the sums in the small products and LAPACK's pivoting, so the two agree to
round-off (``tests/solve/test_native_path.py``).
"""
from __future__ import annotations

import types

import numpy as np

from ..runtime import jit
from .native_path import back_substitute, pivoted

__all__ = ["woodbury_points"]


def _solve_small(matrix, rhs, transpose, a, b, x, out):
    """``out = matrix^{-1} rhs`` (or ``matrix^{-T} rhs``) by elimination with partial pivoting
    (:func:`~.native_path.pivoted`, :func:`~.native_path.back_substitute`); NaN if singular."""
    k = rhs.size
    for r in range(k):
        b[r, 0] = rhs[r]
        b[r, 1] = 0.0
        for c in range(k):
            a[r, c] = matrix[c, r] if transpose else matrix[r, c]
    pivoted(a, b)
    back_substitute(a, b, x)
    for r in range(k):
        out[r] = x[r, 0]


def woodbury_points(entries, d_entries, k, with_rate, value, derivative):
    r""":math:`\text{offset} - g^\top C S^{-1} g` with :math:`S = I + GC` for every column of ``entries``
    (``1 + 2k^2 + k`` rows: offset, C and G row by row, g), and, if ``with_rate``, its derivative from the
    derivatives of the entries ``d_entries`` (the formula of :func:`~.observe._woodbury`)."""
    n = entries.shape[1]
    core = np.empty((k, k))
    gram = np.empty((k, k))
    system = np.empty((k, k))
    d_core = np.empty((k, k))
    d_system = np.empty((k, k))
    source = np.empty(k)
    h = np.empty(k)
    v = np.empty(k)
    u = np.empty(k)
    w = np.empty(k)
    a = np.empty((k, k))
    b = np.empty((k, 2))
    x = np.empty((k, 2))
    for i in range(n):
        for r in range(k):
            source[r] = entries[1 + 2 * k * k + r, i]
            for c in range(k):
                core[r, c] = entries[1 + r * k + c, i]
                gram[r, c] = entries[1 + k * k + r * k + c, i]
        for r in range(k):
            for c in range(k):
                total = 0.0
                for m in range(k):
                    total += gram[r, m] * core[m, c]
                system[r, c] = (1.0 if r == c else 0.0) + total
        _solve_small(system, source, False, a, b, x, h)
        result = entries[0, i]
        for r in range(k):
            total = 0.0
            for c in range(k):
                total += core[r, c] * h[c]
            v[r] = total
            result -= source[r] * total
        value[i] = result
        if not with_rate:
            continue
        for r in range(k):                                  # C^T g
            total = 0.0
            for c in range(k):
                total += core[c, r] * source[c]
            w[r] = total
        _solve_small(system, w, True, a, b, x, u)
        for r in range(k):
            for c in range(k):
                d_core[r, c] = d_entries[1 + r * k + c, i]
        for r in range(k):                                  # dG C + G dC
            for c in range(k):
                total = 0.0
                for m in range(k):
                    total += d_entries[1 + k * k + r * k + m, i] * core[m, c] + gram[r, m] * d_core[m, c]
                d_system[r, c] = total
        result = d_entries[0, i]
        for r in range(k):
            dg = d_entries[1 + 2 * k * k + r, i]
            result -= dg * v[r] + u[r] * dg
            for c in range(k):
                result += (u[r] * d_system[r, c] - source[r] * d_core[r, c]) * h[c]
        derivative[i] = result


def _build():
    """:func:`woodbury_points` compiled, in a namespace where the solves it calls are compiled too."""
    matrices, vector = "float64[:, ::1]", "float64[::1]"
    namespace = dict(globals())
    namespace["pivoted"] = jit.njit(pivoted, f"void({matrices}, {matrices})")
    namespace["back_substitute"] = jit.njit(back_substitute, f"void({matrices}, {matrices}, {matrices})")
    namespace["_solve_small"] = jit.njit(
        types.FunctionType(_solve_small.__code__, namespace, "_solve_small"),
        f"void({matrices}, {vector}, boolean, {matrices}, {matrices}, {matrices}, {vector})")
    function = types.FunctionType(woodbury_points.__code__, namespace, "woodbury_points")
    return jit.njit(function, f"void({matrices}, {matrices}, int64, boolean, {vector}, {vector})")


#: The compiled :func:`woodbury_points`, once it has paid for itself (:mod:`symrmt.runtime.jit`).
WOODBURY = jit.Budget(_build)

r"""The path of an exact system as machine code: continuation, Newton and refinement point by point (Numba).

An exact system (no spectral average) costs little per evaluation, so its solve is mostly the step logic of
:mod:`.path` and :mod:`.exact`: NumPy calls on the few points still active, each holding the GIL between its
loops. Here the same steps run point by point in one compiled loop, without the GIL, calling the system's
residual function as machine code (:attr:`~.compiled.CompiledSystem.residual_native`) and its branch
conditions likewise:

- :func:`path_points` is :func:`~.path.continue_path` from the start (Newton at the start value, then the
  predictor-corrector steps with their ratio rule);
- :func:`polish_points` is Newton at the targets, the refinements of :mod:`.exact` and the branch conditions;
- :func:`error_points` is the error estimate :func:`~.exact.newton_error` of ``form="auto"``.

Each point takes the decisions the NumPy code takes for it, in the same order and with the same arithmetic.
The NumPy code solves its Newton systems by the elimination of :mod:`.batched`, and by LAPACK where a row
exchange is needed or a batch has fewer than :data:`~.batched.VECTORIZED_FROM` points; here every system is
solved by that elimination, with partial pivoting written out where it needs an exchange. So the two agree to
round-off, which Newton removes: the unknowns are bit for bit the same at a third of random points and 85% of
the benchmark's cloud (``tests/solve/test_native_path.py``; Phi and E within 1e-9 off the float64 floor).

Compiled once the process has paid for it (:mod:`symrmt.runtime.jit`, as the other machine code), per system: the
residual and branch functions are arguments, so each system gets its own compiled loop.
"""
from __future__ import annotations

import math
import types
import weakref
from collections import namedtuple

import numpy as np

from ..runtime import jit
from .compiled import CompiledSystem
from .settings import (BRANCH_SLACK, MAX_NEWTON, MIN_RATIO, PATH_GROWTH, STEP_CONTROL, STEPS_PER_DECADE,
                       TOLERANCE)

__all__ = ["NativePath", "native_path", "LOOPS_COMPILE_SECONDS", "RELATIONS", "REACHED", "NEWTON_FAILED", "STALLED",
           "Work", "Shape", "StepRules", "PathPoints", "PathOut", "PolishPoints", "PolishOut"]

#: The budget of the compiled loops: they are compiled once the NumPy step logic they replace has cost this much
#: in the process (:class:`symrmt.runtime.jit.Budget`, ski rental), which is what compiling the three loops of a
#: system costs, once per system and process (measured: docs/performance.md, "Compile costs and when").
LOOPS_COMPILE_SECONDS = 8.0
#: The branch comparisons, by their code in the compiled loop.
RELATIONS = (">", ">=", "<", "<=")
#: What :func:`path_points` reports for a point: it reached its target; Newton failed at the start; the step
#: ratio fell below MIN_RATIO.
REACHED, NEWTON_FAILED, STALLED = 0, 1, 2

# The loops' arguments, named. Numba types a namedtuple as a tuple with named fields: reading a field is free and
# the compiled code is that of positional arguments.

#: The scratch arrays of one point, allocated once per call of a loop (:func:`_work`): the system's arguments ``X``
#: and outputs ``out``; F, J and dF/dv read from them; the elimination's matrix ``a`` and right-hand sides ``b``, its
#: solution ``x``; the Newton ``step`` and the ``rate``; the branch function's arguments ``branch_X`` and outputs
#: ``sides``.
Work = namedtuple("Work", ["X", "out", "F", "J", "dF", "a", "b", "x", "step", "rate", "branch_X", "sides"])
#: What the loops read of a system besides its functions: its branch comparisons by their codes in
#: :data:`RELATIONS`, and the sizes of its residual's and its branch function's outputs.
Shape = namedtuple("Shape", ["relations", "outputs", "branch_outputs"])
#: The rules of a path's steps (:class:`~.path.PathRules`), and whether its predictor is reciprocal.
StepRules = namedtuple("StepRules", ["reciprocal", "corrections", "tolerance", "monotone", "componentwise",
                                     "max_ratio"])
#: The points of :func:`path_points`: their parameters ``table`` (P, N), the index of the variable among them, the
#: start and target values of the variable, and the unknowns ``t0`` (U, N) at the start.
PathPoints = namedtuple("PathPoints", ["table", "variable", "start", "target", "t0"])
#: What :func:`path_points` writes: the unknowns, their rate, the value reached, the status and its detail.
PathOut = namedtuple("PathOut", ["t", "rate", "value", "status", "detail"])
#: The points of :func:`polish_points`: parameters, the variable's index and target, the unknowns (refined in
#: place) and the number of refinements.
PolishPoints = namedtuple("PolishPoints", ["table", "variable", "target", "t", "refinements"])
#: What :func:`polish_points` writes besides the unknowns: converged, the residual, the rate.
PolishOut = namedtuple("PolishOut", ["ok", "residual", "rate"])


def _nan_max(a, b):
    """``np.maximum(a, b)``: NaN if either is NaN."""
    if a != a or b != b:
        return math.nan
    return a if a >= b else b


def _max_abs(x):
    """``np.max(np.abs(x))`` of a vector (NaN propagates)."""
    size = 0.0
    for k in range(x.size):
        a = abs(x[k])
        if a != a or a > size:
            size = a
            if a != a:
                return a
    return size


def _all_finite(x):
    for k in range(x.size):
        if not np.isfinite(x[k]):
            return False
    return True


def _load(row, u, X):
    """The point's parameters into the arguments ``X`` of the system's functions (below its ``u`` unknowns)."""
    for k in range(row.size):
        X[u + k, 0] = row[k]


def _arguments(t, variable, value, X):
    """The unknowns ``t`` and the variable's ``value`` into the arguments ``X`` (which hold the parameters,
    :func:`_load`)."""
    for k in range(t.size):
        X[k, 0] = t[k]
    X[t.size + variable, 0] = value


def _evaluate(residual, t, variable, value, X, out, F, J, dF):
    """The residuals, their Jacobian and their derivative in the variable at ``t`` (one point; ``X`` holds its
    parameters, :func:`_load`)."""
    u = t.size
    _arguments(t, variable, value, X)
    residual(X, out)
    for k in range(u):
        F[k] = out[k, 0]
        dF[k] = out[u + u * u + k, 0]
        for j in range(u):
            J[k, j] = out[u + k * u + j, 0]


def _solve(J, F, dF, growth, a, b, x, step, rate):
    r"""Newton step :math:`J^{-1}F` and rate :math:`-J^{-1}\,\mathrm dF/\mathrm dv` of one point.

    :func:`~.batched._eliminate_points` for one point, operation for operation; where a multiplier exceeds
    ``growth`` (or a pivot is zero), Gaussian elimination with partial pivoting instead (LAPACK's choice of
    pivots; NaN where the matrix is singular).
    """
    u = F.size
    _fill(J, F, dF, a, b)
    exchange = False
    for k in range(u - 1):
        for r in range(k + 1, u):
            m = a[r, k] / a[k, k]
            if not abs(m) <= growth:
                exchange = True
            for c in range(k + 1, u):
                a[r, c] -= m * a[k, c]
            for c in range(2):
                b[r, c] -= m * b[k, c]
    last = a[u - 1, u - 1]
    if not np.isfinite(last) or last == 0.0:
        exchange = True
    if exchange:
        _fill(J, F, dF, a, b)
        pivoted(a, b)
    back_substitute(a, b, x)
    for k in range(u):
        step[k] = x[k, 0]
        rate[k] = -x[k, 1]


def _fill(J, F, dF, a, b):
    """The Newton system into the elimination's arrays: ``a = J``, ``b = [F, dF]``."""
    for r in range(F.size):
        b[r, 0] = F[r]
        b[r, 1] = dF[r]
        for c in range(F.size):
            a[r, c] = J[r, c]


def pivoted(a, b):
    """Forward elimination with partial pivoting of ``a x = b`` in place (``b``: k by 2); a zero pivot makes the
    whole system NaN. Then :func:`back_substitute`."""
    u = a.shape[0]
    for k in range(u - 1):
        pivot = k
        for r in range(k + 1, u):
            if abs(a[r, k]) > abs(a[pivot, k]):
                pivot = r
        if pivot != k:
            for c in range(u):
                a[k, c], a[pivot, c] = a[pivot, c], a[k, c]
            for c in range(2):
                b[k, c], b[pivot, c] = b[pivot, c], b[k, c]
        if a[k, k] == 0.0:
            a[:, :] = math.nan
            return
        for r in range(k + 1, u):
            m = a[r, k] / a[k, k]
            for c in range(k + 1, u):
                a[r, c] -= m * a[k, c]
            for c in range(2):
                b[r, c] -= m * b[k, c]
    if a[u - 1, u - 1] == 0.0:
        a[:, :] = math.nan


def back_substitute(a, b, x):
    """``x`` from the upper triangle of ``a`` and the two columns of ``b``, in the order of :mod:`.batched`."""
    u = a.shape[0]
    for k in range(u - 1, -1, -1):
        for c in range(2):
            if k < u - 1:
                total = a[k, k + 1] * x[k + 1, c]
                for j in range(k + 2, u):
                    total += a[k, j] * x[j, c]
                x[k, c] = (b[k, c] - total) / a[k, k]
            else:
                x[k, c] = b[k, c] / a[k, k]


def _physical(branch, relations, t, variable, value, X, sides):
    """:func:`~.path.physical` of one point (``X`` holds its parameters, :func:`_load`)."""
    if branch is None:
        return True
    _arguments(t, variable, value, X)
    branch(X, sides)
    scale = 1.0 + _max_abs(t) if t.size else 1.0
    for k in range(relations.size):
        lhs, rhs = sides[2 * k, 0], sides[2 * k + 1, 0]
        slack = BRANCH_SLACK * _nan_max(_nan_max(abs(lhs), abs(rhs)), scale)
        relation = relations[k]
        if relation == 0:
            ok = lhs > rhs
        elif relation == 1:
            ok = lhs >= rhs - slack
        elif relation == 2:
            ok = lhs < rhs
        else:
            ok = lhs <= rhs + slack
        if not ok:
            return False
    return True


def _newton(residual, t, variable, value, tolerance, w):
    """:func:`~.path.newton` of one point, in place on ``t``; returns ``(converged, size)``, the rate in ``w.rate``."""
    X, out, F, J, dF, a, b, x, step, rate = w.X, w.out, w.F, w.J, w.dF, w.a, w.b, w.x, w.step, w.rate
    size = math.inf
    for _ in range(MAX_NEWTON + 1):
        _evaluate(residual, t, variable, value, X, out, F, J, dF)
        size = _max_abs(F)
        _solve(J, F, dF, 1.0, a, b, x, step, rate)
        if np.isfinite(size) and size <= tolerance * (1.0 + _max_abs(t)):
            return True, size
        if not _all_finite(step):
            return False, size
        for k in range(t.size):
            t[k] -= step[k]
    return False, size


def _within_prediction(correction, guess, t, componentwise):
    """:func:`~.path._within_prediction` of one point (``change = guess - t``)."""
    u = t.size
    if componentwise:
        for k in range(u):
            allowed = abs(guess[k] - t[k]) + 1e-3 * (1.0 + abs(t[k]))
            if not abs(correction[k]) <= STEP_CONTROL * allowed:
                return False
        return True
    change = 0.0
    for k in range(u):
        change = _nan_max(change, abs(guess[k] - t[k]))
    allowed = change + 1e-3 * (1.0 + _max_abs(t))
    return _max_abs(correction) <= STEP_CONTROL * allowed


def _corrected_step(residual, branch, relations, t, rate, v_from, v_to, variable, rules, new, new_rate, guess, w):
    """:func:`~.path._corrected_step` of one point: ``new``, ``new_rate`` in place; returns whether accepted."""
    X, out, F, J, dF, a, b, x, step, step_rate = w.X, w.out, w.F, w.J, w.dF, w.a, w.b, w.x, w.step, w.rate
    corrections, tolerance, monotone = rules.corrections, rules.tolerance, rules.monotone
    u = t.size
    scale = (v_from / v_to) if rules.reciprocal else 1.0
    for k in range(u):
        guess[k] = t[k] + rate[k] * (v_to - v_from) * scale
        new[k] = guess[k]
        new_rate[k] = rate[k]
    previous = math.inf
    for k in range(corrections + 1):
        _evaluate(residual, new, variable, v_to, X, out, F, J, dF)
        size = _max_abs(F)
        _solve(J, F, dF, PATH_GROWTH, a, b, x, step, step_rate)
        for j in range(u):
            new_rate[j] = step_rate[j]
        finite = np.isfinite(size) and _all_finite(step) and _all_finite(new_rate)
        converged = finite and size <= tolerance * (1.0 + _max_abs(new))
        if converged:
            converged = _physical(branch, relations, new, variable, v_to, w.branch_X, w.sides)
        if converged:
            return True
        keep = finite and size <= (0.5 if monotone else 1e3) * previous
        if k == 0:
            keep = keep and _within_prediction(step, guess, t, rules.componentwise)
        previous = size
        if not keep:
            return False
        for j in range(u):
            new[j] -= step[j]
    return False


def _work(u, arguments, outputs, branch_outputs):
    """The scratch arrays of one point (:data:`Work`), allocated once per call of a loop."""
    return Work(np.empty((arguments, 1)), np.empty((outputs, 1)), np.empty(u), np.empty((u, u)), np.empty(u),
                np.empty((u, u)), np.empty((u, 2)), np.empty((u, 2)), np.empty(u), np.empty(u),
                np.empty((arguments, 1)), np.empty((max(branch_outputs, 1), 1)))


def _begin(table, i, source, t, w):
    """Point ``i``: its parameters into the arguments of both functions, its unknowns from ``source`` into ``t``."""
    _load(table[:, i], t.size, w.X)
    _load(table[:, i], t.size, w.branch_X)
    for k in range(t.size):
        t[k] = source[k, i]


def path_points(residual, branch, shape, points, rules, out):
    """:func:`~.path.continue_path` from the start for every column of ``points.table`` (P, N): ``points.t0`` (U, N)
    at ``points.start``, down to ``points.target``, by the step ``rules`` (:data:`StepRules`). Writes the unknowns,
    their rate and the value reached into ``out`` (:data:`PathOut`); ``out.status`` is REACHED, NEWTON_FAILED
    (``out.detail``: the residual) or STALLED (``out.detail``: the value where it stalled)."""
    table, variable, start, target, t0 = points.table, points.variable, points.start, points.target, points.t0
    t_out, rate_out, value_out, status, detail = out.t, out.rate, out.value, out.status, out.detail
    relations = shape.relations
    u, n = t0.shape[0], t0.shape[1]
    w = _work(u, u + table.shape[0], shape.outputs, shape.branch_outputs)
    t = np.empty(u)
    rate = np.empty(u)
    new = np.empty(u)
    new_rate = np.empty(u)
    guess = np.empty(u)
    first_ratio = 10.0 ** (1.0 / STEPS_PER_DECADE)
    for i in range(n):
        _begin(table, i, t0, t, w)
        converged, size = _newton(residual, t, variable, start[i], TOLERANCE, w)
        for k in range(u):
            rate[k] = w.rate[k]
        value = start[i]
        status[i] = REACHED
        if not converged:
            status[i] = NEWTON_FAILED
            detail[i] = size
        ratio = first_ratio
        while status[i] == REACHED and value > target[i]:
            v_next = _nan_max(value / ratio, target[i])
            if _corrected_step(residual, branch, relations, t, rate, value, v_next, variable, rules, new, new_rate,
                               guess, w):
                for k in range(u):
                    t[k] = new[k]
                    rate[k] = new_rate[k]
                value = v_next
                ratio = min(ratio ** 1.5, rules.max_ratio)
            else:
                ratio = math.sqrt(ratio)
                if ratio < MIN_RATIO:
                    status[i] = STALLED
                    detail[i] = value
        for k in range(u):
            t_out[k, i] = t[k] if status[i] == REACHED else math.nan
            rate_out[k, i] = rate[k] if status[i] == REACHED else math.nan
        value_out[i] = value


def polish_points(residual, branch, shape, points, out):
    """Newton at ``points.target`` from ``points.t`` (in place), the refinements of :func:`~.path.refine` where it
    converged, and the branch conditions: :func:`~.exact._polish` for every column of ``points.table``
    (:data:`PolishPoints`); converged, the residual and the rate go to ``out`` (:data:`PolishOut`)."""
    table, variable, target, t_io = points.table, points.variable, points.target, points.t
    refinements = points.refinements
    ok, residual_out, rate_out = out.ok, out.residual, out.rate
    relations = shape.relations
    u, n = t_io.shape[0], t_io.shape[1]
    w = _work(u, u + table.shape[0], shape.outputs, shape.branch_outputs)
    t = np.empty(u)
    previous = np.empty(u)
    for i in range(n):
        _begin(table, i, t_io, t, w)
        converged, size = _newton(residual, t, variable, target[i], TOLERANCE, w)
        rate = w.rate
        for k in range(u):
            rate_out[k, i] = rate[k]
        if converged:
            X, values, F, J, dF, a, b, x, step, step_rate = w.X, w.out, w.F, w.J, w.dF, w.a, w.b, w.x, w.step, w.rate
            for count in range(refinements + 1):
                _evaluate(residual, t, variable, target[i], X, values, F, J, dF)
                now = _max_abs(F)
                if count:
                    if not (np.isfinite(now) and now < size):
                        for k in range(u):
                            t[k] = previous[k]
                        break
                    size = now
                _solve(J, F, dF, 1.0, a, b, x, step, step_rate)
                for k in range(u):
                    rate_out[k, i] = step_rate[k]
                if count == refinements or not _all_finite(step):
                    break
                for k in range(u):
                    previous[k] = t[k]
                    t[k] -= step[k]
            converged = _physical(branch, relations, t, variable, target[i], w.branch_X, w.sides)
        ok[i] = converged
        residual_out[i] = size
        for k in range(u):
            t_io[k, i] = t[k]


def error_points(residual, outputs, table, variable, t_in, error):
    """:func:`~.exact.newton_error` for every column of ``table``: one Newton step at ``t_in``, relative to each
    unknown (an unknown below 1e-12 of the largest measured against that)."""
    u, n = t_in.shape[0], t_in.shape[1]
    w = _work(u, u + table.shape[0], outputs, 0)
    X, out, F, J, dF, a, b, x, step, rate = w.X, w.out, w.F, w.J, w.dF, w.a, w.b, w.x, w.step, w.rate
    t = np.empty(u)
    for i in range(n):
        _begin(table, i, t_in, t, w)
        _evaluate(residual, t, variable, table[variable, i], X, out, F, J, dF)
        _solve(J, F, dF, 1.0, a, b, x, step, rate)
        floor = 1e-12 * _max_abs(t)
        worst = 0.0
        for k in range(u):
            worst = _nan_max(worst, abs(step[k]) / _nan_max(abs(t[k]), floor))
        error[i] = worst


_HELPERS = (_nan_max, _max_abs, _all_finite, _load, _arguments, _evaluate, _solve, _fill, pivoted, back_substitute, _begin,
            _physical, _newton, _within_prediction, _corrected_step, _work)


class NativePath:
    """The compiled :func:`path_points`, :func:`polish_points` and :func:`error_points` of one exact system."""

    def __init__(self, compiled: CompiledSystem) -> None:
        self.compiled = compiled
        self.relations = np.array([RELATIONS.index(r) for r in compiled.branch], dtype=np.int64)
        u = len(compiled.unknowns)
        self.outputs = u + u * u + u
        self.branch_outputs = 2 * len(compiled.branch)
        self.budget = jit.Budget(self._build, LOOPS_COMPILE_SECONDS)

    def _build(self):
        residual = self.compiled.residual_native.machine_code()
        branch = self.compiled.branch_native.machine_code() if self.compiled.branch else None
        if residual is None or (self.compiled.branch and branch is None):
            raise TypeError("the residual or branch function has no machine code")
        compiled = (residual, branch, *_compiled_loops())
        self._warm(compiled)
        return compiled

    def _shape(self) -> Shape:
        """The loops' :data:`Shape` of this system (read at each call: a test plants wrong ``relations``)."""
        return Shape(self.relations, self.outputs, self.branch_outputs)

    def _warm(self, compiled) -> None:
        """Compile the loops for this system's functions now (a call on no points), so that compiling is the
        budget's cost and not that of the first solve."""
        residual, branch, path, polish, errors = compiled
        u, p = len(self.compiled.unknowns), len(self.compiled.parameters)
        table, none, columns = np.zeros((p, 0)), np.zeros(0), np.zeros((u, 0))
        rules = StepRules(True, 1, 1.0, True, True, 2.0)
        path(residual, branch, self._shape(), PathPoints(table, 0, none, none, columns), rules,
             PathOut(columns.copy(), columns.copy(), none.copy(), np.zeros(0, np.int64), none.copy()))
        polish(residual, branch, self._shape(), PolishPoints(table, 0, none, columns.copy(), 0),
               PolishOut(np.zeros(0, bool), none.copy(), columns.copy()))
        errors(residual, self.outputs, table, 0, columns, none.copy())

    def path(self, table, variable: int, start, target, t0, rules):
        """:func:`path_points` as arrays ``(t, rate, value, status, detail)``, or None while not compiled."""
        native = self.budget.native()
        if native is None:
            return None
        residual, branch, path, _, _ = native
        u, n = t0.shape
        out = PathOut(np.empty((u, n)), np.empty((u, n)), np.empty(n), np.empty(n, np.int64), np.zeros(n))
        points = PathPoints(np.ascontiguousarray(table, float), variable, np.ascontiguousarray(start, float),
                            np.ascontiguousarray(target, float), np.ascontiguousarray(t0, float))
        steps = StepRules(self.compiled.predictor == "reciprocal", rules.corrections, rules.tolerance, rules.monotone,
                          rules.componentwise, rules.max_ratio)
        path(residual, branch, self._shape(), points, steps, out)
        return tuple(out)

    def polish(self, table, variable: int, target, t, refinements: int):
        """:func:`polish_points` as ``(t, ok, residual, rate)``, or None while not compiled."""
        native = self.budget.native()
        if native is None:
            return None
        residual, branch, _, polish, _ = native
        u, n = t.shape
        t = np.array(t, dtype=float, order="C")
        out = PolishOut(np.zeros(n, bool), np.empty(n), np.empty((u, n)))
        points = PolishPoints(np.ascontiguousarray(table, float), variable, np.ascontiguousarray(target, float), t,
                              refinements)
        polish(residual, branch, self._shape(), points, out)
        return (t, *out)

    def newton_error(self, table, variable: int, t):
        """:func:`error_points` as an array, or None while not compiled."""
        native = self.budget.native()
        if native is None:
            return None
        residual, _, _, _, errors = native
        error = np.empty(t.shape[1])
        errors(residual, self.outputs, np.ascontiguousarray(table, float), variable, np.ascontiguousarray(t, float),
               error)
        return error


_LOOPS: list = []


def _compiled_loops():
    """:func:`path_points`, :func:`polish_points` and :func:`error_points` as Numba dispatchers (each compiled for a
    system's functions at its first call). Every function here is re-bound to a namespace in which the helpers it calls are their Numba
    versions; the module's own functions stay Python."""
    if not _LOOPS:
        namespace = dict(globals())
        for function in (*_HELPERS, path_points, polish_points, error_points):
            namespace[function.__name__] = jit.njit_lazy(
                types.FunctionType(function.__code__, namespace, function.__name__))
        _LOOPS.extend([namespace["path_points"], namespace["polish_points"], namespace["error_points"]])
    return _LOOPS


_PATHS: "weakref.WeakKeyDictionary[CompiledSystem, NativePath]" = weakref.WeakKeyDictionary()


def native_path(compiled: CompiledSystem) -> NativePath | None:
    """The machine-code path of an exact real system with machine-code residuals (None for any other system)."""
    if compiled.residual_native is None or (compiled.branch and compiled.branch_native is None):
        return None
    path = _PATHS.get(compiled)
    if path is None:
        path = _PATHS[compiled] = NativePath(compiled)
    return path

r"""Newton's method and continuation along the system's continuation variable.

The physical solution is reached from the system's start value of the continuation
variable :math:`v` (where Newton from the initial guess lands on it) by following
it down to each target: an Euler predictor from the implicit derivative
:math:`\mathrm dt/\mathrm dv = -J^{-1}\,\mathrm dF/\mathrm dv`, a few verified Newton
corrections, and step halving where they fail. Points that share every parameter but
:math:`v` form a curve and are predicted from a few anchors on it. Every Newton step is
:func:`~.curve.newton_step`, the one of :mod:`.curve`, where a single costly system (a numeric model's own)
is followed with a higher-order predictor instead: the package's two continuations, one for many cheap compiled
points at once, one for one curve of expensive evaluations.
"""
from __future__ import annotations

from dataclasses import dataclass

from typing import Any

import numpy as np

from ..errors import ConvergenceError
from .curve import newton_step
from .native_path import NEWTON_FAILED, STALLED, native_path
from .problem import Problem, stack
from .settings import (BRANCH_SLACK, MAX_NEWTON, MAX_RATIO, MIN_RATIO, PATH_FLOOR, PATH_GROWTH, PATH_NEWTON,
                       PATH_TOLERANCE, STEP_CONTROL, STEPS_PER_DECADE, TOLERANCE)

__all__ = ["newton", "newton_step", "refine", "continue_path", "starting_values", "start_values",
           "physical", "PathRules"]


@dataclass(frozen=True)
class PathRules:
    """When a continuation step is accepted (the defaults are the rules of systems solved by quadrature).

    ``corrections``: Newton corrections allowed in one step; ``tolerance``: the residual, relative to
    1 + max |t|, at which a step has converged (the targets are polished to TOLERANCE). ``monotone``: each
    correction must halve the residual (else the step is given up early). ``componentwise``: the first
    correction must be no larger than the predicted change unknown by unknown (else in the max norm over the
    unknowns, which suits unknowns of very different scales). ``max_ratio``: the largest step ratio.
    """

    corrections: int = PATH_NEWTON
    tolerance: float = PATH_TOLERANCE
    monotone: bool = True
    componentwise: bool = True
    max_ratio: float = MAX_RATIO


def newton(problem: Problem, t, value, index, tolerance: float = TOLERANCE):
    """Newton iterations from ``t`` (``value`` of the variable aligned with ``index``); converged points stop.

    Returns ``(t, converged, residual, rate)`` where ``rate`` is dt/dv from the
    Jacobian of the last evaluation (used as the next predictor at no extra cost).
    """
    t = np.array(t, dtype=problem.dtype)
    done = np.zeros(index.size, bool)
    size = np.full(index.size, np.inf)
    rate = np.zeros_like(t)
    live = np.arange(index.size)
    for _ in range(MAX_NEWTON + 1):
        residual, jacobian, dF_dv = problem.newton_system(t[:, live], value[live], index[live])
        size[live] = np.max(np.abs(residual), axis=0)
        step, rate[:, live] = newton_step(residual, jacobian, dF_dv)
        converged = np.isfinite(size[live]) & (size[live] <= tolerance * (1 + np.max(np.abs(t[:, live]), axis=0)))
        done[live[converged]] = True
        move = ~converged & np.all(np.isfinite(step), axis=0)
        t[:, live[move]] -= step[:, move]
        live = live[move]
        if not live.size:
            break
    return t, done, size, rate


def refine(problem: Problem, t, target, index, residual, rate, steps: int) -> None:
    r"""``steps`` Newton steps from the converged points ``index`` (in place), each kept where it lowers ``residual``.

    Newton's stopping rule is relative to :math:`1 + \max_u |t_u|`, so where one unknown is large (of order
    :math:`1/v` at a small continuation variable :math:`v`) it stops the small ones well before round-off; these
    steps take them there. ``residual`` and ``rate`` are updated for the points whose step was kept.
    """
    live, previous = index, t[:, :0]
    for step_count in range(steps + 1):
        if not live.size:
            return
        values, jacobian, dF_dv = problem.newton_system(t[:, live], target[live], live)
        size = np.max(np.abs(values), axis=0)
        if step_count:                          # keep the step where it helped; go back where it did not
            better = np.isfinite(size) & (size < residual[live])
            t[:, live[~better]] = previous[:, ~better]
            live, values, jacobian, dF_dv = live[better], values[:, better], jacobian[better], dF_dv[:, better]
            residual[live] = size[better]
        step, rate[:, live] = newton_step(values, jacobian, dF_dv)
        if step_count == steps:
            return
        finite = np.all(np.isfinite(step), axis=0)
        live, step = live[finite], step[:, finite]
        previous = t[:, live].copy()
        t[:, live] -= step


def physical(problem: Problem, t, value, index) -> np.ndarray:
    """The system's branch conditions at ``t`` (non-strict ones with a round-off slack, relative to the sides or to 1 + |t|)."""
    ok = np.ones(index.size, bool)
    if not problem.compiled.branch:
        return ok
    params = problem.params(index, value, column=False)
    scale = 1 + np.max(np.abs(t), axis=0) if len(t) else 1.0
    with np.errstate(all="ignore"):
        sides = problem.compiled.branch_sides(t, params)
        for k, relation in enumerate(problem.compiled.branch):
            lhs, rhs = np.real(sides[2 * k]), np.real(sides[2 * k + 1])     # broadcast against ok
            slack = BRANCH_SLACK * np.maximum(np.maximum(np.abs(lhs), np.abs(rhs)), scale)
            if relation == ">":
                ok &= lhs > rhs
            elif relation == ">=":
                ok &= lhs >= rhs - slack
            elif relation == "<":
                ok &= lhs < rhs
            else:
                ok &= lhs <= rhs + slack
    return ok


def start_values(problem: Problem, index) -> np.ndarray:
    """The continuation variable's start for the points ``index`` (never below their targets)."""
    params = problem.params(index, column=False)
    start = np.broadcast_to(problem.compiled.start(params), (index.size,))
    return np.maximum(start, problem.flat[problem.variable][index])


def continue_path(problem: Problem, index: np.ndarray, stop=None, resume=None, failures: dict | None = None,
                  rules: PathRules = PathRules()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Continuation for the points ``index``, from their start value down to their targets.

    ``stop`` (an array aligned with ``index``) ends the path at ``max(stop, target)`` instead;
    ``resume = (value, t, rate)`` starts it from a point of a path already followed.

    Each point moves by its own ratio ``v -> v / ratio``: Euler predictor in
    :math:`1/v` from the implicit derivative, then at most PATH_NEWTON Newton corrections,
    each of which must shrink the residual by half. A step is accepted only when the
    residual is below PATH_TOLERANCE, the first correction is no larger than the predicted
    change (STEP_CONTROL: the predictor was inside Newton's basin of the branch being
    followed) and the branch conditions hold; then the ratio grows, up to MAX_RATIO.
    Otherwise the point stays where it was (a converged point of its branch) and retries
    with the square root of the ratio. All points advance together. A target below
    PATH_FLOOR times the start (e.g. 0) is approached to that floor. ``rules`` relax these
    criteria for cheap exact systems (:class:`PathRules`).

    A point whose path cannot be followed (Newton fails at its start, or its step ratio falls
    below MIN_RATIO) raises :class:`ConvergenceError`; with a ``failures`` dict it is recorded
    there instead (position in ``index`` -> reason), its unknowns are NaN and the others go on.
    Returns ``(t, rate, value)``. An exact system's path from the start runs in the compiled loop of
    :mod:`.native_path` once it is compiled (the same steps, agreeing to round-off).
    """
    compiled = problem.compiled
    start = start_values(problem, index)
    target = np.maximum(problem.flat[problem.variable][index], PATH_FLOOR * start)
    if stop is not None:
        target = np.maximum(target, stop)
    if resume is None:
        t0 = stack(compiled.initial(problem.params(index, start, column=False)), index.size, problem.dtype)
        native = native_path(compiled) if stop is None else None
        done = None if native is None else native.path(np.take(problem.table, index, axis=1),
                                                        compiled.variable_index, start, target, t0, rules)
        if done is not None:
            return _native_ends(problem, index, done, failures)
        t, ok, res, rate = newton(problem, t0, start, index)
        where = "at the start of the continuation"
        value = start.copy()
    else:                               # polish the resumed point with this problem's rule first
        value, t, _ = (np.array(x) for x in resume)
        t, ok, res, rate = newton(problem, t, value, index)
        ok &= physical(problem, t, value, index)
        where = "where the continuation changes rule"
    lost = _give_up(problem, index, ~ok, lambda i: _newton_failed(where, res[i]), failures)
    ratio = np.full(index.size, 10.0 ** (1.0 / STEPS_PER_DECADE))
    active = np.flatnonzero((value > target) & ~lost)
    while active.size:
        v_next = np.maximum(value[active] / ratio[active], target[active])
        new, new_rate, ok = _corrected_step(problem, t[:, active], rate[:, active], value[active], v_next,
                                            index[active], rules)
        moved = active[ok]
        t[:, moved], rate[:, moved], value[moved] = new[:, ok], new_rate[:, ok], v_next[ok]
        ratio[moved] = np.minimum(ratio[moved] ** 1.5, rules.max_ratio)
        stuck = active[~ok]
        ratio[stuck] = np.sqrt(ratio[stuck])
        stalled = np.zeros(index.size, bool)
        stalled[stuck[ratio[stuck] < MIN_RATIO]] = True
        lost |= _give_up(problem, index, stalled, lambda i: _stalled(problem, value[i]), failures)
        active = active[(value[active] > target[active]) & ~lost[active]]
    t[:, lost] = np.nan
    rate[:, lost] = np.nan
    return t, rate, value


def _newton_failed(where: str, residual: float) -> str:
    return f"Newton failed {where} (residual {residual:.3g})"


def _stalled(problem: Problem, value: Any) -> str:
    return (f"the continuation of the {problem.compiled.name} fixed point stalled at {problem.variable}={value:.4g}; "
            f"try a larger {problem.variable} or report this case")


def _native_ends(problem: Problem, index, done, failures: dict | None):
    """``(t, rate, value)`` of :func:`continue_path` from what the compiled path (:mod:`.native_path`) reached,
    its failed points given up as the NumPy code gives them up."""
    t, rate, value, status, detail = done
    _give_up(problem, index, status == NEWTON_FAILED,
             lambda i: _newton_failed("at the start of the continuation", detail[i]), failures)
    _give_up(problem, index, status == STALLED, lambda i: _stalled(problem, detail[i]), failures)
    return t, rate, value


def _give_up(problem: Problem, index, bad: np.ndarray, reason, failures: dict | None) -> np.ndarray:
    """Record ``reason(i)`` for the positions ``bad`` in ``failures``, or raise for the first if there is none."""
    if failures is None:
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ConvergenceError(f"{problem.compiled.name}: {reason(first)} at {problem.where(index[first])}.")
        return bad
    for i in np.flatnonzero(bad):
        failures[int(i)] = reason(i)
    return bad


def _corrected_step(problem: Problem, t, rate, v_from, v_to, index, rules: PathRules = PathRules()):
    """One predictor-corrector step; returns ``(t, rate, accepted)`` (rate from the last Jacobian)."""
    # Euler step in s = 1/v (dt/ds = -v^2 dt/dv) for unknowns analytic in 1/v (t ~ 1/v, where a step
    # in v itself would badly undershoot), or in v itself for unknowns with a finite limit at v = 0.
    scale = (v_from / v_to) if problem.compiled.predictor == "reciprocal" else 1.0
    guess = t + rate * (v_to - v_from) * scale
    new, new_rate = guess.copy(), rate.copy()
    accepted = np.zeros(index.size, bool)
    live = np.arange(index.size)
    previous = np.full(index.size, np.inf)
    for k in range(rules.corrections + 1):
        residual, jacobian, dF_dv = problem.newton_system(new[:, live], v_to[live], index[live])
        size = np.max(np.abs(residual), axis=0)
        correction, new_rate[:, live] = newton_step(residual, jacobian, dF_dv, PATH_GROWTH)
        finite = (np.isfinite(size) & np.all(np.isfinite(correction), axis=0)
                  & np.all(np.isfinite(new_rate[:, live]), axis=0))
        converged = finite & (size <= rules.tolerance * (1 + np.max(np.abs(new[:, live]), axis=0)))
        if converged.any():
            converged[converged] = physical(problem, new[:, live[converged]], v_to[live[converged]],
                                            index[live[converged]])
        accepted[live[converged]] = True
        keep = finite & ~converged & (size <= (0.5 if rules.monotone else 1e3) * previous[live])
        if k == 0:
            keep &= _within_prediction(correction, guess[:, live] - t[:, live], t[:, live], rules.componentwise)
        previous[live] = size
        new[:, live[keep]] -= correction[:, keep]
        live = live[keep]
        if not live.size:
            break
    return new, new_rate, accepted


def _within_prediction(correction, change, t, componentwise: bool) -> np.ndarray:
    """Whether the first Newton correction is no larger than the predicted change (STEP_CONTROL times it)."""
    if componentwise:
        allowed = np.abs(change) + 1e-3 * (1 + np.abs(t))
        return np.all(np.abs(correction) <= STEP_CONTROL * allowed, axis=0)
    allowed = np.max(np.abs(change), axis=0) + 1e-3 * (1 + np.max(np.abs(t), axis=0))
    return np.max(np.abs(correction), axis=0) <= STEP_CONTROL * allowed


def _anchors(problem: Problem) -> np.ndarray:
    """For each point, the index of the point it is predicted from (itself if it is an anchor).

    Points that share every parameter but the continuation variable form a curve; along a
    curve, the variable is cut into bins of 1/STEPS_PER_DECADE decade below the curve's
    largest value, and the largest value of each bin is its anchor. Only anchors are
    continued from the start; the rest take one Euler step from their anchor.
    """
    value = problem.flat[problem.variable]
    floor = np.maximum(value, np.finfo(float).tiny)
    others = [problem.flat[k] for k in problem.keys if k != problem.variable]
    if others:
        _, curve = np.unique(np.stack(others, axis=1), axis=0, return_inverse=True)
        curve = curve.ravel()
    else:
        curve = np.zeros(value.size, int)
    top = np.zeros(curve.max() + 1)
    np.maximum.at(top, curve, floor)
    bins = np.floor(STEPS_PER_DECADE * np.log10(top[curve] / floor)).astype(int)
    order = np.lexsort((-value, bins, curve))          # within (curve, bin): largest value first
    key = np.stack([curve[order], bins[order]], axis=1)
    first = np.ones(order.size, bool)
    first[1:] = np.any(key[1:] != key[:-1], axis=1)
    anchor_of_sorted = order[np.maximum.accumulate(np.where(first, np.arange(order.size), 0))]
    anchor = np.empty_like(order)
    anchor[order] = anchor_of_sorted
    return anchor


def starting_values(problem: Problem, failures: dict | None = None, rules: PathRules = PathRules()) -> np.ndarray:
    """Starting values of the unknowns at every target.

    Anchors are continued to their targets; every other point gets one Euler step
    from its anchor (the caller then polishes all of them with Newton, and falls
    back to continuation where that fails). An anchor whose path failed is recorded
    in ``failures`` (point -> reason; without it, it raises) and gets NaN, as do the
    points predicted from it, so that the caller's fallback follows their own paths.
    """
    if not problem.compiled.unknowns:
        return np.zeros((0, problem.size), dtype=problem.dtype)
    anchor = _anchors(problem)
    anchors = np.unique(anchor)
    lost: dict[int, str] | None = None if failures is None else {}
    t_anchor, rate_anchor, _ = continue_path(problem, anchors, failures=lost, rules=rules)
    if failures is not None and lost is not None:
        failures.update({int(anchors[k]): reason for k, reason in lost.items()})
    position = np.searchsorted(anchors, anchor)
    value = problem.flat[problem.variable]
    return t_anchor[:, position] + rate_anchor[:, position] * (value - value[anchor])

r"""Systems without spectral averages (an algebraic form): continuation and Newton, no quadrature levels.

A system whose residuals and observables are closed-form expressions of its unknowns has nothing
to refine: the continuation reaches each target (:func:`~.path.starting_values`: anchors along each
curve, Euler steps between them), Newton polishes every point with the same functions, and the
observables are evaluated once. Points whose polished solution fails the branch conditions are
continued on their own from the start, as in the quadrature levels.

Newton's stopping rule is relative to :math:`1 + \max_u |t_u|`: where one unknown is large (of order
:math:`1/v` at a small continuation variable :math:`v`) it stops the small ones (e.g. the coordinates of an
algebraic form's transform) up to :math:`10^{-5}` from their root, and the observables 1e-9 from theirs
(benchmarks/agreement.py). An exact system is cheap to evaluate: every converged point takes
:data:`~.settings.EXACT_REFINEMENTS` further Newton steps, each kept only where it lowers the residual, so that
the residual ends near round-off whatever the scale of the unknowns. :func:`newton_error` estimates the error
left: one more Newton step, relative to each unknown.
"""
from __future__ import annotations

import time

import numpy as np

from .compiled import CompiledSystem
from .native_path import native_path
from .observe import evaluate
from .path import PathRules, continue_path, newton, newton_step, physical, refine, starting_values
from .problem import Problem
from .settings import EXACT_CORRECTIONS, EXACT_MAX_RATIO, EXACT_PATH_TOLERANCE, EXACT_REFINEMENTS

__all__ = ["solve_exact", "newton_error", "EXACT_RULES"]

#: Steps of an exact system: Newton may take more (cheap) corrections and need not decrease the residual
#: monotonically (unknowns of very different sizes, e.g. t ~ 1/v next to bounded ones), the correction
#: is compared with the predicted change in the max norm.
EXACT_RULES = PathRules(corrections=EXACT_CORRECTIONS, tolerance=EXACT_PATH_TOLERANCE, monotone=False,
                        componentwise=False, max_ratio=EXACT_MAX_RATIO)


def solve_exact(problem: Problem):
    """``(observables, residual, unknowns, failures)`` of a problem whose system has no spectral law.

    ``failures`` maps a point that could not be solved to the reason (its values are NaN), as in
    :func:`symrmt.solve.solve`.
    """
    native = native_path(problem.compiled)
    numpy_code = native is not None and not native.budget.ready       # its time is what the compiled loops save
    start = time.perf_counter()
    local = np.arange(problem.size)
    target = problem.flat[problem.variable]
    t = starting_values(problem, {}, EXACT_RULES)     # a failed anchor: NaN, its points continued alone below
    t, ok, residual, rate = _polish(problem, t, target, local)
    lost: dict[int, str] = {}
    if not ok.all():                  # an Euler step from the anchor left the basin: continue these points alone
        retry = local[~ok]
        path_failures: dict[int, str] = {}
        t[:, retry] = continue_path(problem, retry, failures=path_failures, rules=EXACT_RULES)[0]
        lost = {int(retry[k]): reason for k, reason in path_failures.items()}
        t, ok, residual, rate = _polish(problem, t, target, local)
    if numpy_code and native is not None:
        native.budget.spend(time.perf_counter() - start)
    failures = {int(i): lost.get(int(i)) or (f"Newton did not converge at the target (residual {residual[i]:.3g})"
                                              if not residual[i] <= 1e-9 else
                                              "the solution at the target is not on the physical branch")
                for i in local[~ok]}
    out = {o.key: np.full(problem.size, np.nan, dtype=problem.dtype) for o in problem.compiled.observables}
    if ok.any():
        for key, (value, _) in evaluate(problem, t[:, ok], rate[:, ok], local[ok]).items():
            out[key][ok] = value
    return out, residual, t, failures


def _polish(problem: Problem, t, target, local):
    """Newton at the targets, the refinements and the branch conditions: ``(t, ok, residual, rate)``, by the compiled
    path (:mod:`.native_path`) once there is one."""
    if not len(t):
        return t, np.ones(local.size, bool), np.zeros(local.size), t
    native = native_path(problem.compiled)
    done = None if native is None else native.polish(np.take(problem.table, local, axis=1),
                                                     problem.compiled.variable_index, target[local], t,
                                                     EXACT_REFINEMENTS)
    if done is not None:
        return done
    t, ok, residual, rate = newton(problem, t, target, local)
    refine(problem, t, target, local[ok], residual, rate, EXACT_REFINEMENTS)
    return t, ok & physical(problem, t, target, local), residual, rate


def newton_error(compiled: CompiledSystem, params: dict, unknowns: np.ndarray) -> np.ndarray:
    r"""The relative error of each point's unknowns, estimated by one Newton step there: :math:`\max_u |\delta_u|/|t_u|`.

    :math:`\delta = J^{-1}F` at the solution ``unknowns`` (U, N) of an exact system at the flat ``params`` (keyed by
    its parameters). Where the root is well conditioned this is round-off (1e-17 to 1e-11 measured); where it
    is not, the residual stays at the round-off of its evaluation and :math:`J^{-1}` amplifies it. An unknown
    smaller than 1e-12 of the largest is measured against that (a zero coordinate has no relative error).
    """
    t = np.asarray(unknowns)
    shape = t.shape[1:]
    problem = Problem(compiled, {k: np.broadcast_to(np.asarray(params[k], float), shape).ravel().copy()
                                 for k in compiled.parameters}, nodes=1)
    index = np.arange(problem.size)
    native = native_path(compiled)
    error = None if native is None else native.newton_error(problem.table, compiled.variable_index,
                                                             t.reshape(len(t), -1))
    if error is not None:
        return error.reshape(t.shape[1:])
    with np.errstate(all="ignore"):
        step, _ = newton_step(*problem.newton_system(t, problem.flat[problem.variable], index))
        scale = np.maximum(np.abs(t), 1e-12 * np.max(np.abs(t), axis=0))
        return np.max(np.abs(step) / scale, axis=0)

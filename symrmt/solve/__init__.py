r"""Fast numeric solution of any derived fixed-point system (NumPy only; never imports SymPy).

Given a :class:`CompiledSystem` (a :class:`~symrmt.derive.FixedPointSystem` compiled by
:func:`symrmt.codegen.compile_system`) and one array per parameter, keyed by the system's
parameter symbols (all broadcast to one shape), :func:`solve`

1. averages over the system's spectral law with a quadrature rule
   (:mod:`.marchenko_pastur`: the midpoint rule in an angle variable,
   spectrally accurate), refined level by level until the embedded coarse rule agrees;
2. solves the residuals :math:`F(t, \tau(t)) = 0` by Newton's method with the Jacobian
   generated from SymPy, by continuation from the system's start value of its
   continuation variable down to each target (:mod:`.path`);
3. evaluates the observables (:mod:`.observe`), and those defined by a derivative along
   the continuation variable by implicit differentiation (no finite differences):
   :math:`J\,\dot t = -\mathrm dF/\mathrm dv`, then
   :math:`\dot\tau = \mathbb E_\lambda[\partial_v g + \partial_t g\,\dot t]` and the chain rule
   through the observables;
4. checks the system's branch conditions and admissible ranges.

It knows fixed-point systems, not models: everything model-specific (the start, the
branch, the ranges) comes with the system, and its symbols are opaque keys here. It
reports the residual of every point. Each point is followed on its own, so a point that
cannot be solved fails alone (:mod:`.failures`): :class:`~symrmt.errors.ConvergenceError`
names it, or with ``partial=True`` the others are returned and it is marked ``failed``.

See :func:`symrmt.codegen.compile_system` for an example.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Hashable, Mapping

import numpy as np

from ..runtime.cpus import usable_cpus
from ..runtime.memory import THREAD_RESERVE, room_for_thread
from ..errors import ConvergenceError, ParameterError
from .compiled import CompiledObservable, CompiledSystem
from .exact import solve_exact
from .failures import PointFailure, failure_message, point_failures
from .marchenko_pastur import RULES, marchenko_pastur_rule
from .parameters import Parameters, check_parameters
from .observe import admit, coarse_solution, evaluate, scale
from .path import continue_path, newton, physical, refine, start_values, starting_values
from .problem import Problem
from .settings import (BATCH_POINTS, CHUNK_ELEMENTS, INITIAL_NODES, MAX_NODES, NEAR_AXIS, PARALLEL_POINTS,
                       PATH_NODES, QUADRATURE_TOLERANCE, REFINEMENTS)

__all__ = ["SolveResult", "PointFailure", "solve", "Parameters", "check_parameters", "CompiledSystem", "CompiledObservable",
           "marchenko_pastur_rule", "RULES", "INITIAL_NODES", "MAX_NODES", "QUADRATURE_TOLERANCE"]


@dataclass(frozen=True)
class SolveResult:
    r"""Solution at each parameter point (arrays of the broadcast shape).

    Attributes
    ----------
    observables : dict
        Observable (the system's symbol) -> values; ``result[observable]`` reads one.
    unknowns : numpy.ndarray
        ``(U, ...)``: the solved unknowns, in the order of ``unknown_keys``.
    residual : numpy.ndarray
        :math:`\max_u |F_u|` at the solution.
    unknown_keys : tuple
        The system's unknowns (its symbols).
    failed : numpy.ndarray of bool
        True at the points that could not be solved (only with ``solve(..., partial=True)``;
        their observables and unknowns are NaN).
    failures : tuple of PointFailure
        Those points, with their parameters and reasons.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt import models
    >>> from symrmt.solve import solve
    >>> rank, parameters = models.LINEAR.bind(c=1.0, gamma=[0.1, 1.0])
    >>> result = solve(models.LINEAR.compiled(rank), parameters)
    >>> error = {str(k): v for k, v in result.observables.items()}["E"]
    >>> list(map(str, result.observables)), np.round(error, 4).tolist(), result.unknowns.shape
    (['Phi', 'E'], [0.1562, 0.4472], (0, 2))
    """

    observables: Mapping[Hashable, np.ndarray]
    unknowns: np.ndarray
    residual: np.ndarray
    unknown_keys: tuple
    failed: np.ndarray | None = None
    failures: tuple[PointFailure, ...] = ()

    def __getitem__(self, observable: Hashable) -> np.ndarray:
        return self.observables[observable]


def solve(system: CompiledSystem, params: Mapping, nodes: int = INITIAL_NODES,
          quadrature_tolerance: float = QUADRATURE_TOLERANCE, partial: bool = False) -> SolveResult:
    r"""Solve a compiled fixed-point system at every point of the broadcast parameter arrays.

    Parameters
    ----------
    system : CompiledSystem
        A derived system compiled by :func:`symrmt.codegen.compile_system` (once per system).
    params : Parameters or mapping
        One array (or scalar) per parameter of the system, keyed by the parameter's symbol
        (``system.parameters``), exactly those: checked by :func:`~.parameters.check_parameters` against
        the system's domains, or already :class:`~.parameters.Parameters` (checked once, trusted here).
    nodes : int
        Initial number of quadrature nodes (a multiple of 3). Points whose error
        estimate (full rule against the embedded rule with a third of the nodes)
        exceeds ``quadrature_tolerance`` are re-solved with three times as many
        nodes, up to :data:`MAX_NODES`.
    partial : bool
        What happens when some points cannot be solved (each point is solved on its own, so
        the others are not affected). False (default): :class:`~symrmt.errors.ConvergenceError`
        naming the first and carrying all of them in ``failures``. True: the result, with NaN
        in the observables and unknowns of those points, ``failed`` True there and the reasons
        in ``failures``.

    Returns
    -------
    SolveResult
        The observables by their symbols, the unknowns, the residuals and the failed points.

    Raises
    ------
    ParameterError
        Parameters outside the system's domains (unless given as checked :class:`~.parameters.Parameters`).
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    symrmt.codegen.compile_system : The compiled system it takes.
    symrmt.solve_model : Solves a registered model at the user's arguments.

    Examples
    --------
    >>> from symrmt import models
    >>> from symrmt.solve import solve
    >>> rank, parameters = models.ATTENTION.bind(f="tanh(x)", c=1.0, gamma=[1e-10, 0.1])
    >>> result = solve(models.ATTENTION.compiled(rank, "quadrature"), parameters, partial=True)
    >>> result.failed.tolist(), result.failures[0].parameters["gamma"]     # 1e-10: below what the quadrature resolves
    ([True, False], 1e-10)
    """
    if not isinstance(system, CompiledSystem):
        raise TypeError(f"solve takes a CompiledSystem, not {type(system).__name__}: compile a FixedPointSystem "
                        "with symrmt.codegen.compile_system first")
    compiled = system
    if not isinstance(params, Parameters):
        checked = check_parameters(compiled.parameters, compiled.domains, params)
    elif set(params.keys()) != set(compiled.parameters):
        raise ParameterError(f"the {compiled.name} system takes the parameters {[str(k) for k in compiled.parameters]}, "
                             f"not {[str(k) for k in params.keys()]}: check them for this system")
    else:
        checked = params
    shape = checked.shape
    problem = Problem(compiled, {k: checked[k] for k in compiled.parameters}, nodes)
    size = problem.size
    threads = _threads()
    batch = min(BATCH_POINTS, max(PARALLEL_POINTS, -(-size // threads)))
    batches = [problem.subset(slice(i, i + batch), nodes) for i in range(0, size, batch)]
    with np.errstate(all="ignore"):     # non-finite values are tested for and refused explicitly
        # Under ulimit -v each thread needs room for its stack, arena and BLAS buffer (symrmt.runtime.memory).
        if len(batches) > 1 and threads > 1 and room_for_thread((threads - 1) * THREAD_RESERVE):
            # NumPy releases the GIL inside its loops, so batches solved in threads use every core.
            with ThreadPoolExecutor(max_workers=threads) as pool:
                parts = list(pool.map(lambda part: _solve_flat(part, quadrature_tolerance), batches))
        else:
            parts = [_solve_flat(part, quadrature_tolerance) for part in batches]
    observables = {o.key: np.concatenate([part[0][o.key] for part in parts]) for o in compiled.observables}
    residual = np.concatenate([part[1] for part in parts])
    unknowns = np.concatenate([part[2] for part in parts], axis=1)
    reasons = {start + i: reason for start, part in zip(range(0, size, batch), parts) for i, reason in part[3].items()}
    for o in compiled.observables:
        if o.real and np.iscomplexobj(observables[o.key]):
            observables[o.key] = np.ascontiguousarray(observables[o.key].real)
    failed = np.zeros(size, bool)
    failed[list(reasons)] = True
    observables, unphysical = admit(problem, observables, residual, failed)
    reasons.update(unphysical)
    failed[list(unphysical)] = True
    for value in (*observables.values(), unknowns):
        value[..., failed] = np.nan          # never a number that looks like a solution
    failures = point_failures(problem, shape, reasons)
    if failures and not partial:
        raise ConvergenceError(failure_message(compiled.name, failures, size), failures)
    return SolveResult({k: v.reshape(shape) for k, v in observables.items()},
                       unknowns.reshape(len(unknowns), *shape), residual.reshape(shape), compiled.unknowns,
                       failed.reshape(shape), failures)


def _threads() -> int:
    """Threads for large inputs: the CPUs this process may use (``SYMRMT_THREADS`` overrides)."""
    value = os.environ.get("SYMRMT_THREADS", "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ParameterError(f"SYMRMT_THREADS={value!r} is not a number of threads: set it to a positive "
                                 "integer (or unset it)") from None
    return usable_cpus()


def _solve_flat(problem: Problem, quadrature_tolerance: float):
    """Continuation on the path rule, then Newton and evaluation level by level of quadrature nodes.

    Returns ``(observables, residual, unknowns, failures)``, ``failures`` mapping a point to its reason.
    """
    if problem.compiled.law is None:            # no spectral averages: nothing to refine
        return solve_exact(problem)
    if problem.compiled.complex:
        return _solve_by_levels(problem, quadrature_tolerance)
    failures: dict[int, str] = {}       # anchors whose path failed are not followed again with a finer rule
    t = starting_values(problem.subset(slice(None), PATH_NODES), failures)
    size = problem.size
    keys = [o.key for o in problem.compiled.observables]
    out = {k: np.full(size, np.nan, dtype=problem.dtype) for k in keys}
    residual_out = np.full(size, np.nan)
    unknowns = np.full_like(t, np.nan)
    pending = np.flatnonzero(~np.isin(np.arange(size), list(failures)))
    problem, t = problem.subset(pending, problem.nodes), t[:, pending]
    while pending.size:
        settled = np.zeros(pending.size, bool)
        step = max(1, CHUNK_ELEMENTS // (problem.nodes + 1))    # bounds memory: ~24 arrays of step x nodes
        for start in range(0, pending.size, step):
            chunk = slice(start, start + step)
            part = problem if step >= pending.size else problem.subset(chunk, problem.nodes)
            t[:, chunk], settled[chunk], values, residual, failed = _level(part, t[:, chunk], quadrature_tolerance)
            points = pending[chunk]
            failures.update({int(points[i]): reason for i, reason in failed.items()})
            good = settled[chunk]
            done = points[good]
            for k in keys:
                out[k][done] = values[k][good]
            residual_out[done] = residual[good]
            unknowns[:, done] = t[:, chunk][:, good]
        pending, t = pending[~settled], t[:, ~settled]
        if pending.size:
            problem = problem.subset(~settled, problem.nodes * 3)
    return out, residual_out, unknowns, failures


def _solve_by_levels(problem: Problem, quadrature_tolerance: float):
    r"""Complex unknowns (a spectral argument near the real axis): whole solves at two levels must agree.

    Near the real axis the integrands have poles close to the nodes, and a rule that cannot
    resolve them has spurious solutions (e.g. real ones inside the spectrum), which the
    embedded coarse rule does not tell apart: both rules miss the poles alike. So the cheap
    rule follows the path only down to NEAR_AXIS times its start, where the integrands are
    still smooth; each level follows the rest with its own rule, and a point is accepted
    when its unknowns and observables at one level and at the next (three times the nodes)
    agree to the quadrature tolerance. The finer solution is returned. A point whose path or
    Newton solve fails at some level, or that has not settled at MAX_NODES, fails alone.
    """
    size = problem.size
    keys = [o.key for o in problem.compiled.observables]
    out = {k: np.full(size, np.nan, dtype=problem.dtype) for k in keys}
    residual_out = np.full(size, np.nan)
    unknowns = np.full((len(problem.compiled.unknowns), size), np.nan, dtype=problem.dtype)
    local = np.arange(size)
    cheap = problem.subset(slice(None), PATH_NODES)
    failures: dict[int, str] = {}
    t, rate, value = continue_path(cheap, local, stop=NEAR_AXIS * start_values(cheap, local), failures=failures)
    state = _Pending(local, (value, t, rate), problem).keep(~np.isin(local, list(failures)))
    if not state.points.size:
        return out, residual_out, unknowns, failures
    previous, failed = _whole_solve(state.problem, state.resume)
    while True:
        failures.update({int(state.points[i]): reason for i, reason in failed.items()})
        keep = ~np.isin(np.arange(state.points.size), list(failed))
        state, previous = state.keep(keep), _subset_solution(previous, keep)
        if not state.points.size:
            break
        if state.problem.nodes * 3 > MAX_NODES:
            reason = _too_small(state.problem, f"the spectral averages did not settle to {quadrature_tolerance:g}")
            failures.update({int(i): reason for i in state.points})
            break
        state = state.refined()
        current, failed = _whole_solve(state.problem, state.resume)
        agree = _agree(state.problem, previous, current, quadrature_tolerance)
        agree[list(failed)] = False
        done = state.points[agree]
        for k in keys:
            out[k][done] = current[0][k][agree]
        residual_out[done] = current[1][agree]
        unknowns[:, done] = current[2][:, agree]
        failed = {int(np.sum(~agree[:i])): reason for i, reason in failed.items()}     # positions among the rest
        state, previous = state.keep(~agree), _subset_solution(current, ~agree)
    return out, residual_out, unknowns, failures


@dataclass(frozen=True)
class _Pending:
    """The points not yet settled by :func:`_solve_by_levels`, where their paths resume, and their problem."""

    points: np.ndarray
    resume: tuple
    problem: Problem

    def keep(self, keep: np.ndarray) -> "_Pending":
        return _Pending(self.points[keep], tuple(x[..., keep] for x in self.resume),
                        self.problem.subset(keep, self.problem.nodes))

    def refined(self) -> "_Pending":
        """The same points with three times the quadrature nodes."""
        return _Pending(self.points, self.resume, self.problem.subset(slice(None), self.problem.nodes * 3))


def _subset_solution(solution, keep):
    """The ``(observables, residual, t)`` of the points ``keep``."""
    values, residual, t = solution
    return {k: v[keep] for k, v in values.items()}, residual[keep], t[:, keep]


def _agree(problem: Problem, previous, current, tolerance: float) -> np.ndarray:
    """Points where two levels' unknowns (relative to 1 + |t|) and observables (as admitted) agree."""
    agree = np.all(np.abs(previous[2] - current[2]) <= tolerance * (1 + np.abs(current[2])), axis=0)
    for key, value in current[0].items():
        accuracy = problem.compiled.admissible.get(key, (None, "relative"))[1]
        agree &= np.abs(previous[0][key] - value) <= tolerance * np.maximum(scale(value, accuracy), 1e-300)
    return agree


def _whole_solve(problem: Problem, resume):
    """The rest of the path and the target Newton solve with the problem's own rule.

    Returns ``((observables, residual, t), failures)``.
    """
    local = np.arange(problem.size)
    target = problem.flat[problem.variable]
    lost: dict[int, str] = {}
    t = continue_path(problem, local, resume=resume, failures=lost)[0]
    t, ok, residual, rate = newton(problem, t, target, local)
    refine(problem, t, target, local[ok], residual, rate, REFINEMENTS)
    ok &= physical(problem, t, target, local)
    failed = {int(i): lost.get(int(i), "Newton did not converge on the physical branch at the target (residual "
                                       f"{residual[i]:.3g})") for i in np.flatnonzero(~ok)}
    values = evaluate(problem, t, rate, local)
    return ({k: v[0] for k, v in values.items()}, residual, t), failed


def _level(problem: Problem, t, quadrature_tolerance: float):
    """Newton at the targets with this rule, then the observables and whether the quadrature is accurate enough.

    Returns ``(t, settled, observables, residual, failures)``: a point is settled when it is accurate
    enough or has failed (``failures`` maps it to the reason), else it goes to the next level.
    """
    local = np.arange(problem.size)
    target = problem.flat[problem.variable]
    failed: dict[int, str] = {}
    if len(t):
        t, ok, residual, rate = newton(problem, t, target, local)
        ok &= physical(problem, t, target, local)
        if not ok.all():                 # the cheaper rule's solution was not close enough: continue with this rule
            retry, lost = np.flatnonzero(~ok), dict[int, str]()
            t[:, retry] = continue_path(problem, retry, failures=lost)[0]
            lost = {int(retry[k]): reason for k, reason in lost.items()}
            t, ok, residual, rate = newton(problem, t, target, local)
            ok &= physical(problem, t, target, local)
            failed = {int(i): lost.get(int(i), "Newton did not converge at the target" if not residual[i] <= 1e-9
                                       else "the solution at the target is not on the physical branch")
                      + ("" if int(i) in lost else f" (residual {residual[i]:.3g})") for i in np.flatnonzero(~ok)}
        refine(problem, t, target, local[ok], residual, rate, REFINEMENTS)
    else:
        residual, rate = np.zeros(local.size), t
    fine = evaluate(problem, t, rate, local)
    t_coarse, rate_coarse = coarse_solution(problem, t, local)
    coarse = evaluate(problem, t_coarse, rate_coarse, local, coarse=True)
    settled = np.ones(local.size, bool)
    worst = np.zeros(local.size)
    for key, (_, accuracy) in problem.compiled.admissible.items():
        value, estimate = fine[key][0], np.abs(fine[key][0] - coarse[key][0])
        allowed = quadrature_tolerance * scale(value, accuracy)
        settled &= estimate <= allowed
        worst = np.maximum(worst, np.where(np.isfinite(estimate), estimate, np.inf))
    settled[list(failed)] = True
    if problem.nodes * 3 > MAX_NODES:
        failed.update({int(i): _too_small(problem, f"the spectral average did not reach {quadrature_tolerance:g}",
                                          f" (estimated error {worst[i]:.2g})") for i in np.flatnonzero(~settled)})
        settled[:] = True
    return t, settled, {k: v[0] for k, v in fine.items()}, residual, failed


def _too_small(problem: Problem, what: str, detail: str = "") -> str:
    """The reason when the finest rule is not accurate enough at a point."""
    return (f"{what} with {problem.nodes} nodes{detail}; {problem.variable} is too small for the quadrature here: "
            f"use a larger {problem.variable}")

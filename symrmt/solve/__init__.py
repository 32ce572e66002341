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
reports the residual of every point and raises :class:`~symrmt.errors.ConvergenceError`
rather than returning NaN.

See :func:`symrmt.codegen.compile_system` for an example.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Hashable, Mapping

import numpy as np

from ..cpus import usable_cpus
from ..errors import ConvergenceError, ParameterError
from ..validate import real_array
from .compiled import CompiledObservable, CompiledSystem
from .marchenko_pastur import RULES, marchenko_pastur_rule
from .observe import admit, coarse_solution, evaluate, scale
from .path import continue_path, newton, physical, start_values, starting_values
from .problem import Problem
from .settings import (BATCH_POINTS, CHUNK_ELEMENTS, INITIAL_NODES, MAX_NODES, NEAR_AXIS, PARALLEL_POINTS,
                       PATH_NODES, QUADRATURE_TOLERANCE)

__all__ = ["SolveResult", "solve", "CompiledSystem", "CompiledObservable", "marchenko_pastur_rule", "RULES",
           "INITIAL_NODES", "MAX_NODES", "QUADRATURE_TOLERANCE"]


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
    """

    observables: Mapping[Hashable, np.ndarray]
    unknowns: np.ndarray
    residual: np.ndarray
    unknown_keys: tuple

    def __getitem__(self, observable: Hashable) -> np.ndarray:
        return self.observables[observable]


def _validate(compiled: CompiledSystem, params: Mapping) -> dict:
    """The parameter arrays, checked against the system's parameters and their domains."""
    keys = compiled.parameters
    known = set(keys)                   # hashed look-ups: symbols compare slowly one by one
    missing = [str(k) for k in keys if k not in params]
    unknown = [repr(k) for k in params if k not in known]
    if missing or unknown:
        raise ParameterError(f"the {compiled.name} system takes one array per parameter symbol "
                             f"{[str(k) for k in keys]} (its `parameters`); "
                             + (f"missing {missing}" if missing else "") + ("; " if missing and unknown else "")
                             + (f"unknown {unknown}" if unknown else "") + ".")
    out = {}
    for k in keys:
        array = real_array(str(k), params[k], finite=False)
        lower, upper, lower_open, upper_open = compiled.domains[k]
        bad = ~np.isfinite(array) | (array < lower) | (array > upper)
        bad |= (array == lower) if lower_open else False
        bad |= (array == upper) if upper_open else False
        if np.any(bad):
            interval = f"{'(' if lower_open else '['}{lower:g}, {upper:g}{')' if upper_open else ']'}"
            raise ParameterError(f"{k} must be finite and in {interval} (got {array[bad].ravel()[:3].tolist()}).")
        out[k] = array
    try:
        np.broadcast_shapes(*(a.shape for a in out.values()))
    except ValueError:
        shapes = {str(k): a.shape for k, a in out.items() if a.shape}
        raise ParameterError(f"the parameter arrays do not broadcast together: shapes {shapes}.") from None
    return out


def solve(system: CompiledSystem, params: Mapping, nodes: int = INITIAL_NODES,
          quadrature_tolerance: float = QUADRATURE_TOLERANCE) -> SolveResult:
    r"""Solve a compiled fixed-point system at every point of the broadcast parameter arrays.

    Parameters
    ----------
    system : CompiledSystem
        A derived system compiled by :func:`symrmt.codegen.compile_system` (once per system).
    params : mapping
        One array (or scalar) per parameter of the system, keyed by the parameter's symbol
        (``system.parameters``), exactly those.
    nodes : int
        Initial number of quadrature nodes (a multiple of 3). Points whose error
        estimate (full rule against the embedded rule with a third of the nodes)
        exceeds ``quadrature_tolerance`` are re-solved with three times as many
        nodes, up to :data:`MAX_NODES`.

    Returns
    -------
    SolveResult
        The observables by their symbols, the unknowns and the residuals.
    """
    if not isinstance(system, CompiledSystem):
        raise TypeError(f"solve takes a CompiledSystem, not {type(system).__name__}: compile a FixedPointSystem "
                        "with symrmt.codegen.compile_system first")
    compiled = system
    params = _validate(compiled, params)
    problem, shape = Problem.from_arrays(compiled, params, nodes)
    size = problem.size
    threads = _threads()
    batch = min(BATCH_POINTS, max(PARALLEL_POINTS, -(-size // threads)))
    batches = [problem.subset(slice(i, i + batch), nodes) for i in range(0, size, batch)]
    with np.errstate(all="ignore"):     # non-finite values are tested for and refused explicitly
        if len(batches) > 1 and threads > 1:
            # NumPy releases the GIL inside its loops, so batches solved in threads use every core.
            with ThreadPoolExecutor(max_workers=threads) as pool:
                parts = list(pool.map(lambda part: _solve_flat(part, quadrature_tolerance), batches))
        else:
            parts = [_solve_flat(part, quadrature_tolerance) for part in batches]
    observables = {o.key: np.concatenate([part[0][o.key] for part in parts]) for o in compiled.observables}
    residual = np.concatenate([part[1] for part in parts])
    unknowns = np.concatenate([part[2] for part in parts], axis=1)
    for o in compiled.observables:
        if o.real and np.iscomplexobj(observables[o.key]):
            observables[o.key] = np.ascontiguousarray(observables[o.key].real)
    observables = admit(problem, observables, residual)
    return SolveResult({k: v.reshape(shape) for k, v in observables.items()},
                       unknowns.reshape(len(unknowns), *shape), residual.reshape(shape), compiled.unknowns)


def _threads() -> int:
    """Threads for large inputs: the CPUs this process may use (``SYMRMT_THREADS`` overrides)."""
    if os.environ.get("SYMRMT_THREADS"):
        return max(1, int(os.environ["SYMRMT_THREADS"]))
    return usable_cpus()


def _solve_flat(problem: Problem, quadrature_tolerance: float):
    """Continuation on the path rule, then Newton and evaluation level by level of quadrature nodes."""
    if problem.compiled.complex:
        return _solve_by_levels(problem, quadrature_tolerance)
    t = starting_values(problem.subset(slice(None), PATH_NODES))
    size = problem.size
    keys = [o.key for o in problem.compiled.observables]
    out = {k: np.empty(size, dtype=problem.dtype) for k in keys}
    residual_out = np.empty(size)
    unknowns = np.empty_like(t)
    pending = np.arange(size)
    while pending.size:
        accurate = np.zeros(pending.size, bool)
        step = max(1, CHUNK_ELEMENTS // (problem.nodes + 1))    # bounds memory: ~24 arrays of step x nodes
        for start in range(0, pending.size, step):
            chunk = slice(start, start + step)
            part = problem if step >= pending.size else problem.subset(chunk, problem.nodes)
            t[:, chunk], accurate[chunk], values, residual = _level(part, t[:, chunk], quadrature_tolerance)
            good = accurate[chunk]
            done = pending[chunk][good]
            for k in keys:
                out[k][done] = values[k][good]
            residual_out[done] = residual[good]
            unknowns[:, done] = t[:, chunk][:, good]
        pending, t = pending[~accurate], t[:, ~accurate]
        if pending.size:
            problem = problem.subset(~accurate, problem.nodes * 3)
    return out, residual_out, unknowns


def _solve_by_levels(problem: Problem, quadrature_tolerance: float):
    r"""Complex unknowns (a spectral argument near the real axis): whole solves at two levels must agree.

    Near the real axis the integrands have poles close to the nodes, and a rule that cannot
    resolve them has spurious solutions (e.g. real ones inside the spectrum), which the
    embedded coarse rule does not tell apart: both rules miss the poles alike. So the cheap
    rule follows the path only down to NEAR_AXIS times its start, where the integrands are
    still smooth; each level follows the rest with its own rule, and a point is accepted
    when its unknowns and observables at one level and at the next (three times the nodes)
    agree to the quadrature tolerance. The finer solution is returned.
    """
    size = problem.size
    keys = [o.key for o in problem.compiled.observables]
    out = {k: np.empty(size, dtype=problem.dtype) for k in keys}
    residual_out = np.empty(size)
    unknowns = np.empty((len(problem.compiled.unknowns), size), dtype=problem.dtype)
    local = np.arange(size)
    cheap = problem.subset(slice(None), PATH_NODES)
    t, rate, value = continue_path(cheap, local, stop=NEAR_AXIS * start_values(cheap, local))
    resume = (value, t, rate)
    pending = local
    previous = _whole_solve(problem, resume)
    while pending.size:
        if problem.nodes * 3 > MAX_NODES:
            raise _too_small(problem, 0, f"the spectral averages did not settle to {quadrature_tolerance:g}")
        problem = problem.subset(slice(None), problem.nodes * 3)
        current = _whole_solve(problem, resume)
        agree = _agree(problem, previous, current, quadrature_tolerance)
        done = pending[agree]
        for k in keys:
            out[k][done] = current[0][k][agree]
        residual_out[done] = current[1][agree]
        unknowns[:, done] = current[2][:, agree]
        keep = ~agree
        pending, resume = pending[keep], tuple(x[..., keep] for x in resume)
        problem = problem.subset(keep, problem.nodes)
        previous = ({k: v[keep] for k, v in current[0].items()}, current[1][keep], current[2][:, keep])
    return out, residual_out, unknowns


def _agree(problem: Problem, previous, current, tolerance: float) -> np.ndarray:
    """Points where two levels' unknowns (relative to 1 + |t|) and observables (as admitted) agree."""
    agree = np.all(np.abs(previous[2] - current[2]) <= tolerance * (1 + np.abs(current[2])), axis=0)
    for key, value in current[0].items():
        accuracy = problem.compiled.admissible.get(key, (None, "relative"))[1]
        agree &= np.abs(previous[0][key] - value) <= tolerance * np.maximum(scale(value, accuracy), 1e-300)
    return agree


def _whole_solve(problem: Problem, resume):
    """The rest of the path and the target Newton solve with the problem's own rule: ``(observables, residual, t)``."""
    local = np.arange(problem.size)
    target = problem.flat[problem.variable]
    t = continue_path(problem, local, resume=resume)[0]
    t, ok, residual, rate = newton(problem, t, target, local)
    ok &= physical(problem, t, target, local)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ConvergenceError(f"Newton did not converge on the physical branch at the target (residual "
                               f"{residual[i]:.3g} at {problem.where(i)}).")
    values = evaluate(problem, t, rate, local)
    return {k: v[0] for k, v in values.items()}, residual, t


def _level(problem: Problem, t, quadrature_tolerance: float):
    """Newton at the targets with this rule, then the observables and whether the quadrature is accurate enough."""
    local = np.arange(problem.size)
    target = problem.flat[problem.variable]
    if len(t):
        t, ok, residual, rate = newton(problem, t, target, local)
        ok &= physical(problem, t, target, local)
        if not ok.all():                 # the cheaper rule's solution was not close enough: continue with this rule
            t[:, ~ok] = continue_path(problem, local[~ok])[0]
            t, ok, residual, rate = newton(problem, t, target, local)
            ok &= physical(problem, t, target, local)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                what = ("Newton did not converge at the target" if not residual[i] <= 1e-9 else
                        "the solution at the target is not on the physical branch")
                raise ConvergenceError(f"{what} (residual {residual[i]:.3g} at {problem.where(i)}).")
    else:
        residual, rate = np.zeros(local.size), t
    fine = evaluate(problem, t, rate, local)
    coarse = evaluate(problem, *coarse_solution(problem, t, local), local, coarse=True)
    accurate = np.ones(local.size, bool)
    worst = np.zeros(local.size)
    for key, (_, accuracy) in problem.compiled.admissible.items():
        value, estimate = fine[key][0], np.abs(fine[key][0] - coarse[key][0])
        allowed = quadrature_tolerance * scale(value, accuracy)
        accurate &= estimate <= allowed
        worst = np.maximum(worst, np.where(np.isfinite(estimate), estimate, np.inf))
    if problem.nodes * 3 > MAX_NODES and not accurate.all():
        i = int(np.flatnonzero(~accurate)[0])
        raise _too_small(problem, i, f"the spectral average did not reach {quadrature_tolerance:g}",
                         f" (estimated error {worst[i]:.2g})")
    return t, accurate, {k: v[0] for k, v in fine.items()}, residual


def _too_small(problem: Problem, i: int, what: str, detail: str = "") -> ConvergenceError:
    """The refusal when the finest rule is not accurate enough at point ``i``."""
    return ConvergenceError(
        f"{what} with {problem.nodes} nodes at {problem.where(i)}{detail}; {problem.variable} is too small for "
        f"the quadrature here: use a larger {problem.variable}.")

r"""Observables at the solved unknowns, their quadrature error estimate, and the admissibility check."""
from __future__ import annotations

import time

import numpy as np

from .batched import solve_each
from .native_woodbury import WOODBURY
from .path import newton_step
from .problem import Problem, evaluated
from .settings import RANGE_SLACK

__all__ = ["evaluate", "coarse_solution", "admit", "scale"]


def scale(value, accuracy: str):
    """What a tolerance multiplies for an observable: ``|value|`` when its accuracy is relative, else 1."""
    return np.abs(value) if accuracy == "relative" else 1.0


def coarse_solution(problem: Problem, t, index):
    r"""The unknowns and their rate under the embedded coarse rule: one Newton step from ``t``.

    The quadrature error enters an observable twice: directly in the averages and through
    the fixed point :math:`t` itself, where it is amplified by the inverse Jacobian (large
    near the spectrum). Evaluating the coarse rule at the fine rule's ``t`` would see only
    the first part, so the coarse estimate re-solves the fixed point with the coarse rule;
    one Newton step from ``t`` leaves an error of the order of the square of the
    difference, far below the difference itself whenever that is small.
    """
    if not len(t):
        return t, t
    value = problem.flat[problem.variable][index]
    step, rate = newton_step(*problem.newton_system(t, value, index, coarse=True))
    return t - step, rate


def evaluate(problem: Problem, t, rate, index, coarse: bool = False) -> dict:
    """``{observable: (value, rate or None)}`` at the unknowns ``t`` (rates along the variable)."""
    compiled = problem.compiled
    n, u = index.size, len(t)
    lam, weights = problem.rule(index, coarse)
    params = problem.params(index)
    count = compiled.averages_count
    if count:
        values = problem.expect(
            lambda lam, *rest: compiled.averages(lam, rest[:u], rest[u: 2 * u], rest[2 * u:]),
            [lam, *(x[:, None] for x in t), *(x[:, None] for x in rate), *params], weights)
        taus, dtaus = values[:count], values[count:]
    else:
        taus = dtaus = np.zeros((0, n))
    flat = [x[:, 0] for x in params]
    earlier: list = []
    out = {}
    for observable in compiled.observables:
        args, rate_args = [*taus, *t, *earlier, *flat], [*taus, *dtaus, *t, *rate, *earlier, *flat]
        if observable.kind == "woodbury":
            value, derivative = _woodbury(observable, args, rate_args, n, problem.dtype)
        else:
            value = evaluated(observable.value, observable.value_native, args, n, problem.dtype, single=True)[0]
            derivative = (None if observable.rate is None else evaluated(
                observable.rate, observable.rate_native, rate_args, n, problem.dtype, single=True)[0])
        out[observable.key] = (value, derivative)
        earlier += [value, derivative if derivative is not None else np.full(n, np.nan)]
    return out


def _woodbury(observable, args, dargs, n: int, dtype):
    r"""offset - g^T C (I + G C)^{-1} g and its derivative from the derivatives of its entries.

    With :math:`S = I + GC`, :math:`h = S^{-1}g`, :math:`u = S^{-\top}C^\top g`:
    :math:`\mathrm d\Phi = \mathrm d(\text{offset}) - \mathrm dg\cdot Ch - g^\top\mathrm dC\,h
    - u\cdot\mathrm dg + u^\top(\mathrm dG\,C + G\,\mathrm dC)h`.
    """
    k = observable.size
    entries = evaluated(observable.value, observable.value_native, args, n, dtype)
    d_entries = None if observable.rate is None else evaluated(observable.rate, observable.rate_native, dargs, n, dtype)
    real = bool(k) and entries.dtype == float and (d_entries is None or d_entries.dtype == float)
    native = WOODBURY.native() if real else None
    if native is not None:
        value, derivative = np.empty(n), np.empty(n)
        native(np.ascontiguousarray(entries), np.ascontiguousarray(entries if d_entries is None else d_entries), k,
               d_entries is not None, value, derivative)
        return value, (None if d_entries is None else derivative)
    start = time.perf_counter()
    value, derivative = _woodbury_numpy(k, entries, d_entries)
    if real:
        WOODBURY.spend(time.perf_counter() - start)
    return value, derivative


def _woodbury_numpy(k: int, entries: np.ndarray, d_entries: np.ndarray | None):
    """:func:`_woodbury` from the evaluated entries (and their derivatives, or None), by NumPy calls over the points."""
    offset, core, gram, source = _split(entries, k)
    if not k:
        value = offset
    else:
        system = np.eye(k) + gram @ core
        h = solve_each(system, source[..., None])[..., 0]
        v = np.einsum("nij,nj->ni", core, h)                                          # C S^{-1} g
        value = offset - np.einsum("ni,ni->n", source, v)
    if d_entries is None:
        return value, None
    d_offset, d_core, d_gram, d_source = _split(d_entries, k)
    if not k:
        return value, d_offset
    u = solve_each(np.swapaxes(system, -1, -2), np.einsum("nji,nj->ni", core, source)[..., None])[..., 0]
    d_system = d_gram @ core + gram @ d_core
    derivative = (d_offset - np.einsum("ni,ni->n", d_source, v) - np.einsum("ni,nij,nj->n", source, d_core, h)
                  - np.einsum("ni,ni->n", u, d_source) + np.einsum("ni,nij,nj->n", u, d_system, h))
    return value, derivative


def _split(entries: np.ndarray, k: int):
    """(offset (N,), core (N, k, k), gram (N, k, k), source (N, k)) from the stacked entries.

    One transposed copy, so that the matrices are contiguous per point: batched products of strided
    (k, k, N) views are about ten times slower.
    """
    points = np.ascontiguousarray(entries.T)                  # (N, 1 + 2 k^2 + k)
    offset = points[:, 0]
    core = points[:, 1: 1 + k * k].reshape(-1, k, k)
    gram = points[:, 1 + k * k: 1 + 2 * k * k].reshape(-1, k, k)
    source = points[:, 1 + 2 * k * k:]
    return offset, core, gram, source


def admit(problem: Problem, observables: dict, residual: np.ndarray, failed: np.ndarray) -> tuple[dict, dict]:
    """Find non-finite values and values outside the admissible ranges; clip the round-off-level excursions.

    A value may leave its range by at most RANGE_SLACK (absolute, or relative to the bound for
    ``"relative"`` observables), the level of the quadrature tolerance; it is then clipped into
    the range, so that no output lies outside it. Anything further fails the point. Points
    already ``failed`` are not judged. Returns ``(observables, {point: reason})``.
    """
    compiled = problem.compiled
    params = problem.params(np.arange(problem.size), column=False)
    bad = ~np.isfinite(residual)
    for value in observables.values():
        bad |= ~np.isfinite(value)
    bounds = {}
    for key, (limits, accuracy) in compiled.admissible.items():
        lower, upper = (np.broadcast_to(np.asarray(x, float), (problem.size,)) for x in limits(*params))
        value = np.real(observables[key])
        slack_lo, slack_hi = RANGE_SLACK * scale(lower, accuracy), RANGE_SLACK * scale(upper, accuracy)
        with np.errstate(invalid="ignore"):
            bad |= (value < lower - slack_lo) | (value > upper + slack_hi)
        bounds[key] = (lower, upper)
    bad &= ~failed
    reasons = {int(i): ("the solver produced an unphysical value (" + ", ".join(
        f"{k}={v[i]:.4g}" for k, v in observables.items()) + f", residual={residual[i]:.3g}); the continuation may "
        "have left the physical branch, or the quadrature is too coarse there") for i in np.flatnonzero(bad)}
    out = dict(observables)
    for key, (lower, upper) in bounds.items():
        if not np.iscomplexobj(observables[key]):
            with np.errstate(invalid="ignore"):
                out[key] = np.clip(np.real(observables[key]), lower, upper)
    return out, reasons

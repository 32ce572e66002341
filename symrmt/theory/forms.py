r"""Which form of a derived system solves which points: algebraic where it holds, quadrature elsewhere.

Every system is derived in two forms (:mod:`symrmt.derive.algebraic`): with its spectral averages
computed by quadrature (the reference), and in closed form (polynomial equations, no quadrature,
several times faster). :func:`solve_in_form` solves a system of a given kind in the form asked for:

``"quadrature"``
    the reference form at every point;
``"algebraic"``
    the algebraic form at every point: the general one where :math:`a_1 \ne 0`, the one derived with
    :math:`a_1 = 0` substituted where :math:`a_1 = 0` exactly (its Dyson matrix depends on
    :math:`\lambda` through a rank-one term, as linear regression's does). For
    :math:`0 < |a_1| <` :data:`A1_FLOOR` :math:`\sqrt{a_1^2 + b^2}` a root of :math:`\det M(\lambda)` is
    of order :math:`1/a_1^2` and the general form loses digits: such points fail (``failures``);
``"auto"`` (the default, :data:`DEFAULT_FORM`)
    the general algebraic form, which agrees with the quadrature form to about 1e-9
    (benchmarks/agreement.py); the quadrature form for the kinds :data:`QUADRATURE_BY_DEFAULT` (linear
    regression, kernel ridge) and :math:`a_1 = 0` (the
    rank-one algebraic form loses digits when a root of :math:`\det M` nears 0, up to 1e-5 at
    :math:`\gamma = 10^{-6}`, :math:`c = 0.1`; the quadrature is cheap there anyway: no continuation for
    linear regression), for the points :math:`0 < |a_1| <` :data:`A1_FLOOR` :math:`\sqrt\nu`, for the
    points the algebraic form's solver fails (each point fails alone; the quadrature solves those again),
    and for the points whose algebraic solution is ill-conditioned, as the solution itself says: one Newton
    step there, relative to each unknown (:func:`~symrmt.solve.exact.newton_error`), exceeds
    :data:`NEWTON_ERROR_CEILING` (about 0.3% of random points), unless the quadrature refuses them too.

The result carries the quadrature form's unknowns (:math:`t_{ij}`), whichever form solved a point.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from ..errors import ConvergenceError, ParameterError
from ..solve import SolveResult, solve, validate_parameters
from ..solve.exact import newton_error
from ..solve.failures import failure_message

__all__ = ["FORMS", "DEFAULT_FORM", "A1_FLOOR", "NEWTON_ERROR_CEILING", "QUADRATURE_BY_DEFAULT", "solve_in_form",
           "answered_algebraically", "check_form"]

#: The kinds that ``"auto"`` solves by quadrature: linear regression (no continuation, the quadrature is cheap)
#: and kernel ridge (its algebraic form, ``form="algebraic"``, agrees with the quadrature to about 1e-13 where
#: it converges, but its continuation stalls at some small c and small gamma, e.g. f = x exp(-x^2/2),
#: c = 0.05, gamma = 1e-5, and it is not part of the 10^4-point comparison of benchmarks/agreement.py).
QUADRATURE_BY_DEFAULT = ("linear", "kernel_ridge")
#: The forms the public functions take.
FORMS = ("auto", "algebraic", "quadrature")

#: The form of the public functions and the command line when none is asked for: ``"auto"``, several times
#: faster than the quadrature form (benchmarks/bench_solver.py forms) and as accurate: on 10^4 fresh random points
#: (benchmarks/agreement.py --auto, seed 2027) it agrees with the quadrature, or where they differ with a
#: 40-digit solution, to 1e-9 except at 7, where Phi ~ 1/gamma is 1e4 to 3e5 (c <= 0.6, gamma <= 1e-5) and
#: float64 leaves up to 1.4e-8 in either form (docs/theory.md, section 17).
DEFAULT_FORM = "auto"
#: Below this |a_1| / sqrt(a_1^2 + b^2), and above 0, the general algebraic form loses digits (measured:
#: agreement with quadrature 1e-11 at 1e-4, failures at 1e-6; benchmarks/agreement.py).
A1_FLOOR = 1e-3
#: Under ``"auto"``, a point whose algebraic unknowns have an estimated relative error above this
#: (:func:`symrmt.solve.exact.newton_error`: one Newton step at the solution, relative to each unknown) is solved
#: again by quadrature. Measured at the 38 points of tests/data/algebraic_disagreements.json (seed 2026, before
#: the exact solver's refinement steps) where the algebraic form was off: 1.7e-9, 9e-10 and 5e-10 at the three
#: it is still off at by 1e-8, 1.1e-9 and 7e-10 (N's complex pair of eigenvalues nearly repeated, zeta_j up to
#: 4e3: the residual stays at 1e-10 to 2e-8, the round-off of its evaluation); at most 1.1e-11 at the others,
#: whose remaining error (Phi ~ 1/gamma ~ 1e5) is float64's floor in either form. A ceiling on the residual
#: would not do: its round-off scales with the equations (1e-6 at d = 100, c = 1). About 0.3% of random points
#: are referred (benchmarks/agreement.py --auto).
NEWTON_ERROR_CEILING = 1e-10


def check_form(form: str) -> str:
    """``form`` if it is one of :data:`FORMS`, else a :class:`ParameterError` naming them."""
    if form not in FORMS:
        raise ParameterError(f"form = {form!r}: use one of {FORMS}.")
    return form


def _compiled(kind: str, rank: int, form: str, without_linear_part: bool = False):
    from ..codegen import compile_system
    from ..derive.registry import system_for

    return compile_system(system_for(kind, rank, form, without_linear_part))


def solve_in_form(kind: str, rank: int, params: Mapping, form: str = DEFAULT_FORM, partial: bool = False) -> SolveResult:
    """Solve the system of ``kind`` (:data:`symrmt.derive.registry.KINDS`) at ``params`` in ``form``.

    ``params`` are keyed by the quadrature system's parameter symbols and broadcast together.
    ``partial`` as in :func:`symrmt.solve.solve`: a point no form solves fails alone (a
    :class:`~symrmt.errors.ConvergenceError` naming every such point, or with ``partial=True`` NaN there
    and the point in ``failures``).
    """
    check_form(form)
    if form == "quadrature" or (form == "auto" and kind in QUADRATURE_BY_DEFAULT):
        return solve(_compiled(kind, rank, "quadrature"), params, partial=partial)
    # The algebraic system has the quadrature system's parameters and domains: it validates them (the
    # quadrature system is compiled only if a point needs it).
    params = validate_parameters(_compiled(kind, rank, "algebraic"), params)
    shape = np.broadcast_shapes(*(v.shape for v in params.values()))
    flat = {k: np.broadcast_to(v, shape).ravel() for k, v in params.items()}
    parts = []
    for where, system in _groups(flat, form):
        points = {k: v[where] for k, v in flat.items()}
        if system == "refused":
            parts.append((where, _refused(kind, rank, points)))
        elif system == "quadrature":
            parts.append((where, solve(_compiled(kind, rank, "quadrature"), points, partial=True)))
        else:
            parts += _algebraic(kind, rank, where, points, system == "a1 = 0", form)
    result = _merge(_physical_unknowns(kind, rank), parts, shape)
    if result.failures and not partial:
        raise ConvergenceError(failure_message(_name(kind, rank), result.failures, result.failed.size),
                               result.failures)
    return result


def _physical_unknowns(kind: str, rank: int) -> tuple:
    """The quadrature system's unknowns t_ij: the first unknowns of every form (no compilation needed)."""
    from ..derive.registry import system_for

    return system_for(kind, rank).unknowns


def _name(kind: str, rank: int) -> str:
    from ..derive.registry import system_for

    return system_for(kind, rank).name


def _groups(flat: dict, form: str) -> list[tuple[np.ndarray, str]]:
    """The points of each system: ``(mask, "general" | "a1 = 0" | "quadrature" | "refused")``."""
    from ..derive import symbols as S

    size = next(iter(flat.values())).size
    if S.a1 not in flat:
        return [(np.ones(size, bool), "general")]
    a1, b = flat[S.a1], flat[S.b]
    zero = a1 == 0
    small = ~zero & (np.abs(a1) < A1_FLOOR * np.hypot(a1, b))
    groups = ((~zero & ~small, "general"), (zero, "a1 = 0" if form == "algebraic" else "quadrature"),
              (small, "refused" if form == "algebraic" else "quadrature"))
    merged: dict = {}
    for mask, system in groups:
        merged[system] = merged.get(system, np.zeros(size, bool)) | mask
    return [(mask, system) for system, mask in merged.items() if mask.any()]


def _algebraic(kind: str, rank: int, where: np.ndarray, points: dict, zero: bool, form: str) -> list:
    """``[(mask, result)]`` of the algebraic form at ``points``; under ``"auto"`` the points it fails, and those
    whose unknowns' estimated error exceeds :data:`NEWTON_ERROR_CEILING`, are solved again by quadrature (the
    reference decides them, unless it refuses one the algebraic form answered)."""
    from ..derive import symbols as S

    compiled = _compiled(kind, rank, "algebraic", without_linear_part=zero)
    subset = {k: v for k, v in points.items() if not (zero and k == S.a1)}
    result = solve(compiled, subset, partial=True)
    if form == "algebraic":
        return [(where, result)]
    refer = _referred(compiled, subset, result)
    if not refer.any():
        return [(where, result)]
    again = solve(_compiled(kind, rank, "quadrature"), {k: v[refer] for k, v in points.items()}, partial=True)
    # Where the quadrature refuses too (gamma below what its nodes resolve), the algebraic answer stands.
    stands = again.failed & ~result.failed[refer]
    if stands.any():
        refer[np.flatnonzero(refer)[stands]] = False
        if not refer.any():
            return [(where, result)]
        again = _subset(again, ~stands)
    positions = np.flatnonzero(where)
    referred = np.zeros_like(where)
    referred[positions[refer]] = True
    kept = np.zeros_like(where)
    kept[positions[~refer]] = True
    return [(kept, _subset(result, ~refer)), (referred, again)]


def _referred(compiled, points: dict, result: SolveResult) -> np.ndarray:
    """The points ``"auto"`` solves again by quadrature: the algebraic solution failed (NaN) or is ill-conditioned."""
    return np.asarray(result.failed) | ~(newton_error(compiled, points, result.unknowns) <= NEWTON_ERROR_CEILING)


def answered_algebraically(kind: str, rank: int, params: Mapping) -> np.ndarray:
    """Where ``form="auto"`` answers with the algebraic form (flat, in the order of the broadcast ``params``)."""
    params = validate_parameters(_compiled(kind, rank, "algebraic"), params)
    shape = np.broadcast_shapes(*(v.shape for v in params.values()))
    flat = {k: np.broadcast_to(v, shape).ravel() for k, v in params.items()}
    answered = np.zeros(int(np.prod(shape)), bool)
    if kind in QUADRATURE_BY_DEFAULT:
        return answered
    for where, system in _groups(flat, "auto"):
        if system == "general":
            kept, _ = _algebraic(kind, rank, where, {k: v[where] for k, v in flat.items()}, False, "auto")[0]
            answered |= kept
    return answered


def _subset(result: SolveResult, keep: np.ndarray) -> SolveResult:
    """The flat result at the points ``keep``, with their failures."""
    position = np.cumsum(keep) - 1
    failures = tuple(dataclasses.replace(f, index=(int(position[f.index[0]]),)) for f in result.failures
                     if keep[f.index[0]])
    return SolveResult({k: np.asarray(v)[keep] for k, v in result.observables.items()}, result.unknowns[:, keep],
                       result.residual[keep], result.unknown_keys, result.failed[keep], failures)


def _refused(kind: str, rank: int, points: dict) -> SolveResult:
    """Every point failed: 0 < |a_1| < A1_FLOOR sqrt(a_1^2 + b^2), which the algebraic form does not solve."""
    from ..derive.registry import system_for
    from ..solve import PointFailure

    size = len(next(iter(points.values())))
    system = system_for(kind, rank)
    nan = np.full(size, np.nan)
    reason = (f"0 < |a_1| < {A1_FLOOR:g} sqrt(a_1^2 + b^2): the algebraic form loses digits there (a root of "
              "det M(lambda) goes to infinity); use form='auto' or 'quadrature'")
    failures = tuple(PointFailure((i,), {str(k): float(v[i]) for k, v in points.items()}, reason) for i in range(size))
    return SolveResult({o: nan.copy() for o in system.observables}, np.full((len(system.unknowns), size), np.nan),
                       nan.copy(), system.unknowns, np.ones(size, bool), failures)


def _merge(keys: tuple, parts: list, shape: tuple) -> SolveResult:
    """One result of ``shape`` from the groups' flat ones, with the unknowns ``keys`` (the t_ij, not the zeta)."""
    size, count = int(np.prod(shape)), len(keys)
    observables = {k: np.empty(size, dtype=np.result_type(*(np.asarray(p[k]).dtype for _, p in parts)))
                   for k in parts[0][1].observables}
    unknowns = np.empty((count, size), dtype=np.result_type(*(p.unknowns.dtype for _, p in parts)))
    residual, failed, failures = np.empty(size), np.zeros(size, bool), []
    for where, part in parts:
        positions = np.flatnonzero(where)
        for k, values in observables.items():
            values[where] = np.ravel(part[k])
        unknowns[:, where] = part.unknowns.reshape(len(part.unknowns), positions.size)[:count]
        residual[where] = np.ravel(part.residual)
        failed[where] = np.ravel(part.failed)
        failures += [dataclasses.replace(f, index=tuple(int(j) for j in np.unravel_index(positions[f.index[0]], shape)))
                     for f in part.failures]
    failures.sort(key=lambda f: np.ravel_multi_index(f.index, shape) if shape else 0)
    return SolveResult({k: v.reshape(shape) for k, v in observables.items()}, unknowns.reshape(count, *shape),
                       residual.reshape(shape), keys, failed.reshape(shape), tuple(failures))

r"""Which form of a derived system solves which points: algebraic where it holds, quadrature elsewhere.

Every system is derived in two forms (:mod:`symrmt.derive.algebraic`): with its spectral averages
computed by quadrature (the reference), and in closed form (polynomial equations, no quadrature,
several times faster). :func:`solve_in_form` solves a model's system (:class:`symrmt.models.Model`) in the
form asked for:

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
    (benchmarks/agreement.py); the quadrature form for the models whose ``auto_form`` is quadrature (linear
    regression, kernel ridge: :mod:`symrmt.models`; the points their quadrature cannot resolve, such as
    :math:`\gamma = 10^{-10}` at :math:`c = 1`, are solved again in the general algebraic form and kept where it
    is well-conditioned, so that linear regression solves wherever attention does) and :math:`a_1 = 0` (the
    rank-one algebraic form loses digits when a root of :math:`\det M` nears 0, up to 1e-5 at
    :math:`\gamma = 10^{-6}`, :math:`c = 0.1`; the quadrature is cheap there anyway: no continuation for
    linear regression), for the points :math:`0 < |a_1| <` :data:`A1_FLOOR` :math:`\sqrt\nu`, for the
    points the algebraic form's solver fails (each point fails alone; the quadrature solves those again),
    and for the points whose algebraic solution is ill-conditioned, as the solution itself says: one Newton
    step there, relative to each unknown (:func:`~symrmt.solve.exact.newton_error`), exceeds
    :data:`NEWTON_ERROR_CEILING` (about 0.3% of random points), unless the quadrature refuses them too.

The result carries the quadrature form's unknowns (:math:`t_{ij}`), whichever form solved a point, and
``form_used``: per point, the :class:`Route` that answered it.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Mapping

import numpy as np

from .. import validate
from ..errors import ConvergenceError, ParameterError
from ..models import Model
from ..models import get as get_model
from ..solve import Parameters, PointFailure, SolveResult, check_parameters, solve
from ..solve.exact import newton_error
from ..solve.failures import failure_message

__all__ = ["FORMS", "DEFAULT_FORM", "A1_FLOOR", "NEWTON_ERROR_CEILING", "Route", "FormResult", "solve_in_form",
           "answered_algebraically", "check_form", "compile_seconds", "check_compile_cost", "MAX_COMPILE_SECONDS"]

#: The forms the public functions take.
FORMS = ("auto", "algebraic", "quadrature")

#: The form of the public functions and the command line when none is asked for: ``"auto"``, several times
#: faster than the quadrature form (benchmarks/bench_solver.py forms) and as accurate: on 10^4 random points
#: (benchmarks/agreement.py --auto) it agrees with the quadrature, or where they differ with a 40-digit
#: solution, to 1e-9 except where Phi ~ 1/gamma is 1e4 to 3e5 (c <= 0.6, gamma <= 1e-5) and float64 leaves
#: up to about 1e-8 in either form (docs/theory.md, section 17).
DEFAULT_FORM = "auto"
#: Below this |a_1| / sqrt(a_1^2 + b^2), and above 0, the general algebraic form loses digits (agreement with
#: quadrature 1e-11 at 1e-4, failures at 1e-6: benchmarks/agreement.py).
A1_FLOOR = 1e-3
#: Under ``"auto"``, a point whose algebraic unknowns have an estimated relative error above this
#: (:func:`symrmt.solve.exact.newton_error`: one Newton step at the solution, relative to each unknown) is solved
#: again by quadrature. Where the algebraic form is off (N's complex pair of eigenvalues nearly repeated), the
#: estimate is 5e-10 and more; where it is right, at most about 1e-11 (tests/data/algebraic_disagreements.json,
#: docs/performance.md). A ceiling on the residual would not do: its round-off scales with the equations
#: (1e-6 at d = 100, c = 1). About 0.3% of random points are referred (benchmarks/agreement.py --auto).
NEWTON_ERROR_CEILING = 1e-10


class Route(enum.Enum):
    """Which system answered a point: the value is what ``form_used`` holds."""

    ALGEBRAIC = "algebraic"
    #: The algebraic form derived with a_1 = 0 substituted (form="algebraic" at a_1 = 0 exactly).
    ALGEBRAIC_WITHOUT_LINEAR_PART = "algebraic, a_1 = 0"
    QUADRATURE = "quadrature"
    #: No form answers: 0 < |a_1| < A1_FLOOR sqrt(nu) under form="algebraic".
    REFUSED = "refused"


@dataclasses.dataclass(frozen=True)
class FormResult(SolveResult):
    """A :class:`~symrmt.solve.SolveResult` with ``form_used``: per point, the :class:`Route` value that answered it."""

    form_used: np.ndarray | None = None


def check_form(form: str) -> str:
    """``form`` if it is one of :data:`FORMS`, else a :class:`ParameterError` naming them."""
    return validate.choice("form", form, FORMS)         # an array would be compared elementwise


#: CPU seconds to derive and compile the attention and linear systems of rank r once (``symrmt theory --gram``,
#: form auto, less the start-up), measured 3.1, 8.5, 14.1, 46.3 and 110.9 s at r = 8, 12, 16, 24 and 32 on a
#: 2-core machine (docs/performance.md): least squares in logs give :math:`t \approx 0.0143\, r^{2.55}` s. The
#: system has :math:`(r + 1)(2r + 1)` Gram entries as symbols and Woodbury matrices of size :math:`O(r)`, and
#: every generated function holds them all.
_COMPILE_COEFFICIENT, _COMPILE_EXPONENT = 0.0143, 2.55

#: A first solve estimated to compile longer than this (CPU seconds, :func:`compile_seconds`) is refused by
#: :func:`check_compile_cost` unless asked for (rank 21 and above).
MAX_COMPILE_SECONDS = 30.0


def compile_seconds(rank: int) -> float:
    """Estimated CPU seconds to derive and compile the attention and linear systems of ``rank`` (constants above).

    >>> round(compile_seconds(8), 1), round(compile_seconds(32))
    (2.9, 99)
    """
    return _COMPILE_COEFFICIENT * float(rank) ** _COMPILE_EXPONENT


def check_compile_cost(rank: int, allow_long: bool = False) -> None:
    """Refuse (:class:`~symrmt.errors.ParameterError`) weights of a rank whose systems take longer than
    :data:`MAX_COMPILE_SECONDS` to compile, with the estimate, unless ``allow_long``."""
    seconds = compile_seconds(rank)
    if seconds > MAX_COMPILE_SECONDS and not allow_long:
        raise ParameterError(
            f"a Gram matrix of rank r = {rank}: the rank-{rank} systems take about {seconds:.0f} s of CPU to derive "
            f"and compile (growing as r^{_COMPILE_EXPONENT}; {compile_seconds(8):.0f} s at r = 8), several times "
            "that on a busy machine. Use a lower rank, or pass --allow-long to wait.")


def solve_in_form(model: Model | str, rank: int, params: Parameters | Mapping, form: str = DEFAULT_FORM,
                  partial: bool = False) -> FormResult:
    """Solve ``model``'s system (a :class:`~symrmt.models.Model` or a registered name) of ``rank`` at ``params`` in ``form``.

    ``params``: the :class:`~symrmt.solve.Parameters` of :meth:`symrmt.models.Model.bind` (checked once,
    trusted here), or arrays keyed by the system's parameter symbols (checked here against its domains).
    ``partial`` as in :func:`symrmt.solve.solve`: a point no form solves fails alone (a
    :class:`~symrmt.errors.ConvergenceError` naming every such point, or with ``partial=True`` NaN there
    and the point in ``failures``).
    """
    check_form(form)
    partial = validate.boolean("partial", partial)
    model = get_model(model)
    system = model.system_summary(rank)
    if not isinstance(params, Parameters):
        params = check_parameters(system.parameters, system.domains, params)
    if form == "quadrature" or (form == "auto" and model.auto_form == "quadrature"):
        result = solve(model.compiled(rank, "quadrature"), params, partial=partial or form == "auto")
        if form == "auto" and np.any(result.failed):
            result = _rescued(model, rank, system, params, result)
            if result.failures and not partial:
                raise ConvergenceError(failure_message(system.name, result.failures, result.failed.size),
                                       result.failures)
            return result
        return FormResult(**vars(result), form_used=np.full(params.shape, Route.QUADRATURE.value))
    parts = []
    for where, route in _groups(params.flat, form):
        points = params.subset(where)
        if route is Route.REFUSED:
            parts.append((where, _refused(system, points), route))
        elif route is Route.QUADRATURE:
            parts.append((where, solve(model.compiled(rank, "quadrature"), points, partial=True), route))
        else:
            parts += _algebraic(model, rank, where, points, route, form)
    result = _merge(system.unknowns, parts, params.shape)
    if result.failures and not partial:
        raise ConvergenceError(failure_message(system.name, result.failures, result.failed.size), result.failures)
    return result


def _groups(flat: Mapping, form: str) -> list[tuple[np.ndarray, Route]]:
    """The points of each route: ``(mask, route)``, before ``"auto"`` refers ill-conditioned points."""
    from ..derive import symbols as S  # heavy: SymPy

    size = next(iter(flat.values())).size
    if S.a1 not in flat:
        return [(np.ones(size, bool), Route.ALGEBRAIC)]
    a1, b = flat[S.a1], flat[S.b]
    zero = a1 == 0
    # |a_1| < A1_FLOOR sqrt(nu), with nu = a_1^2 + b^2 written out (b is a parameter, nu is not).
    small = ~zero & (np.abs(a1) < A1_FLOOR * np.sqrt(a1**2 + b**2))
    groups = ((~zero & ~small, Route.ALGEBRAIC),
              (zero, Route.ALGEBRAIC_WITHOUT_LINEAR_PART if form == "algebraic" else Route.QUADRATURE),
              (small, Route.REFUSED if form == "algebraic" else Route.QUADRATURE))
    merged: dict = {}
    for mask, route in groups:
        merged[route] = merged.get(route, np.zeros(size, bool)) | mask
    return [(mask, route) for route, mask in merged.items() if mask.any()]


def _algebraic(model: Model, rank: int, where: np.ndarray, points: Parameters, route: Route, form: str) -> list:
    """``[(mask, result, route)]`` of the algebraic form at ``points``; under ``"auto"`` the points it fails, and
    those whose unknowns' estimated error exceeds :data:`NEWTON_ERROR_CEILING`, are solved again by quadrature
    (the reference decides them, unless it refuses one the algebraic form answered)."""
    from ..derive import symbols as S  # heavy: SymPy

    zero = route is Route.ALGEBRAIC_WITHOUT_LINEAR_PART
    compiled = model.compiled(rank, "algebraic", without_linear_part=zero)
    subset = points.subset(slice(None), drop=(S.a1,) if zero else ())
    result = solve(compiled, subset, partial=True)
    if form == "algebraic":
        return [(where, result, route)]
    refer = _referred(compiled, subset.flat, result)
    if not refer.any():
        return [(where, result, route)]
    again = solve(model.compiled(rank, "quadrature"), points.subset(refer), partial=True)
    # Where the quadrature refuses too (gamma below what its nodes resolve), the algebraic answer stands.
    stands = again.failed & ~result.failed[refer]
    if stands.any():
        refer[np.flatnonzero(refer)[stands]] = False
        if not refer.any():
            return [(where, result, route)]
        again = _subset(again, ~stands)
    positions = np.flatnonzero(where)
    referred = np.zeros_like(where)
    referred[positions[refer]] = True
    kept = np.zeros_like(where)
    kept[positions[~refer]] = True
    return [(kept, _subset(result, ~refer), route), (referred, again, Route.QUADRATURE)]


def _rescued(model: Model, rank: int, system, params: Parameters, result: SolveResult) -> FormResult:
    """Under ``"auto"``, a quadrature-preferring model's points that its quadrature form fails (a gamma below what
    its nodes resolve: linear regression at c = 1 and gamma = 1e-10) solved again in the general algebraic form,
    which answers where the attention model's does; its answer stands where it solves the point and is
    well-conditioned (:data:`NEWTON_ERROR_CEILING`), else the quadrature's failure does."""
    flat = _flat(result)
    failed = flat.failed.copy()
    algebraic = next((mask for mask, route in _groups(params.flat, "auto") if route is Route.ALGEBRAIC), None)
    if algebraic is not None:
        failed &= algebraic
    if not failed.any():
        return FormResult(**vars(result), form_used=np.full(params.shape, Route.QUADRATURE.value))
    points = params.subset(failed)
    compiled = model.compiled(rank, "algebraic")
    again = solve(compiled, points, partial=True)
    good = ~np.asarray(again.failed) & (newton_error(compiled, points.flat, again.unknowns) <= NEWTON_ERROR_CEILING)
    rescued = np.zeros_like(failed)
    rescued[np.flatnonzero(failed)[good]] = True
    return _merge(system.unknowns, [(~rescued, _subset(flat, ~rescued), Route.QUADRATURE),
                                    (rescued, _subset(again, good), Route.ALGEBRAIC)], params.shape)


def _flat(result: SolveResult) -> SolveResult:
    """``result`` with its points in one flat axis (as :func:`_subset` and :func:`_merge` take them)."""
    shape = np.shape(result.failed)
    failures = tuple(dataclasses.replace(f, index=(int(np.ravel_multi_index(f.index, shape)) if shape else 0,))
                     for f in result.failures)
    return SolveResult({k: np.ravel(v) for k, v in result.observables.items()},
                       np.reshape(result.unknowns, (len(result.unknowns), int(np.prod(shape)))), np.ravel(result.residual),
                       result.unknown_keys, np.ravel(result.failed), failures)


def _referred(compiled, points: Mapping, result: SolveResult) -> np.ndarray:
    """The points ``"auto"`` solves again by quadrature: the algebraic solution failed (NaN) or is ill-conditioned."""
    return np.asarray(result.failed) | ~(newton_error(compiled, points, result.unknowns) <= NEWTON_ERROR_CEILING)


def answered_algebraically(model: Model | str, rank: int, params: Mapping) -> np.ndarray:
    """Where ``form="auto"`` answers with the algebraic form (flat, in the order of the broadcast ``params``)."""
    result = solve_in_form(model, rank, params, "auto", partial=True)
    return np.ravel(result.form_used) != Route.QUADRATURE.value


def _subset(result: SolveResult, keep: np.ndarray) -> SolveResult:
    """The flat result at the points ``keep``, with their failures."""
    position = np.cumsum(keep) - 1
    failures = tuple(dataclasses.replace(f, index=(int(position[f.index[0]]),)) for f in result.failures
                     if keep[f.index[0]])
    return SolveResult({k: np.asarray(v)[keep] for k, v in result.observables.items()}, result.unknowns[:, keep],
                       result.residual[keep], result.unknown_keys, result.failed[keep], failures)


def _refused(system, points: Parameters) -> SolveResult:
    """Every point failed: 0 < |a_1| < A1_FLOOR sqrt(a_1^2 + b^2), which the algebraic form does not solve."""
    size = points.size
    nan = np.full(size, np.nan)
    reason = (f"0 < |a_1| < {A1_FLOOR:g} sqrt(a_1^2 + b^2): the algebraic form loses digits there (a root of "
              "det M(lambda) goes to infinity); use form='auto' or 'quadrature'")
    failures = tuple(PointFailure((i,), {str(k): float(v[i]) for k, v in points.flat.items()}, reason)
                     for i in range(size))
    return SolveResult({o: nan.copy() for o in system.observables}, np.full((len(system.unknowns), size), np.nan),
                       nan.copy(), system.unknowns, np.ones(size, bool), failures)


def _merge(keys: tuple, parts: list, shape: tuple) -> FormResult:
    """One result of ``shape`` from the groups' flat ones, with the unknowns ``keys`` (the t_ij, not the zeta)."""
    size, count = int(np.prod(shape)), len(keys)
    observables = {k: np.empty(size, dtype=np.result_type(*(np.asarray(p[k]).dtype for _, p, _ in parts)))
                   for k in parts[0][1].observables}
    unknowns = np.empty((count, size), dtype=np.result_type(*(p.unknowns.dtype for _, p, _ in parts)))
    residual, failed, failures = np.empty(size), np.zeros(size, bool), []
    form_used = np.empty(size, dtype=f"<U{max(len(r.value) for r in Route)}")
    for where, part, route in parts:
        positions = np.flatnonzero(where)
        for k, values in observables.items():
            values[where] = np.ravel(part[k])
        unknowns[:, where] = part.unknowns.reshape(len(part.unknowns), positions.size)[:count]
        residual[where] = np.ravel(part.residual)
        failed[where] = np.ravel(part.failed)
        form_used[where] = route.value
        failures += [dataclasses.replace(f, index=tuple(int(j) for j in np.unravel_index(positions[f.index[0]], shape)))
                     for f in part.failures]
    failures.sort(key=lambda f: np.ravel_multi_index(f.index, shape) if shape else 0)
    return FormResult({k: v.reshape(shape) for k, v in observables.items()}, unknowns.reshape(count, *shape),
                      residual.reshape(shape), keys, failed.reshape(shape), tuple(failures), form_used.reshape(shape))

r"""Newton's step, and the continuation of one small costly system along its continuation variable.

:func:`newton_step` is the step of every Newton iteration of the package: :math:`J^{-1}F` and the rate
:math:`\mathrm dt/\mathrm dv = -J^{-1}\,\mathrm dF/\mathrm dv` from one solve. The batched continuation of compiled
systems (:mod:`.path`) and the one-curve continuation here both take it.

:func:`follow` continues one system of a few unknowns whose every evaluation is costly (a model with a numeric
solver of its own: general M evaluates two :math:`p \times p` inverses per call), given by a
:class:`CurveSystem` that returns, at :math:`(t, v)`, the residual :math:`F`, its exact Jacobian and
:math:`\partial F/\partial v`. The physical solution is taken at a large start value of :math:`v` (above every
target, where the system's :meth:`~CurveSystem.initial` guess is in Newton's basin of it) and followed down the
requested grid, with extra points at most :data:`~.settings.CURVE_RATIO` apart:

- **predictor**: Hermite extrapolation in :math:`\log v` through the values and rates of the last three points
  (a quintic). The unknowns are smooth in :math:`\log v` (of order :math:`1/v` at large :math:`v`), where a
  polynomial in :math:`v` is not: one Newton step then reaches the tolerance, so each target costs about two
  evaluations, where an Euler step (:mod:`.path`, whose evaluations are cheap and batched) would need several;
- **corrector**: :class:`Newton`, with the exact Jacobian of every evaluation and a backtracking line search;
- **step control**: a step Newton cannot correct is redone in four shorter ones from the last point.

A point that cannot be solved raises :class:`~symrmt.errors.ConvergenceError`, as on the main path. Knows no model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol

import numpy as np

from ..errors import ConvergenceError
from .batched import solve_batched
from .settings import CURVE_FLOOR, CURVE_NEWTON, CURVE_RATIO, CURVE_START, CURVE_TOLERANCE

__all__ = ["newton_step", "CurveSystem", "Newton", "CurvePoint", "follow", "predict"]


def newton_step(residual, jacobian, dF_dv, growth: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Newton step :math:`J^{-1}F` and rate :math:`\mathrm dt/\mathrm dv = -J^{-1}\,\mathrm dF/\mathrm dv`, each (U, N).

    One batched solve for both right-hand sides (:func:`~.batched.solve_batched`, with its ``growth``:
    1 is partial pivoting; a singular Jacobian fails its point alone). Floating-point warnings are
    silenced: the callers test the entries for non-finite values.

    Parameters
    ----------
    residual : numpy.ndarray
        :math:`F`, shape (U, N): U unknowns at N points.
    jacobian : numpy.ndarray
        :math:`\partial F/\partial t`, shape (N, U, U).
    dF_dv : numpy.ndarray
        :math:`\partial F/\partial v`, shape (U, N).
    growth : float
        The largest elimination multiplier accepted without a row exchange (:func:`~.batched.solve_batched`).

    Returns
    -------
    step, rate : numpy.ndarray
        :math:`J^{-1}F` and :math:`-J^{-1}\,\partial F/\partial v`, each (U, N); NaN at a singular point.

    Raises
    ------
    Nothing
        A singular Jacobian gives NaN for its point.

    See Also
    --------
    Newton : The one-curve Newton iteration that takes it.
    symrmt.solve.path.continue_path : The batched continuation that takes it.

    Examples
    --------
    >>> import numpy as np
    >>> step, rate = newton_step(np.array([[2.0]]), np.array([[[4.0]]]), np.array([[1.0]]))
    >>> float(step[0, 0]), float(rate[0, 0])
    (0.5, -0.25)
    """
    with np.errstate(all="ignore"):
        solved = solve_batched(jacobian.transpose(1, 2, 0), np.stack([residual, dF_dv], axis=1), growth)
    return solved[:, 0], -solved[:, 1]


class CurveSystem(Protocol):
    """A system of U unknowns along a continuation variable v, as :func:`follow` takes it.

    ``name`` and ``variable`` (the continuation variable's name) name it in a failure's message; ``evaluate(t, v)``
    returns ``(F, J, dF_dv)``: the residual (U,), its Jacobian (U, U) and :math:`\\partial F/\\partial v` (U,);
    ``initial(v)`` is the guess at a large v that Newton takes to the physical solution.
    """

    name: str
    variable: str

    def evaluate(self, t: np.ndarray, v: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def initial(self, v: float) -> np.ndarray: ...


class Newton:
    """Newton on a :class:`CurveSystem` with the exact Jacobian of every evaluation (one evaluation per step).

    Converged when the residual is below ``tolerance`` (relative to max(1, |t|)), or when it has stalled below
    ``floor`` (the round-off of a costly evaluation, such as the traces of an ill-conditioned p x p matrix at a
    small v); each step is halved until the residual's norm falls (at most ten times). After a call,
    ``residual`` is what was reached and ``rate`` the rate dt/dv at the returned point (:func:`newton_step` of
    its evaluation, the predictor's slope).

    Examples
    --------
    >>> import numpy as np
    >>> class Root:                                       # t^2 = v, followed from t = sqrt(v) at a large v
    ...     name, variable = "square root", "v"
    ...     def evaluate(self, t, v):
    ...         return t * t - v, np.diag(2 * t), np.array([-1.0])
    ...     def initial(self, v):
    ...         return np.array([np.sqrt(v)])
    >>> newton = Newton(Root())
    >>> t, steps = newton(np.array([1.0]), 2.0)
    >>> round(float(t[0]), 12), round(float(newton.rate[0]), 12)
    (1.414213562373, 0.353553390593)
    """

    def __init__(self, system: CurveSystem, tolerance: float = CURVE_TOLERANCE, floor: float = CURVE_FLOOR):
        self.system, self.tolerance, self.floor = system, tolerance, floor
        self.rate = np.zeros(0)
        self.residual = 0.0

    def __call__(self, t: np.ndarray, v: float, maxit: int = CURVE_NEWTON) -> tuple[np.ndarray, int]:
        """Newton from ``t`` at ``v``: ``(t, steps)``; :class:`~symrmt.errors.ConvergenceError` where it fails."""
        system = self.system
        f0, J, dF = system.evaluate(t, v)
        step, self.rate = _step(f0, J, dF)
        best = np.inf
        stalled = 0
        for k in range(1, maxit + 1):
            res = np.max(np.abs(f0)) / max(1.0, np.max(np.abs(t)))
            self.residual = res
            if res < self.tolerance:
                return t, k - 1
            stalled = stalled + 1 if res > 0.5 * best else 0
            best = min(best, res)
            if stalled >= 3 and res < self.floor:
                return t, k - 1
            if not np.all(np.isfinite(step)):                 # a singular Jacobian: Newton cannot go on
                break
            lam = 1.0
            while True:
                tn = t - lam * step
                fn, Jn, dFn = system.evaluate(tn, v) if np.all(np.isfinite(tn)) else (np.full(t.size, np.nan),
                                                                                     None, None)
                if (np.all(np.isfinite(fn)) and np.linalg.norm(fn) < np.linalg.norm(f0)) or lam < 1e-3:
                    break
                lam *= 0.5
            if Jn is None or dFn is None or not np.all(np.isfinite(fn)):
                break
            t, f0 = tn, fn
            step, self.rate = _step(fn, Jn, dFn)
        raise ConvergenceError(f"the {system.name} fixed point did not converge at {system.variable} = {v:.4g} "
                               f"(residual {np.max(np.abs(f0)):.2e}).")


def _step(residual: np.ndarray, jacobian: np.ndarray, dF_dv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(J^-1 F, dt/dv)`` at one point, each (U,): :func:`newton_step`'s two solves, made one by one (LAPACK rounds a
    stacked right-hand side differently, and a costly system's points were computed so); NaN where J is singular."""
    try:
        return np.linalg.solve(jacobian, residual), -np.linalg.solve(jacobian, dF_dv)
    except np.linalg.LinAlgError:
        return np.full(residual.shape, np.nan), np.full(residual.shape, np.nan)


@dataclass(frozen=True)
class CurvePoint:
    """A requested target reached by :func:`follow`: its position ``index`` in the targets, the value ``v``, the
    unknowns ``t``, the rate ``rate`` = dt/dv, Newton's ``steps`` and the ``residual`` it reached."""

    index: int
    v: float
    t: np.ndarray
    rate: np.ndarray
    steps: int
    residual: float


def follow(system: CurveSystem, targets: np.ndarray, newton: Newton | None = None) -> Iterator[CurvePoint]:
    r"""Follow the physical solution of ``system`` from a large v down to each of ``targets`` (module docstring).

    The path starts at :data:`~.settings.CURVE_START` times the largest target (or 1), from
    ``system.initial`` there, and visits the targets from the largest down, with extra points inserted so that
    consecutive values are at most :data:`~.settings.CURVE_RATIO` apart.

    Parameters
    ----------
    system : CurveSystem
        The residual, its Jacobian and :math:`\partial F/\partial v`, and the start guess.
    targets : numpy.ndarray
        The values of v (> 0), in any order.
    newton : Newton, optional
        The corrector (default ``Newton(system)``); pass one to read its state between points.

    Returns
    -------
    iterator of CurvePoint
        One per target, from the largest down, yielded as soon as it is reached: ``system`` has then evaluated
        nothing since (a caller may read what its last evaluation left, at that point).

    Raises
    ------
    ConvergenceError
        Newton fails at the start, or on a step even in four shorter ones.

    See Also
    --------
    symrmt.solve.path.continue_path : The batched continuation of compiled systems (cheap evaluations).
    predict : The predictor.

    Examples
    --------
    >>> import numpy as np
    >>> class Root:                                       # t^2 = v: t = sqrt(v) at every target
    ...     name, variable = "square root", "v"
    ...     def evaluate(self, t, v):
    ...         return t * t - v, np.diag(2 * t), np.array([-1.0])
    ...     def initial(self, v):
    ...         return np.array([np.sqrt(v) * 1.1])
    >>> points = list(follow(Root(), np.array([0.01, 1.0])))
    >>> [(p.index, round(float(p.t[0]), 10)) for p in points]
    [(1, 1.0), (0, 0.1)]
    """
    newton = Newton(system) if newton is None else newton
    order = np.argsort(-targets)
    top = max(float(targets.max()), 1.0) * CURVE_START
    plan = []
    prev = top
    for k in order:
        g0 = targets[k]
        if g0 < prev / CURVE_RATIO:
            m = int(np.ceil(np.log(prev / g0) / np.log(CURVE_RATIO)))
            plan += [(None, gi) for gi in np.geomspace(prev, g0, m + 1)[1:-1]]
        plan.append((k, g0))
        prev = min(prev, g0)
    x, _ = newton(system.initial(top), top)
    history = [(top, x, newton.rate)]                   # the last three points, for the predictor
    g_prev = top
    for k, g0 in plan:
        try:
            x, n_steps = newton(predict(history, g0), g0)
        except ConvergenceError:
            # a step too long for the predictor: redo it in four shorter ones
            n_steps = 0
            for gi in np.geomspace(g_prev, g0, 5)[1:]:
                x, extra = newton(predict(history[-1:], gi), gi)
                history = [(gi, x, newton.rate)]
                n_steps += extra
        if history[-1][0] != g0:
            history = (history + [(g0, x, newton.rate)])[-3:]
        g_prev = g0
        if k is not None:
            yield CurvePoint(int(k), float(g0), x, newton.rate, n_steps, newton.residual)


def predict(history: list, v: float) -> np.ndarray:
    r"""Hermite extrapolation in :math:`\log v` to ``v`` through ``history``, up to three ``(v, t, dt/dv)`` (a quintic).

    The unknowns are smooth in :math:`\log v` (:math:`t \sim 1/v` at large :math:`v`), where a polynomial in
    :math:`v` is not: on general M's 50-point grid from 0.01 to 10 the quintic's error is about :math:`10^{-7}`, so
    one Newton step reaches the tolerance.

    Parameters
    ----------
    history : list of tuple
        ``(v, t, rate)`` of the last points, the latest last.
    v : float
        Where to predict (> 0).

    Returns
    -------
    numpy.ndarray
        The predicted unknowns.

    Raises
    ------
    numpy.linalg.LinAlgError
        Two points of ``history`` at the same v.

    See Also
    --------
    follow : The continuation that takes it.

    Examples
    --------
    >>> import numpy as np
    >>> history = [(2.0, np.array([0.5]), np.array([-0.25]))]        # t = 1/v and its rate at v = 2
    >>> round(float(predict(history, 2.5)[0]), 4)                     # 1/v is 0.4
    0.3884
    """
    s_last = np.log(history[-1][0])
    rows, rhs = [], []
    deg = 2 * len(history) - 1
    powers = np.arange(deg + 1)
    for g, x, dx in history:
        s = np.log(g) - s_last
        rows.append(s ** powers)
        rows.append(np.where(powers > 0, powers * s ** np.maximum(powers - 1, 0), 0.0))
        rhs += [x, g * dx]                                             # dt/d(log v) = v dt/dv
    coef = np.linalg.solve(np.array(rows), np.array(rhs))
    return (np.log(v) - s_last) ** powers @ coef

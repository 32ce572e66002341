r"""The deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)` for any weight matrix M (docs/general_weights.md).

:func:`attention_error_general` solves, for each :math:`\gamma`, the six-unknown fixed point

.. math::

    t = \frac1c\, R_n, \qquad R_n = \big(N_0 - \Sigma_n(t)\big)^{-1}, \qquad
    N_0 = \begin{pmatrix} \gamma & \kappa & 0 \\ \kappa & 0 & 1 \\ 0 & 1 & 0 \end{pmatrix},\quad
    \kappa = d - \alpha\,\tfrac{\operatorname{tr} M}{p},

    \Sigma_n(t) = T(t)\,\operatorname{diag}(1, 1, c) + b^2 \begin{pmatrix} t_{22} & \tau_e t_{12} & 0 \\
    \tau_e t_{12} & t_{11} & 0 \\ 0 & 0 & 0 \end{pmatrix},

with :math:`T(t)` the p-side traces of :func:`symrmt.general.kernel.p_side` (the only place M enters), then
the signal by Woodbury,

.. math::

    \Phi = r_{11} - g^\top \mathsf C (I + \mathsf G \mathsf C)^{-1} g, \qquad
    E_\mathrm{attn} = -\gamma^2 \frac{\mathrm d\Phi}{\mathrm d\gamma},

where :math:`r = c\,t`, :math:`\mathsf G` holds :math:`r_{ij}` for the label vectors and
:math:`c\, v_i^\top \Pi_{ij} v_j` for :math:`v = (M^\top\mu, M\mu, \mu)`, and
:math:`\mathsf C` the cores :math:`\frac{\alpha}{c}\begin{pmatrix}\mu^\top M\mu & 1 \\ 1 & 0\end{pmatrix}` (K) and
:math:`\begin{pmatrix}\|\mu\|^2 & 1 \\ 1 & 0\end{pmatrix}` (the data Gram matrix). The physical solution is
followed by continuation from large :math:`\gamma` (:math:`t_{11} \approx 1/(c\gamma)`), Newton steps with a
finite-difference Jacobian; :math:`\mathrm d\Phi/\mathrm d\gamma` by implicit differentiation of the fixed point
and a central difference of :math:`\Phi` along the tangent (no simulation, no fitted constant).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from .hermite_scaled import ScaledHermite, scaled_hermite
from .kernel import MatrixData, core_traces, p_side, signal_forms

__all__ = ["attention_error_general", "GeneralSolution", "solve_general", "resolve_matrix"]

_IU = np.triu_indices(3)
#: the largest ratio between consecutive gamma of the continuation (extra points are inserted)
_RATIO = 2.5


def resolve_matrix(weights: Any, p: int | None = None) -> np.ndarray:
    r"""M as a float (p, p) array from a matrix or a pair ``(W_K, W_Q)`` (:math:`M = W_K^\top W_Q`).

    Refuses in one line a matrix that is not square, not real and finite, or not of size ``p``.
    """
    if isinstance(weights, tuple) and len(weights) == 2:
        WK, WQ = (np.asarray(w, dtype=float) for w in weights)
        if WK.ndim != 2 or WK.shape != WQ.shape:
            raise ParameterError(f"weights=(W_K, W_Q) need two arrays of the same 2-D shape, got {WK.shape} and {WQ.shape}.")
        weights = WK.T @ WQ
    M = np.asarray(weights)
    if M.dtype.kind not in "iuf":
        raise ParameterError("weights must be a real p x p matrix M = W_K^T W_Q or a pair (W_K, W_Q).")
    M = M.astype(float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ParameterError(f"weights has shape {M.shape}: M must be p x p with p = c*n.")
    if p is not None and M.shape[0] != p:
        raise ParameterError(f"weights are {M.shape[0]} x {M.shape[0]} but p = c*n = {p}.")
    if not np.all(np.isfinite(M)):
        raise ParameterError("weights: every entry of M must be finite.")
    return M


@dataclass
class GeneralSolution:
    """Per-gamma results: ``gamma``, ``error`` (E_attn), ``phi``, ``t`` (3x3 traces), ``hermite`` data."""

    gamma: np.ndarray
    error: np.ndarray
    phi: np.ndarray
    t: np.ndarray
    hermite: ScaledHermite
    newton_steps: np.ndarray


class PathSystem:
    def __init__(self, data: MatrixData, herm: ScaledHermite, c: float, d: float, mu: np.ndarray | None):
        self.data, self.h, self.c = data, herm, c
        self.kappa = d - herm.alpha * data.trace
        self.w = np.array([1.0, 1.0, c])
        self.mu = mu if (mu is not None and np.any(mu)) else None
        self.evaluations = 0
        if self.mu is not None:
            M = data.M
            self.vectors = [M.T @ mu, M @ mu, mu]
            self.theta_m = float(mu @ M @ mu)
            self.theta = float(mu @ mu)

    def rn(self, t: np.ndarray, gamma: float, core=None):
        h, c = self.h, self.c
        self.evaluations += core is None
        T, fac = p_side(t, self.data, h.alpha, c, core)
        if core is None:
            self.last = (t, fac)
        sig = T * self.w[None, :]
        sig[0, 0] += h.b2 * t[1, 1]
        sig[1, 1] += h.b2 * t[0, 0]
        sig[0, 1] += h.beta * t[1, 0]
        sig[1, 0] += h.beta * t[0, 1]
        N0 = np.array([[gamma, self.kappa, 0.0], [self.kappa, 0.0, 1.0], [0.0, 1.0, 0.0]])
        r = np.linalg.inv(N0 - sig)
        return 0.5 * (r + r.T), fac

    def residual(self, x: np.ndarray, gamma: float, core=None) -> np.ndarray:
        r, _ = self.rn(_sym(x), gamma, core)
        return r[_IU] / self.c - x

    def phi(self, x: np.ndarray, gamma: float) -> float:
        t = _sym(x)
        r, fac = self.rn(t, gamma)
        if self.mu is None:
            return float(r[0, 0])
        c, alpha = self.c, self.h.alpha
        Z = signal_forms(t, fac, c, self.vectors)
        # Woodbury vectors: y1, sK1, y2, sQ2, y3, s3 (blocks 1, 1, 2, 2, 3, 3)
        G = np.zeros((6, 6))
        for a in range(3):
            for b in range(3):
                G[2 * a, 2 * b] = r[a, b]
                G[2 * a + 1, 2 * b + 1] = c * Z[a, b]
        g = np.zeros(6)
        g[[0, 2, 4]] = r[:, 0]
        SL = np.array([[self.theta_m, 1.0], [1.0, 0.0]])
        C = np.zeros((6, 6))
        C[0:2, 2:4] = alpha / c * SL.T
        C[2:4, 0:2] = alpha / c * SL
        C[4:6, 4:6] = np.array([[self.theta, 1.0], [1.0, 0.0]])
        return float(r[0, 0] - g @ C @ np.linalg.solve(np.eye(6) + G @ C, g))


def _sym(x: np.ndarray) -> np.ndarray:
    t = np.zeros((3, 3))
    t[_IU] = x
    return t + np.triu(t, 1).T


def _jacobian(sys_: PathSystem, x: np.ndarray, gamma: float, f0: np.ndarray | None = None) -> np.ndarray:
    r"""The Jacobian of the residual at x from three p-side evaluations.

    The p-side depends on x only through the three scalars ``args`` of :class:`~symrmt.general.kernel.Factored`;
    its three traces are differenced forward in them (3 evaluations, relative step 1e-6) and the rest of
    the residual, cheap algebra, is differenced centrally with the traces replaced by that linear model.
    The forward step leaves an error of order 1e-6 in J: Newton does not mind, and the tangent is refined
    (see continuation_path).
    """
    t0 = _sym(x)
    _, fac = sys_.rn(t0, gamma)
    args0, core0 = fac.args.copy(), fac.core.copy()
    D = np.empty((3, 3))
    for k in range(3):
        h = 1e-6 * max(1.0, abs(args0[k]))
        a = args0.copy()
        a[k] += h
        sys_.evaluations += 1
        D[:, k] = (core_traces(sys_.data, *a) - core0) / h
    model = lambda args: core0 + D @ (args - args0)             # noqa: E731 - the linear model of the traces
    J = np.empty((6, 6))
    for k in range(6):
        h = 1e-6 * max(1.0, abs(x[k]))
        xp, xm = x.copy(), x.copy()
        xp[k] += h
        xm[k] -= h
        J[:, k] = (sys_.residual(xp, gamma, model) - sys_.residual(xm, gamma, model)) / (2 * h)
    return J


class _Newton:
    """Chord Newton: the Jacobian is kept across gamma points and refreshed only when convergence is slow.

    Converged when the residual is below ``tol`` (relative to max(1, |x|)), or when it has stalled below
    ``floor`` (the round-off of the p-side traces when a p x p matrix is ill-conditioned, seen at small
    gamma on real weights); ``self.residual`` keeps what was reached, for the step of the derivative.
    """

    def __init__(self, system: PathSystem, tol: float = 1e-12, floor: float = 1e-7):
        self.s, self.J, self.tol, self.floor = system, None, tol, floor
        self.residual = 0.0

    def __call__(self, x: np.ndarray, gamma: float, maxit: int = 40) -> tuple[np.ndarray, int]:
        s = self.s
        f0 = s.residual(x, gamma)
        if self.J is None:
            self.J = _jacobian(s, x, gamma, f0)
        best = np.inf
        stalled = 0
        for k in range(1, maxit + 1):
            scale = max(1.0, np.max(np.abs(x)))
            res = np.max(np.abs(f0)) / scale
            self.residual = res
            if res < self.tol:
                return x, k - 1
            stalled = stalled + 1 if res > 0.5 * best else 0
            best = min(best, res)
            if stalled >= 3 and res < self.floor:
                return x, k - 1
            dx = -np.linalg.solve(self.J, f0)
            lam = 1.0
            while True:
                xn = x + lam * dx
                fn = s.residual(xn, gamma)
                if (np.all(np.isfinite(fn)) and np.linalg.norm(fn) < np.linalg.norm(f0)) or lam < 1e-3:
                    break
                lam *= 0.5
            if lam < 1 or np.linalg.norm(fn) > 0.5 * np.linalg.norm(f0):
                x, f0 = xn, fn
                self.J = _jacobian(s, x, gamma, f0)
            else:
                s_ = xn - x                                          # good Broyden update of the chord Jacobian
                self.J = self.J + np.outer(fn - f0 - self.J @ s_, s_) / (s_ @ s_)
                x, f0 = xn, fn
        raise ParameterError(f"the general-M fixed point did not converge at gamma = {gamma:.4g} "
                             f"(residual {np.max(np.abs(f0)):.2e}).")


def solve_general(f: Any, c: float, gamma: Any, weights: Any, mu: Any = None, d: float = 0.0,
                  step: float = 2e-5, scalars: dict | None = None) -> GeneralSolution:
    r"""Solve the general-M system on a grid of :math:`\gamma` (continuation from large :math:`\gamma`).

    Parameters are those of :func:`attention_error_general`; ``step`` is the relative step of the central
    difference :math:`\mathrm d\Phi/\mathrm d\gamma` between two converged solutions (tolerance
    :math:`10^{-13}`, so the difference is exact to about :math:`10^{-9}`). Returns a
    :class:`GeneralSolution` in the order of ``gamma``. ``scalars`` overrides the three numbers of M that
    enter outside the p-side traces, ``{"sigma": ..., "rho": ..., "trace": ...}`` (:math:`\|M\|_F/\sqrt p`,
    :math:`\operatorname{tr}M^2/\|M\|_F^2`, :math:`\operatorname{tr}M/p`): with their limits (1, 1, 1) for
    :math:`M = I + \text{rank } r` the system is the rank-r system exactly (docs/general_weights.md, "Reduction").
    """
    M = resolve_matrix(weights)
    p = M.shape[0]
    c = float(c)
    if not (np.isfinite(c) and c > 0):
        raise ParameterError(f"c = {c!r} must be finite and > 0.")
    gam = np.atleast_1d(np.asarray(gamma, dtype=float)).ravel()
    if np.any(~np.isfinite(gam)) or np.any(gam <= 0):
        raise ParameterError("gamma must be finite and > 0.")
    if mu is not None:
        mu = np.asarray(mu, dtype=float).ravel()
        if mu.shape != (p,) or not np.all(np.isfinite(mu)):
            raise ParameterError(f"mu must be a finite vector of length p = {p}.")
    with blas_limit(p):
        data = MatrixData(M)
        for key, value in (scalars or {}).items():
            if key not in ("sigma", "rho", "trace"):
                raise ParameterError(f"scalars: unknown key {key!r} (sigma, rho, trace).")
            setattr(data, key, float(value))
        herm = scaled_hermite(f, data.sigma, data.rho)
        system = PathSystem(data, herm, c, float(d), mu)
        return continuation_path(system, gam, step)


def continuation_path(system: PathSystem, gam: np.ndarray, step: float) -> GeneralSolution:
    r"""Continuation from large :math:`\gamma` down the requested grid (extra points at most ``_RATIO`` apart).

    At each point: a predictor from the last point's value and tangent (quadratic through the point before),
    Newton with the last point's Jacobian as a Broyden-updated chord, the tangent
    :math:`\mathrm dx/\mathrm d\gamma` from a fresh Jacobian at the solution (four p-side evaluations,
    :func:`_jacobian`) refined by central directional derivatives, and
    :math:`\mathrm d\Phi/\mathrm d\gamma` by a central difference along the tangent.
    """
    c = system.c
    newton = _Newton(system)
    order = np.argsort(-gam)
    top = max(float(gam.max()), 1.0) * 50.0
    x = np.zeros(6)
    x[0] = 1.0 / (c * top)
    targets = []
    prev = top
    for k in order:
        g0 = gam[k]
        if g0 < prev / _RATIO:
            m = int(np.ceil(np.log(prev / g0) / np.log(_RATIO)))
            targets += [(None, gi) for gi in np.geomspace(prev, g0, m + 1)[1:-1]]
        targets.append((k, g0))
        prev = min(prev, g0)
    err, phi, steps = (np.full(len(gam), np.nan) for _ in range(3))
    ts = np.empty((len(gam), 3, 3))
    x, _ = newton(x, top)
    dx = _tangent(system, newton, x, top)
    before = None                                              # (gamma, x) of the point before
    g_prev = top
    for k, g0 in targets:
        delta = g0 - g_prev
        pred = x + dx * delta
        if before is not None:
            g1, x1 = before
            q = (x1 - x - dx * (g1 - g_prev)) / (g1 - g_prev) ** 2
            pred = pred + q * delta ** 2
        before = (g_prev, x)
        try:
            x, n_steps = newton(pred, g0)
        except ParameterError:
            # a step too long for the predictor and the chord: redo it in four shorter ones, fresh Jacobians
            n_steps = 0
            g_cur = g_prev
            for gi in np.geomspace(g_prev, g0, 5)[1:]:
                x_start = x + dx * (gi - g_cur)
                newton.J = _jacobian(system, x_start, gi)
                x, extra = newton(x_start, gi)
                dx = _tangent(system, newton, x, gi)
                n_steps += extra
                g_cur = gi
            before = None
        dx = _tangent(system, newton, x, g0)
        g_prev = g0
        if k is None:
            continue
        steps[k] = n_steps
        # the central difference's step: `step`, or larger where the residual stalled above round-off (its
        # noise divided by the step must stay below the step's truncation error, step^2)
        h = max(step, newton.residual ** (1 / 3)) * g0
        dphi = (system.phi(x + h * dx, g0 + h) - system.phi(x - h * dx, g0 - h)) / (2 * h)
        err[k] = -g0 * g0 * dphi
        phi[k] = system.phi(x, g0) if system.mu is not None else c * x[0]
        ts[k] = _sym(x)
    return GeneralSolution(gam, err, phi, ts, system.h, steps)


def _tangent(system: PathSystem, newton: "_Newton", x: np.ndarray, g0: float) -> np.ndarray:
    r""":math:`\mathrm dx/\mathrm d\gamma` at a solution: :math:`J\,\mathrm dx = -\partial_\gamma\text{res}`.

    :math:`\gamma` enters only :math:`N_0`, so :math:`\partial_\gamma R_n = -R_n e_1e_1^\top R_n` exactly; J is Newton's
    (fresh at x: finite differences, error ~1e-6), refined twice by central directional derivatives of the exact residual
    (error :math:`O(\epsilon^2)`, :math:`\epsilon = 10^{-5}`), so E is not limited by J.
    """
    c = system.c
    r, _ = system.rn(_sym(x), g0)
    J = newton.J = _jacobian(system, x, g0)
    dres = -(np.outer(r[:, 0], r[0, :]))[_IU] / c
    dx = -np.linalg.solve(J, dres)
    for _ in range(2):
        eps = 1e-5 / max(np.max(np.abs(dx)), 1e-300) * max(1.0, np.max(np.abs(x)))
        jdx = (system.residual(x + eps * dx, g0) - system.residual(x - eps * dx, g0)) / (2 * eps)
        dx = dx - np.linalg.solve(J, jdx + dres)
    return dx


class blas_limit:
    """BLAS threads limited to the usable CPUs (1 below p = 600, where one thread is fastest)."""

    def __init__(self, p: int):
        self.p, self.ctx = p, None

    def __enter__(self):
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:                                   # pragma: no cover - optional
            return self
        from ..runtime.cpus import usable_cpus
        self.ctx = threadpool_limits(limits=1 if self.p < 600 else usable_cpus(), user_api="blas")
        return self

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)
        return False


def attention_error_general(f: Any, c: float, gamma: Any, weights: Any, mu: Any = None, d: float = 0.0) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)` for scores :math:`X^\top M X/\sqrt p`, any real M.

    Parameters
    ----------
    f : str, SymPy expression or callable
        The nonlinearity (entrywise); its Hermite data are taken at the score scale
        :math:`\sigma = \|M\|_F/\sqrt p`.
    c : float
        :math:`p/n`.
    gamma : float or array_like
        Ridge parameters (> 0).
    weights : array_like (p, p) or tuple (W_K, W_Q)
        :math:`M = W_K^\top W_Q` in the package's orientation (:math:`S_{ij} = x_i^\top M x_j/\sqrt p`).
    mu : array_like (p,), optional
        The signal vector (enters through :math:`M\mu`, :math:`M^\top\mu`, :math:`\mu^\top M\mu` and the
        quadratic forms of the p-side resolvent).
    d : float
        The diagonal of K.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{attn}` with the shape of ``gamma``.
    """
    sol = solve_general(f, c, gamma, weights, mu, d)
    return sol.error.reshape(np.shape(gamma))

r"""The deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)` for any weight matrix M (docs/theory.md, section 18).

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
followed by the package's one-curve continuation (:func:`symrmt.solve.curve.follow`) from large :math:`\gamma`
(:math:`t_{11} \approx 1/(c\gamma)`), Newton steps with an exact Jacobian; :math:`\mathrm d\Phi/\mathrm d\gamma` by implicit differentiation of the fixed point
and a central difference of :math:`\Phi` along the tangent (no simulation, no fitted constant).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ..errors import ParameterError
from ..models.binding import attention_arguments, centred_f
from ..nonlinearity.scaled import ScaledHermite, scaled_hermite
from ..runtime.cpus import usable_cpus
from ..solve.curve import Newton, follow
from ..validate import signal_vector
from ..weight_matrix import read_weight_matrix
from .kernel import Factored, MatrixData, p_side, signal_forms

__all__ = ["attention_error_general", "GeneralSolution", "solve_general", "read_arguments"]

_IU = np.triu_indices(3)


@dataclass
class GeneralSolution:
    """Per-gamma results: ``gamma``, ``error`` (E_attn), ``phi``, ``t`` (3x3 traces), ``hermite`` data.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.general import solve_general
    >>> solution = solve_general("tanh(x)", 1.0, [0.1, 1.0], np.eye(64))
    >>> np.round(solution.error, 4).tolist(), solution.t.shape
    ([0.4532, 0.7427], (2, 3, 3))
    """

    gamma: np.ndarray
    error: np.ndarray
    phi: np.ndarray
    t: np.ndarray
    hermite: ScaledHermite
    newton_steps: np.ndarray
    residual: np.ndarray | None = None


class PathSystem:
    r"""The general-M system along :math:`\gamma`: its residual, exact Jacobian and rate (a
    :class:`symrmt.solve.curve.CurveSystem`), and :math:`\Phi`.

    The unknowns x are the upper triangle of t (``t11, t12, t13, t22, t23, t33``); the residual is
    :math:`R_n[\text{upper}]/c - x` (module docstring).
    """

    name, variable = "general-M", "gamma"

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

    def rn(self, t: np.ndarray, gamma: float, core=None, derivatives: bool = False):
        h, c = self.h, self.c
        self.evaluations += core is None
        T, fac = p_side(t, self.data, h.alpha, c, core, derivatives)
        if core is None:
            self.last = (t.copy(), gamma, fac)
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

    def initial(self, gamma: float) -> np.ndarray:
        r"""The physical solution's guess at a large :math:`\gamma`: :math:`t_{11} \approx 1/(c\gamma)`, the rest 0."""
        x = np.zeros(6)
        x[0] = 1.0 / (self.c * gamma)
        return x

    def evaluate(self, x: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""The residual at x, its Jacobian and :math:`\partial\,\text{res}/\partial\gamma`, from one p-side
        evaluation with derivatives.

        The p-side depends on x only through the three scalars ``args`` of :class:`~symrmt.general.kernel.Factored`,
        and its traces come with their exact derivatives in them (:func:`~symrmt.general.kernel.pair_traces`); the
        rest of the residual, cheap algebra, is differenced centrally (step 1e-6, error ~1e-12) with the traces
        replaced by their exact linear model. Where the traces come from a model of M (elliptic.py) the model is
        evaluated directly. :math:`\gamma` enters only :math:`N_0`, so
        :math:`\partial_\gamma R_n = -R_n e_1e_1^\top R_n` exactly.
        """
        r, fac = self.rn(_sym(x), gamma, derivatives=True)
        f0 = r[_IU] / self.c - x
        args0, core0, D = fac.args.copy(), fac.core.copy(), fac.D
        model = None if D is None else (lambda args: core0 + D @ (args - args0))
        J = np.empty((6, 6))
        for k in range(6):
            h = 1e-6 * max(1.0, abs(x[k]))
            xp, xm = x.copy(), x.copy()
            xp[k] += h
            xm[k] -= h
            J[:, k] = (self.residual(xp, gamma, model) - self.residual(xm, gamma, model)) / (2 * h)
        return f0, J, -(np.outer(r[:, 0], r[0, :]))[_IU] / self.c

    def phi(self, x: np.ndarray, gamma: float, around: "Factored | None" = None) -> float:
        r""":math:`\Phi` at ``(x, gamma)``. ``around``: a factorized p-side near x with its derivatives; the p-side at
        x is then its first-order expansion (traces by their exact linear model, :math:`N^{-1}` applied to vectors
        as :math:`N_0^{-1} - N_0^{-1}\,\delta N\,N_0^{-1}`): :math:`O(p^2)`, and exact to second order, which a
        central difference does not see (the second-order terms are even in the step)."""
        t = _sym(x)
        last = getattr(self, "last", None)
        if around is not None and around.D is None:           # a model of the traces (elliptic.py): evaluate it
            r, fac = self.rn(t, gamma)
        elif around is not None:
            args0, core0, D = around.args, around.core, around.D
            r, fac = self.rn(t, gamma, core=lambda args: core0 + D @ (args - args0))
            fac.inverses = around.perturbed_inverses(fac.args)
        elif last is not None and last[1] == gamma and np.array_equal(last[0], t) and last[2].inverses is not None:
            fac = last[2]                                     # the p-side at this point is already factorized
            r, _ = self.rn(t, gamma, core=lambda args: fac.core)
        else:
            r, fac = self.rn(t, gamma)
        if self.mu is None:
            return float(r[0, 0])
        c, alpha = self.c, self.h.alpha
        if fac.model_state is not None:                       # a model of M (elliptic.py): its own forms
            Z = self.data.tau_model.signal_forms(fac.model_state, fac.F, t, c, self.mu)
        else:
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


def read_arguments(f: Any, c: Any, gamma: Any, d: Any) -> tuple[Any, float, np.ndarray, float]:
    r"""``(f, c, gamma, d)`` of the general-M theories, read and checked once by the readers of the main path.

    f must be centred (:func:`symrmt.models.binding.centred_f`); c, gamma and d are checked against the attention
    system's domains (:func:`symrmt.models.binding.attention_arguments`), word for word as
    ``attention_error`` without weights refuses them; c and d are single numbers (one matrix fixes p), gamma is
    returned flat.
    """
    f = centred_f(f)
    checked = attention_arguments(c=c, gamma=gamma, d=d)
    for name in ("c", "d"):
        if checked[name].ndim:
            raise ParameterError(f"{name} must be a single number with weights= (one matrix fixes p; loop over "
                                 f"{name}).")
    return f, float(checked["c"]), checked["gamma"].ravel(), float(checked["d"])


def solve_general(f: Any, c: float, gamma: Any, weights: Any, mu: Any = None, d: float = 0.0,
                  step: float = 2e-5, scalars: dict | None = None) -> GeneralSolution:
    r"""Solve the general-M system on a grid of :math:`\gamma` (continuation from large :math:`\gamma`).

    Parameters are those of :func:`attention_error_general`; ``step`` is the relative step of the central
    difference :math:`\mathrm d\Phi/\mathrm d\gamma` between two converged solutions (tolerance
    :math:`10^{-13}`, so the difference is exact to about :math:`10^{-9}`). Returns a
    :class:`GeneralSolution` in the order of ``gamma``. ``scalars`` overrides the three numbers of M that
    enter outside the p-side traces, ``{"sigma": ..., "rho": ..., "trace": ...}`` (:math:`\|M\|_F/\sqrt p`,
    :math:`\operatorname{tr}M^2/\|M\|_F^2`, :math:`\operatorname{tr}M/p`): with their limits (1, 1, 1) for
    :math:`M = I + \text{rank } r` the system is the rank-r system exactly (docs/theory.md, section 18.8).

    Parameters
    ----------
    f, c, gamma, weights, mu, d
        As in :func:`attention_error_general`.
    step : float
        The relative step of the central difference :math:`\mathrm d\Phi/\mathrm d\gamma`.
    scalars : dict, optional
        Overrides of ``sigma``, ``rho`` and ``trace`` (above).

    Returns
    -------
    GeneralSolution
        :math:`E_\mathrm{attn}`, :math:`\Phi`, the traces t, the Hermite data and Newton's record, per gamma.

    Raises
    ------
    ParameterError
        As :func:`attention_error_general`, or an unknown key of ``scalars``.
    ConvergenceError
        Where the continuation (:func:`symrmt.solve.curve.follow`) cannot solve a point.

    See Also
    --------
    attention_error_general : Its :math:`E_\mathrm{attn}` alone, in the shape of gamma.
    solve_path : The path and the observables.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.general import solve_general
    >>> solution = solve_general("tanh(x)", 1.0, [0.1, 1.0], np.eye(64))     # M = I: the rank-1 theory without weights
    >>> np.round(solution.error, 4).tolist()
    [0.4532, 0.7427]
    """
    f, c, gam, d = read_arguments(f, c, gamma, d)
    M = read_weight_matrix(weights).dense()
    p = M.shape[0]
    if mu is not None:
        mu = signal_vector(mu, p)
    with blas_limit(p):
        data = MatrixData(M)
        for key, value in (scalars or {}).items():
            if key not in ("sigma", "rho", "trace"):
                raise ParameterError(f"scalars: unknown key {key!r} (sigma, rho, trace).")
            setattr(data, key, float(value))
        herm = scaled_hermite(f, data.sigma, data.rho)
        system = PathSystem(data, herm, c, d, mu)
        return solve_path(system, gam, step)


def solve_path(system: PathSystem, gam: np.ndarray, step: float) -> GeneralSolution:
    r"""The observables along the path of :math:`\gamma` that :func:`symrmt.solve.curve.follow` takes down ``gam``.

    At each target the continuation gives the unknowns and their tangent :math:`\mathrm dx/\mathrm d\gamma` (from the
    Jacobian of the last Newton evaluation); then :math:`\mathrm d\Phi/\mathrm d\gamma`: without a signal
    :math:`\Phi = c\,t_{11}` on the solution path, so it is :math:`c` times the tangent's first component; with
    a signal, a central difference of :math:`\Phi` along the tangent, around the p-side of Newton's last
    evaluation (the continuation evaluates nothing between reaching a target and handing it over).

    Parameters
    ----------
    system : PathSystem
        The general-M system.
    gam : numpy.ndarray
        The targets, flat (> 0).
    step : float
        The relative step of the central difference.

    Returns
    -------
    GeneralSolution
        In the order of ``gam``.

    Raises
    ------
    ConvergenceError
        Where the continuation cannot solve a point.

    See Also
    --------
    solve_general : The arguments read and the system built.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.general.kernel import MatrixData
    >>> from symrmt.nonlinearity.scaled import scaled_hermite
    >>> data = MatrixData(np.eye(64))
    >>> system = PathSystem(data, scaled_hermite("tanh(x)", data.sigma, data.rho), 1.0, 0.0, None)
    >>> np.round(solve_path(system, np.array([0.1, 1.0]), 2e-5).error, 4).tolist()
    [0.4532, 0.7427]
    """
    c = system.c
    newton = Newton(system)
    err, phi, steps, residual = (np.full(len(gam), np.nan) for _ in range(4))
    ts = np.empty((len(gam), 3, 3))
    for point in follow(system, gam, newton):
        k, g0, x, dx = point.index, point.v, point.t, point.rate
        steps[k], residual[k] = point.steps, point.residual
        if system.mu is None:
            err[k] = -g0 * g0 * c * dx[0]
            phi[k] = c * x[0]
        else:
            # the central difference's step: `step`, or larger where the residual stalled above round-off (its
            # noise divided by the step must stay below the step's truncation error, step^2)
            phi[k] = system.phi(x, g0)                        # reuses Newton's last evaluation, at x
            h = max(step, point.residual ** (1 / 3)) * g0
            base = system.last[2]
            dphi = (system.phi(x + h * dx, g0 + h, base) - system.phi(x - h * dx, g0 - h, base)) / (2 * h)
            err[k] = -g0 * g0 * dphi
        ts[k] = _sym(x)
    return GeneralSolution(gam, err, phi, ts, system.h, steps, residual)


class blas_limit:
    """BLAS threads limited to the usable CPUs (1 below p = 600, where one thread is fastest)."""

    def __init__(self, p: int):
        self.p, self.ctx = p, None

    def __enter__(self):
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

    Raises
    ------
    ParameterError
        Weights that are not a real square matrix (or a pair giving one), a signal of the wrong length, or a
        parameter outside its range.
    ConvergenceError
        When some point cannot be solved.

    See Also
    --------
    symrmt.attention_error : ``attention_error(f, c, gamma, weights=M, mu=u)`` calls this.
    attention_error_elliptic : The cheaper comparison model of M.

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> from symrmt.general import attention_error_general
    >>> general = attention_error_general("tanh(x)", 1.0, [0.1, 1.0], np.eye(64))
    >>> np.allclose(general, symrmt.attention_error("tanh(x)", 1.0, [0.1, 1.0]), rtol=1e-6)
    True
    """
    sol = solve_general(f, c, gamma, weights, mu, d)
    return sol.error.reshape(np.shape(gamma))

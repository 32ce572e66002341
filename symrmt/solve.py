r"""Fast numeric solution of a derived system (NumPy only; never imports SymPy).

Given the functions :mod:`symrmt.codegen` generated from a
:class:`~symrmt.derive.Derivation`, for arrays of parameters (all broadcast to
one shape) this module

1. averages over the spectral law of :math:`A = Z^\top Z/p` (Marchenko--Pastur
   with ratio :math:`1/c`, atom :math:`1 - c` at 0 when :math:`c < 1`) by the
   trapezoidal rule in :math:`\varphi` after
   :math:`\lambda = m - h\cos\varphi`, which is spectrally accurate because the
   integrand is smooth and periodic in :math:`\varphi` (even at :math:`c = 1`);
2. solves the Dyson fixed point :math:`t = \tau(t, \gamma)/c` by Newton's
   method with the Jacobian generated from SymPy, by continuation in
   :math:`\gamma` from :math:`\gamma_0 \gg 1` (where :math:`t \approx 0` is the
   unique, physical solution) down to the target, with an Euler predictor from
   the implicit derivative :math:`\mathrm dt/\mathrm d\gamma` and step halving
   where Newton fails;
3. evaluates :math:`\Phi = y^\top Q y/n` through the Woodbury correction, and
   :math:`E = -\gamma^2\,\mathrm d\Phi/\mathrm d\gamma` by implicit
   differentiation (no finite differences):
   :math:`(I - \partial_t\tau/c)\,\dot t = \partial_\gamma \tau / c`, then
   :math:`\dot\tau = \mathbb E_\lambda[-R\,\dot M R]` and the derivative of the
   Woodbury formula.

It reports the residual of every point and raises :class:`ConvergenceError`
rather than returning NaN.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .cpus import usable_cpus
from .errors import ConvergenceError

__all__ = ["SolveResult", "solve", "marchenko_pastur_rule", "INITIAL_NODES"]

#: Initial midpoint nodes in phi (multiple of 3: the embedded coarse rule takes every third node).
INITIAL_NODES = 48
#: Refinement stops here (48 * 3**6). At c = 1 the support reaches 0 and the pole of the integrand
#: at lambda ~ -gamma lies about sqrt(2 gamma / h) from the real phi axis, so the midpoint rule
#: needs about 7 / sqrt(gamma) nodes for 1e-6: this covers gamma down to ~1e-7 at c = 1 (linear
#: regression; attention somewhat lower). Smaller gamma there would need an algebraic E_lambda.
MAX_NODES = 34992
#: Accepted |E(full rule) - E(coarse rule)|. This estimates the error of the coarse rule (a third
#: of the nodes); the returned full rule converges geometrically and is far more accurate: on 5000
#: random points (c in [0.3, 3], gamma in [1e-2, 10], random geometry) the points accepted at 48
#: nodes with an estimate in [1e-7, 1e-6) were within 1e-9 of a 1296-node reference; on the
#: 10^4-point benchmark cloud every returned E is within 7.3e-12 of a 1296-node solve (2026-11-29).
QUADRATURE_TOLERANCE = 1e-6
TOLERANCE = 1e-11
#: Looser tolerance on the continuation path (only the target needs TOLERANCE).
PATH_TOLERANCE = 1e-6
#: A continuation step is accepted when its Newton correction is at most this fraction of the predicted change.
STEP_CONTROL = 1.0
#: Newton corrections allowed in one continuation step.
PATH_NEWTON = 3
#: Largest continuation step (a ratio in gamma).
MAX_RATIO = 10.0
#: A point whose step ratio falls below this has stalled. (With 1 + 1e-6, a point at gamma ~ 1e-12,
#: c = 1 alternated accepted and rejected steps at round-off level for 7e5 steps, 170 s, before
#: the quadrature refused it; outside the deliberately broken theories of the mutation tests, the
#: smallest ratio seen in the test suite was above 1.0006.)
MIN_RATIO = 1.0001
#: Points solved together (larger inputs are split), and the largest points x nodes array.
BATCH_POINTS = 20_000
CHUNK_ELEMENTS = 2_000_000
#: Inputs of at least twice this many points are split into batches solved in parallel threads.
PARALLEL_POINTS = 2_000
#: Point-nodes per block when generated integrands are evaluated (temporaries of 200 kB stay in cache).
CACHE_ELEMENTS = 25_000
#: Nodes of the cheaper rule used along the continuation path (the target is polished with the full rule).
PATH_NODES = 24
MAX_NEWTON = 30
STEPS_PER_DECADE = 1.5
#: Continuation starts at START_FACTOR times a crude scale of K^T C K.
START_FACTOR = 10.0


def marchenko_pastur_rule(c: np.ndarray, nodes: int = INITIAL_NODES) -> tuple[np.ndarray, np.ndarray]:
    r"""Quadrature nodes and weights for :math:`\mathbb E_\lambda` over the law of :math:`A = Z^\top Z/p`.

    The law is Marchenko--Pastur with ratio :math:`q = 1/c`: density
    :math:`\sqrt{(\lambda_+ - \lambda)(\lambda - \lambda_-)}/(2\pi q \lambda)` on
    :math:`[\lambda_-, \lambda_+] = [(1 - \sqrt q)^2, (1 + \sqrt q)^2]` plus an
    atom of mass :math:`1 - c` at 0 when :math:`c < 1`. With
    :math:`\lambda = m - h\cos\varphi` the density times :math:`\mathrm d\lambda` is
    :math:`h^2\sin^2\varphi/(2\pi q\lambda)\,\mathrm d\varphi`; midpoints in
    :math:`\varphi \in (0, \pi)`.

    The factor :math:`1/\lambda` has a pole at 0, just outside the support when
    :math:`c \approx 1`, which would slow the rule down. So the rule integrates
    :math:`\mathbb E[g] = g(0) + \int (g(\lambda) - g(0))/\lambda \cdot
    \sqrt{(\lambda_+ - \lambda)(\lambda - \lambda_-)}/(2\pi q)\,\mathrm d\lambda`,
    whose integrand is smooth: the node weights are unchanged and the weight of
    the node at 0 becomes :math:`1 - \sum_j w_j` (the atom :math:`(1 - c)_+`
    plus the rule's error on the constant), so constants are integrated exactly.

    Returns arrays of shape ``c.shape + (nodes + 1,)``; the last node is :math:`\lambda = 0`.

    Examples
    --------
    >>> lam, w = marchenko_pastur_rule(np.array([0.5, 2.0]))
    >>> np.round(w.sum(-1), 12), np.round((w * lam).sum(-1), 12)
    (array([1., 1.]), array([1., 1.]))
    """
    c = np.asarray(c, dtype=float)[..., None]
    q = 1.0 / c
    upper, lower = (1 + np.sqrt(q)) ** 2, (1 - np.sqrt(q)) ** 2
    mid, half = (upper + lower) / 2, (upper - lower) / 2
    phi = (np.arange(nodes) + 0.5) * np.pi / nodes
    lam = mid - half * np.cos(phi)
    weights = (np.pi / nodes) * half**2 * np.sin(phi) ** 2 / (2 * np.pi * q * lam)
    at_zero = 1.0 - weights.sum(axis=-1, keepdims=True)
    return (np.concatenate([lam, np.zeros_like(at_zero)], axis=-1),
            np.concatenate([weights, at_zero], axis=-1))


@dataclass(frozen=True)
class SolveResult:
    r"""Solution at each parameter point (arrays of the broadcast shape)."""

    error: np.ndarray        # E(gamma) = -gamma^2 dPhi/dgamma
    phi: np.ndarray          # y^T Q y / n
    unknowns: np.ndarray     # (U, ...) the normalized traces t_ij
    residual: np.ndarray     # max |t - tau(t)/c| at the solution


class _Problem:
    """One vectorized problem: flat parameter arrays of length N and their quadrature rule."""

    def __init__(self, compiled, flat: dict[str, np.ndarray], nodes: int) -> None:
        self.compiled = compiled
        self.names = [p.name for p in compiled.parameters]
        self.flat = flat
        self.nodes = nodes
        self.lam, self.weights = marchenko_pastur_rule(flat["c"], nodes)
        # The coarse rule inside this one (every third midpoint, weight x3, and the node at 0)
        # estimates the quadrature error; ``coarse_columns`` picks its nodes out of ``lam``.
        self.coarse_columns = np.r_[np.arange(1, nodes, 3), nodes]
        self.coarse = 3 * self.weights[:, self.coarse_columns]
        self.coarse[:, -1] = 1.0 - self.coarse[:, :-1].sum(axis=-1)

    @classmethod
    def from_arrays(cls, compiled, params: dict, nodes: int) -> tuple["_Problem", tuple]:
        names = [p.name for p in compiled.parameters]
        missing = [k for k in names if k not in params]
        if missing:
            raise KeyError(f"missing parameters {missing}")
        shape = np.broadcast_shapes(*(np.shape(params[k]) for k in names))
        flat = {k: np.broadcast_to(np.asarray(params[k], float), shape).ravel().copy() for k in names}
        return cls(compiled, flat, nodes), shape

    def subset(self, keep: np.ndarray, nodes: int) -> "_Problem":
        return _Problem(self.compiled, {k: v[keep] for k, v in self.flat.items()}, nodes)

    def params(self, index, gamma=None) -> list[np.ndarray]:
        out = [self.flat[k][index] for k in self.names]
        if gamma is not None:
            out[self.names.index("gamma")] = gamma
        return [p[:, None] for p in out]

    @staticmethod
    def expect(integrand, columns: list, weights: np.ndarray) -> np.ndarray:
        r""":math:`\mathbb E_\lambda` of every output of ``integrand(*columns)`` with ``weights`` (N, nodes).

        ``columns`` are arrays of N rows (nodes, or one column for what is constant in
        :math:`\lambda`); ``integrand`` returns a list of arrays (N, nodes), or of smaller
        shape where an output does not depend on :math:`\lambda`. The rows are taken in blocks
        of about CACHE_ELEMENTS point-nodes so that the generated code's temporaries stay in
        the CPU cache (measured 3x faster than whole (10^4, 49) arrays).
        """
        rows = len(weights)
        block = max(1, CACHE_ELEMENTS // weights.shape[1])
        out = None
        for start in range(0, rows, block):
            part = slice(start, start + block)
            integrands = integrand(*(x[part] for x in columns))
            if out is None:
                out = np.empty((len(integrands), rows))
            w = weights[part]
            for k, values in enumerate(integrands):
                values = np.asarray(values, dtype=float)
                if values.ndim == 2 and values.shape[1] > 1:
                    out[k, part] = np.einsum("nj,nj->n", values, w)
                else:                               # constant in lambda: every rule sums to 1
                    out[k, part] = values[:, 0] if values.ndim == 2 else values
        return out

    def rule(self, index, coarse: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Nodes and weights of the full rule (or of the embedded coarse rule) for the points ``index``."""
        if coarse:
            return self.lam[index][:, self.coarse_columns], self.coarse[index]
        return self.lam[index], self.weights[index]

    def newton_system(self, t, gamma, index, coarse: bool = False):
        """Residual F = t - tau/c, its Jacobian, and dF/dgamma at (t, gamma) for the points ``index``."""
        u = len(self.compiled.unknowns)
        lam, weights = self.rule(index, coarse)
        values = self.expect(lambda lam, *rest: self.compiled.fixed_point(lam, rest[:u], rest[u:]),
                             [lam, *(x[:, None] for x in t), *self.params(index, gamma)], weights)
        c = self.flat["c"][index]
        tau, dtau_dt, dtau_dg = values[:u], values[u: u + u * u], values[u + u * u:]
        residual = t - tau / c
        jacobian = np.eye(u)[:, :, None] - dtau_dt.reshape(u, u, -1) / c
        return residual, np.moveaxis(jacobian, -1, 0), -dtau_dg / c


def _newton_step(residual, jacobian, dF_dgamma) -> tuple[np.ndarray, np.ndarray]:
    r"""Newton step :math:`J^{-1}F` and rate :math:`\mathrm dt/\mathrm d\gamma = -J^{-1}\partial_\gamma F`, each (U, N).

    One batched solve for both right-hand sides. Floating-point warnings are silenced:
    the callers test the entries for non-finite values.
    """
    with np.errstate(all="ignore"):
        solved = np.linalg.solve(jacobian, np.stack([residual, dF_dgamma], axis=-1).transpose(1, 0, 2))
    return solved[..., 0].T, -solved[..., 1].T


def _newton(problem: _Problem, t, gamma, index, tolerance: float = TOLERANCE):
    """Newton iterations from ``t`` (``gamma`` is aligned with ``index``); converged points stop being evaluated.

    Returns ``(t, converged, residual, rate)`` where ``rate`` is dt/dgamma from the
    Jacobian of the last evaluation (used as the next predictor at no extra cost).
    """
    t = np.array(t, dtype=float)
    done = np.zeros(index.size, bool)
    size = np.full(index.size, np.inf)
    rate = np.zeros_like(t)
    live = np.arange(index.size)
    for _ in range(MAX_NEWTON + 1):
        residual, jacobian, dF_dgamma = problem.newton_system(t[:, live], gamma[live], index[live])
        size[live] = np.max(np.abs(residual), axis=0)
        step, rate[:, live] = _newton_step(residual, jacobian, dF_dgamma)
        converged = np.isfinite(size[live]) & (size[live] <= tolerance * (1 + np.max(np.abs(t[:, live]), axis=0)))
        done[live[converged]] = True
        move = ~converged & np.all(np.isfinite(step), axis=0)
        t[:, live[move]] -= step[:, move]
        live = live[move]
        if not live.size:
            break
    return t, done, size, rate


def _start_gamma(problem: _Problem) -> np.ndarray:
    """A gamma far above every scale of K^T C K, where Newton from t = 0 lands on the physical branch."""
    f = problem.flat
    scale = (1 + f["c"]) * (1 + 1 / f["c"]) * (1 + f["a_1"] ** 2 + f["b"] ** 2 + f["d"] ** 2)
    return np.maximum(START_FACTOR * scale, f["gamma"])


def _continue(problem: _Problem, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Continuation in gamma for the points ``index``, from their start gamma down to their targets.

    Each point moves by its own ratio ``gamma -> gamma / ratio``: Euler predictor in
    :math:`1/\gamma` from the implicit derivative, then at most PATH_NEWTON Newton corrections, each of which must
    shrink the residual by half. A step is accepted only when the residual is below
    PATH_TOLERANCE, the first correction is no larger than the predicted change
    (STEP_CONTROL: the predictor was inside Newton's basin of the branch being followed)
    and the point is physical (``_physical``); then the ratio grows, up to MAX_RATIO.
    Otherwise the point stays where it was (a converged point of its branch) and retries
    with the square root of the ratio. All points advance together.
    """
    u = len(problem.compiled.unknowns)
    start, target = _start_gamma(problem)[index], problem.flat["gamma"][index]
    t, ok, res, rate = _newton(problem, np.zeros((u, index.size)), start, index)
    if not ok.all():
        raise ConvergenceError(f"Newton failed at the starting gamma (residual {np.nanmax(res):.3g}).")
    gamma = start.copy()
    ratio = np.full(index.size, 10.0 ** (1.0 / STEPS_PER_DECADE))
    active = np.flatnonzero(gamma > target)
    while active.size:
        g_next = np.maximum(gamma[active] / ratio[active], target[active])
        new, new_rate, ok = _corrected_step(problem, t[:, active], rate[:, active], gamma[active], g_next,
                                            index[active])
        moved = active[ok]
        t[:, moved], rate[:, moved], gamma[moved] = new[:, ok], new_rate[:, ok], g_next[ok]
        ratio[moved] = np.minimum(ratio[moved] ** 1.5, MAX_RATIO)
        stuck = active[~ok]
        ratio[stuck] = np.sqrt(ratio[stuck])
        if np.any(ratio[stuck] < MIN_RATIO):
            bad = index[stuck[ratio[stuck] < MIN_RATIO][0]]
            raise ConvergenceError(
                "the continuation of the Dyson fixed point stalled at "
                + ", ".join(f"{k}={problem.flat[k][bad]:.4g}" for k in problem.names)
                + "; try a larger gamma or report this case."
            )
        active = active[gamma[active] > target[active]]
    return t, rate


def _corrected_step(problem: _Problem, t, rate, g_from, g_to, index):
    """One predictor-corrector step; returns ``(t, rate, accepted)`` (rate from the last Jacobian)."""
    # Euler step in s = 1/gamma (dt/ds = -gamma^2 dt/dgamma): the unknowns are analytic in 1/gamma at
    # large gamma (t_11 ~ 1/(c gamma)), where a step in gamma itself would badly undershoot.
    guess = t + rate * (g_to - g_from) * (g_from / g_to)
    new, new_rate = guess.copy(), rate.copy()
    accepted = np.zeros(index.size, bool)
    live = np.arange(index.size)
    previous = np.full(index.size, np.inf)
    for k in range(PATH_NEWTON + 1):
        residual, jacobian, dF_dgamma = problem.newton_system(new[:, live], g_to[live], index[live])
        size = np.max(np.abs(residual), axis=0)
        correction, new_rate[:, live] = _newton_step(residual, jacobian, dF_dgamma)
        finite = (np.isfinite(size) & np.all(np.isfinite(correction), axis=0)
                  & np.all(np.isfinite(new_rate[:, live]), axis=0))
        converged = finite & (size <= PATH_TOLERANCE * (1 + np.max(np.abs(new[:, live]), axis=0)))
        converged &= _physical(problem, new[:, live], g_to[live], index[live])
        accepted[live[converged]] = True
        keep = finite & ~converged & (size <= 0.5 * previous[live])
        if k == 0:
            change = np.abs(guess - t)[:, live] + 1e-3 * (1 + np.abs(t[:, live]))
            keep &= np.all(np.abs(correction) <= STEP_CONTROL * change, axis=0)
        previous[live] = size
        new[:, live[keep]] -= correction[:, keep]
        live = live[keep]
        if not live.size:
            break
    return new, new_rate, accepted


def _physical(problem: _Problem, t, gamma, index) -> np.ndarray:
    r"""Cheap necessary condition for the physical branch: :math:`0 < c\,t_{11} = \operatorname{tr} Q / n \le 1/\gamma`."""
    names = [x.name for x in problem.compiled.unknowns]
    if "t_11" not in names:
        return np.ones(index.size, bool)
    trace = problem.flat["c"][index] * t[names.index("t_11")]
    return (trace > 0) & (trace <= (1 + 1e-9) / gamma)


def _anchors(problem: _Problem) -> np.ndarray:
    """For each point, the index of the point it is predicted from (itself if it is an anchor).

    Points that share every parameter but gamma form a curve; along a curve, gamma
    is cut into bins of 1/STEPS_PER_DECADE decade below the curve's largest gamma,
    and the largest gamma of each bin is its anchor. Only anchors are continued
    from the start gamma; the rest take one Euler step from their anchor.
    """
    gamma = problem.flat["gamma"]
    others = np.stack([problem.flat[k] for k in problem.names if k != "gamma"], axis=1)
    _, curve = np.unique(others, axis=0, return_inverse=True)
    curve = curve.ravel()
    top = np.zeros(curve.max() + 1)
    np.maximum.at(top, curve, gamma)
    bins = np.floor(STEPS_PER_DECADE * np.log10(top[curve] / gamma)).astype(int)
    order = np.lexsort((-gamma, bins, curve))          # within (curve, bin): largest gamma first
    key = np.stack([curve[order], bins[order]], axis=1)
    first = np.ones(order.size, bool)
    first[1:] = np.any(key[1:] != key[:-1], axis=1)
    anchor_of_sorted = order[np.maximum.accumulate(np.where(first, np.arange(order.size), 0))]
    anchor = np.empty_like(order)
    anchor[order] = anchor_of_sorted
    return anchor


def _solve_unknowns(problem: _Problem) -> np.ndarray:
    """Starting values of the Dyson unknowns at every target.

    Anchors are continued to their targets; every other point gets one Euler step
    from its anchor (``solve`` then polishes all of them with Newton, and falls
    back to continuation where that fails).
    """
    size = problem.flat["c"].size
    if not problem.compiled.unknowns:
        return np.zeros((0, size))
    anchor = _anchors(problem)
    anchors = np.unique(anchor)
    t_anchor, rate_anchor = _continue(problem, anchors)
    position = np.searchsorted(anchors, anchor)
    gamma = problem.flat["gamma"]
    return t_anchor[:, position] + rate_anchor[:, position] * (gamma - gamma[anchor])


def solve(compiled, params: dict[str, np.ndarray], nodes: int = INITIAL_NODES,
          quadrature_tolerance: float = QUADRATURE_TOLERANCE) -> SolveResult:
    r"""Solve the derived system at every point of the broadcast parameter arrays.

    Parameters
    ----------
    compiled : CompiledDerivation
        From :func:`symrmt.codegen.compile_derivation`.
    params : dict
        One array (or scalar) per parameter name of the derivation
        (``c, gamma, a_1, b, d, theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ``).
    nodes : int
        Initial number of quadrature nodes in :math:`\varphi` (a multiple of 3).
        Points whose error estimate (full rule against the embedded rule with a
        third of the nodes) exceeds ``quadrature_tolerance`` are re-solved with
        three times as many nodes, up to :data:`MAX_NODES`.
    """
    problem, shape = _Problem.from_arrays(compiled, params, nodes)
    size = problem.flat["c"].size
    threads = _threads()
    batch = min(BATCH_POINTS, max(PARALLEL_POINTS, -(-size // threads)))
    batches = [problem.subset(slice(i, i + batch), nodes) for i in range(0, size, batch)]
    if len(batches) > 1 and threads > 1:
        # NumPy releases the GIL inside its loops, so batches solved in threads use every core.
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(lambda part: _solve_flat(part, quadrature_tolerance), batches))
    else:
        parts = [_solve_flat(part, quadrature_tolerance) for part in batches]
    error, phi, residual = (np.concatenate([part[k] for part in parts]) for k in range(3))
    unknowns = np.concatenate([part[3] for part in parts], axis=1)
    full, _ = _Problem.from_arrays(compiled, params, 3)
    _check(full, phi, error, residual)
    return SolveResult(error.reshape(shape), phi.reshape(shape), unknowns.reshape(len(unknowns), *shape),
                       residual.reshape(shape))


def _threads() -> int:
    """Threads for large inputs: the CPUs this process may use (``SYMRMT_THREADS`` overrides)."""
    if os.environ.get("SYMRMT_THREADS"):
        return max(1, int(os.environ["SYMRMT_THREADS"]))
    return usable_cpus()


def _solve_flat(problem: _Problem, quadrature_tolerance: float):
    """Continuation on the path rule, then Newton and evaluation level by level of quadrature nodes."""
    t = _solve_unknowns(problem.subset(slice(None), PATH_NODES))
    size = problem.flat["c"].size
    out = {k: np.empty(size) for k in ("error", "phi", "residual")}
    unknowns = np.empty_like(t)
    pending = np.arange(size)
    while pending.size:
        accurate = np.zeros(pending.size, bool)
        step = max(1, CHUNK_ELEMENTS // (problem.nodes + 1))    # bounds memory: ~24 arrays of step x nodes
        for start in range(0, pending.size, step):
            chunk = slice(start, start + step)
            part = problem if step >= pending.size else problem.subset(chunk, problem.nodes)
            t[:, chunk], accurate[chunk], error, phi, residual = _level(part, t[:, chunk], quadrature_tolerance)
            good = accurate[chunk]
            done = pending[chunk][good]
            out["error"][done], out["phi"][done], out["residual"][done] = error[good], phi[good], residual[good]
            unknowns[:, done] = t[:, chunk][:, good]
        pending, t = pending[~accurate], t[:, ~accurate]
        if pending.size:
            problem = problem.subset(~accurate, problem.nodes * 3)
    return out["error"], out["phi"], out["residual"], unknowns


def _level(problem: _Problem, t, quadrature_tolerance: float):
    """Newton at the targets with this rule, then (Phi, E) and whether the quadrature is accurate enough."""
    local = np.arange(problem.flat["c"].size)
    t, ok, residual, rate = (_newton(problem, t, problem.flat["gamma"], local)
                             if len(t) else (t, np.ones(local.size, bool), np.zeros(local.size), t))
    ok &= _physical(problem, t, problem.flat["gamma"], local)
    if not ok.all():                     # the cheaper rule's solution was not close enough: continue with this rule
        t[:, ~ok] = _continue(problem, local[~ok])[0]
        t, ok, residual, rate = _newton(problem, t, problem.flat["gamma"], local)
        ok &= _physical(problem, t, problem.flat["gamma"], local)
        if not ok.all():
            raise ConvergenceError(
                f"Newton did not converge at the target gamma (residual {np.nanmax(residual):.3g}).")
    phi, error = _evaluate(problem, t, rate, local)
    phi_coarse, error_coarse = _evaluate(problem, *_coarse_solution(problem, t, local), local, coarse=True)
    accurate = (np.abs(error - error_coarse) <= quadrature_tolerance) & (
        np.abs(phi - phi_coarse) <= quadrature_tolerance * np.abs(phi))
    if problem.nodes * 3 > MAX_NODES and not accurate.all():
        i = int(np.flatnonzero(~accurate)[0])
        raise ConvergenceError(
            f"the spectral average did not reach {quadrature_tolerance:g} with {problem.nodes} nodes at "
            + ", ".join(f"{k}={problem.flat[k][i]:.4g}" for k in problem.names)
            + " (estimated error %.2g); gamma is too small for the quadrature here: "
            "use a larger gamma (see symrmt.theory.ridgeless_error for the gamma -> 0 limit)."
            % abs(error[i] - error_coarse[i]))
    return t, accurate, error, phi, residual


def _coarse_solution(problem: _Problem, t, index):
    r"""The unknowns and their :math:`\gamma`-rate under the embedded coarse rule: one Newton step from ``t``.

    The quadrature error enters :math:`E` twice: directly in the averages and through the
    fixed point :math:`t` itself, where it is amplified by :math:`(I - \partial_t\tau/c)^{-1}`
    (large at small :math:`\gamma`). Evaluating the coarse rule at the fine rule's ``t`` would
    see only the first part, so the coarse estimate re-solves the fixed point with the coarse
    rule; one Newton step from ``t`` leaves an error of the order of the square of the
    difference, far below the difference itself whenever that is small. (Costs about 4% of
    the solve; on the benchmark cloud it changed no decision, but nothing guaranteed that.)
    """
    if not len(t):                                  # no fixed point (e.g. linear regression)
        return t, t
    step, rate = _newton_step(*problem.newton_system(t, problem.flat["gamma"][index], index, coarse=True))
    return t - step, rate


def _evaluate(problem: _Problem, t, rate, index, coarse: bool = False):
    """(Phi, E) at the solved unknowns ``t`` with their gamma-rate, with the full rule or the embedded coarse rule."""
    lam, weights = problem.rule(index, coarse)
    u = len(t)
    values = problem.expect(lambda lam, *rest: problem.compiled.averages(lam, rest[:u], rest[u: 2 * u], rest[2 * u:]),
                            [lam, *(x[:, None] for x in t), *(x[:, None] for x in rate), *problem.params(index)],
                            weights)
    count = len(problem.compiled.taus)
    phi, dphi = _woodbury(problem.compiled, values[:count], values[count:], problem.params(index))
    return phi, -problem.flat["gamma"][index] ** 2 * dphi


def _woodbury(compiled, taus, dtaus, params):
    r"""Phi = tau_11 - g^T C (I + G C)^{-1} g and its gamma-derivative (G, g are linear in tau)."""
    tau11 = compiled.taus.index(next(s for s in compiled.taus if s.name == "tau_11"))
    phi, dphi = taus[tau11].copy(), dtaus[tau11].copy()
    if not compiled.size:
        return phi, dphi
    flat_params = [p[:, 0] for p in params]
    core, gram, source = compiled.woodbury(taus, flat_params)
    _, dgram, dsource = compiled.woodbury(dtaus, flat_params)
    system = np.eye(compiled.size) + gram @ core
    h = np.linalg.solve(system, source[..., None])[..., 0]
    v = np.einsum("nij,nj->ni", core, h)                                   # C S^{-1} g
    u = np.linalg.solve(np.swapaxes(system, -1, -2), np.einsum("nji,nj->ni", core, source)[..., None])[..., 0]
    phi -= np.einsum("ni,ni->n", source, v)
    dphi -= (np.einsum("ni,ni->n", dsource, v) + np.einsum("ni,ni->n", u, dsource)
             - np.einsum("ni,nij,nj->n", u, dgram, v))
    return phi, dphi


def _check(problem, phi, error, residual) -> None:
    """Refuse non-finite or unphysical output instead of returning it."""
    gamma = problem.flat["gamma"]
    bad = ~(np.isfinite(phi) & np.isfinite(error) & np.isfinite(residual))
    bad |= (error < -1e-6) | (error > 1 + 1e-6) | (phi <= 0) | (phi > (1 + 1e-6) / gamma)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where = ", ".join(f"{k}={problem.flat[k][i]:.4g}" for k in problem.names)
        raise ConvergenceError(
            f"the solver produced an unphysical value at {bad.sum()} point(s) (first: E={error[i]:.4g}, "
            f"yQy/n={phi[i]:.4g}, residual={residual[i]:.3g} at {where}); "
            "the continuation may have left the physical branch, or the quadrature is too coarse "
            "(raise nodes) at very small gamma."
        )

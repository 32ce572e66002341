r"""Monte Carlo of kernel ridge regression on the attention matrix alone (:mod:`symrmt.derive.kernel_ridge`).

Each draw is that of :func:`~symrmt.simulation.simulate` with the same seed (same
:class:`~symrmt.simulation.model.Model`, same draw order y, Z, frame, same scores and
:math:`K`); then, instead of the probe on :math:`XK`, the ridge on :math:`K` itself:

.. math::

    E_\mathrm{kernel}(\gamma) = \frac{\gamma^2}{n}\, y^\top (K^\top K + \gamma I_n)^{-2} y
    = \frac1n \|y - K^\top w\|^2, \qquad w = (K K^\top + \gamma I_n)^{-1} K y,

computed exactly by :func:`~symrmt.simulation.linalg.exact_errors` of :math:`F = \sqrt n\, K`
(whose :math:`F^\top F/n` is :math:`K^\top K`): one eigendecomposition per draw serves every
:math:`\gamma`. NumPy and SciPy only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..geometry import Geometry
from . import linalg
from .memory import check_memory
from .model import Model, attention_matrix, draw, scores, warn_large_norms
from .result import CurveResult
from .routes import Plan, unit_interval
from .setup import Setup, validated_model

__all__ = ["KernelRidgeResult", "simulate_kernel_ridge", "kernel_ridge_once"]


@dataclass(frozen=True, eq=False)
class KernelRidgeResult(CurveResult):
    r"""Monte Carlo of :math:`E_\mathrm{kernel}(\gamma)` over ``seeds`` draws (the fields of :class:`CurveResult`).

    Examples
    --------
    >>> import symrmt
    >>> result = symrmt.simulate_kernel_ridge("tanh(x)", 32, 1.0, [0.1, 1.0], seeds=2, progress=False)
    >>> result.mean.shape, result.se.shape, (result.n, result.p, result.seeds)
    ((2,), (2,), (32, 32, 2))
    """


def kernel_ridge_once(model: Model, grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    r""":math:`E_\mathrm{kernel}` on ``grid`` for one draw of a validated ``model`` (f already adapted)."""
    y, X, vectors = draw(model, rng)
    S, _ = scores(X, vectors, keep_gram=False)
    del X
    K = attention_matrix(S, model)
    K *= np.sqrt(model.n)                      # F = sqrt(n) K, so that F^T F / n = K^T K
    return unit_interval(linalg.exact_errors(K, y, grid), "kernel ridge", grid)


def simulate_kernel_ridge(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    geometry: Geometry | None = None,
    d: float = 0.0,
    seeds: int = 4,
    seed: int = 0,
    random_frame: bool = False,
    *,
    gram: Any = None,
    progress: bool = True,
    params: Mapping[str, float] | None = None,
) -> KernelRidgeResult:
    r"""Monte Carlo of :math:`E_\mathrm{kernel}(\gamma)`, the ridge on :math:`K` alone, over ``seeds`` draws.

    The parameters (f centered, ``params`` for its parameters), their checks and the draws are
    those of :func:`~symrmt.simulation.simulate` (seed k here sees the same y, X and K as seed k there).

    Parameters
    ----------
    f : str, sympy.Expr, HermiteCoefficients or callable
        The nonlinearity, centred (:math:`a_0 = \mathbb E f(\xi) = 0`, checked), as in
        :func:`~symrmt.simulation.simulate`.
    n : int
        Number of tokens, :math:`n \ge 2`.
    c : float
        :math:`p/n > 0`, with :math:`p = \operatorname{round}(c n) \ge 1 + 2r`.
    gamma : float or array_like
        Ridge parameters, finite and :math:`> 0`; all of them from one factorization per seed.
    geometry : Geometry, optional
        Norms and cosines of :math:`(\mu, w_K, w_Q)` (rank one); default: no signal, no weights.
    d : float
        The diagonal :math:`K_{ii} = d`; default 0.
    seeds : int
        Number of independent draws, :math:`\ge 2`; default 4.
    seed : int
        Root of ``np.random.SeedSequence(seed).spawn(seeds)``; default 0.
    random_frame : bool
        Rotate the vectors by a Haar-random frame in each draw.
    gram : array_like, optional
        Instead of ``geometry``: the Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, shape
        ``(1 + 2r, 1 + 2r)``, positive semi-definite.
    progress : bool
        Show a progress bar over seeds on stderr (a terminal, a run over 2 s).
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 2.0}`` for ``"tanh(s*x)"``.

    Returns
    -------
    KernelRidgeResult
        ``mean``, ``se`` (standard error over seeds) and ``per_seed`` (shape ``(seeds, len(gamma))``) of
        :math:`E_\mathrm{kernel}(\gamma) = (\gamma^2/n)\, y^\top (K^\top K + \gamma I_n)^{-2} y \in [0, 1]`,
        with n, p and the seeds.

    Raises
    ------
    ParameterError
        Invalid sizes, ridges, seeds or geometry, both ``geometry`` and ``gram``, or a run that would not fit in
        the available memory (checked before anything is allocated).
    SymrmtInputError
        An f that is not centred, not real or not finite on the scores, or ``params`` without one value per
        parameter of f.
    ConvergenceError
        An error that leaves [0, 1] by more than round-off.

    See Also
    --------
    symrmt.kernel_ridge_error : The deterministic equivalent of :math:`E_\mathrm{kernel}`.
    symrmt.simulation.simulate : The attention and linear errors on the same draws.

    Examples
    --------
    >>> res = simulate_kernel_ridge(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], seeds=2)
    >>> res.per_seed.shape, bool(np.all((0 <= res.mean) & (res.mean <= 1)))
    ((2, 2), True)
    """
    setup = Setup.of(*validated_model(n, c, geometry, gram, d, random_frame), gamma, seeds, seed)
    model = setup.model
    # The exact route's estimate (X, the scores, one n-by-n eigh) bounds this draw's peak from above.
    check_memory(Plan.of("exact", model.n, model.p), setup.seeds, setup.grid.size)
    warn_large_norms(model.gram, model.p)
    setup = setup.with_f(f, params)
    per_seed = setup.run_seeds(lambda rng, _: kernel_ridge_once(setup.model, setup.grid, rng), progress=progress)
    return KernelRidgeResult(**setup.curve(np.array(per_seed)))

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

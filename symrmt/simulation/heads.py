r"""Monte Carlo of several attention heads, summed or concatenated (:mod:`symrmt.theory.heads` for the theory).

Head :math:`h = 1..H` has its own rank-r weights, :math:`W^{(h)} = I_p + \sum_{k \in h} w_K^{(k)}
w_Q^{(k)\top}`, and its own attention matrix :math:`K_h = f(X^\top W^{(h)} X/\sqrt p)/\sqrt p`
(:math:`K_{h,ii} = d`). The heads share the tokens, the identity part of the weights and f. The
probe runs on

- ``combine="sum"``: :math:`X K` with :math:`K = \sum_h K_h`;
- ``combine="concat"``: the stacked features :math:`[XK_1; \dots; XK_H] \in \mathbb R^{Hp \times n}`,
  whose Gram matrix is :math:`\sum_h K_h^\top X^\top X K_h/n`.

The weight vectors come from one Gram matrix of :math:`(\mu, w_K^{(1..R)}, w_Q^{(1..R)})`,
:math:`R = Hr`, as for rank-R weights (:func:`symrmt.simulate` with ``gram=``); head h owns the
pairs :math:`(h-1)r + 1, \dots, hr`. Each draw is that of :func:`symrmt.simulate` with the same
Gram matrix and seed (same y, X, vectors); the error is computed exactly
(:func:`~symrmt.simulation.linalg.exact_errors`). NumPy only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import validate
from ..errors import ParameterError
from . import linalg
from .memory import check_memory
from .model import Model, attention_matrix, draw, low_rank_scores, warn_large_norms
from .result import CurveResult
from .routes import Plan, unit_interval
from .setup import Setup, validated_model

__all__ = ["COMBINATIONS", "HeadsResult", "simulate_heads", "heads_once"]

#: How the heads are combined: their attention matrices summed, or their features stacked.
COMBINATIONS = ("sum", "concat")


@dataclass(frozen=True, eq=False)
class HeadsResult(CurveResult):
    r"""Monte Carlo of :math:`E_\mathrm{attn}(\gamma)` of H heads over ``seeds`` draws (arrays read-only).

    The fields of :class:`~symrmt.simulation.result.CurveResult`, and ``heads`` and ``combine``,
    which say how the heads were combined.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.simulation import simulate_heads
    >>> gram = np.diag([1.0, 0.5, 0.5, 0.5, 0.5])                 # mu and two heads of rank 1
    >>> result = simulate_heads("tanh(x)", 32, 1.0, [0.1, 1.0], gram, heads=2, seeds=2, progress=False)
    >>> result.mean.shape, result.per_seed.shape, result.heads, result.combine
    ((2,), (2, 2), 2, 'sum')
    """

    heads: int
    combine: str


def heads_once(model: Model, heads: int, combine: str, grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    r""":math:`E_\mathrm{attn}` on ``grid`` for one draw of a validated ``model`` (f adapted, rank divisible by H)."""
    y, X, vectors = draw(model, rng)
    rank = (vectors.shape[0] - 1) // 2
    per_head = rank // heads
    features = []
    for h in range(heads):
        pairs = slice(1 + h * per_head, 1 + (h + 1) * per_head)
        keys, queries = vectors[pairs], vectors[pairs.start + rank:pairs.stop + rank]
        K = attention_matrix(low_rank_scores(X, 1.0, keys, queries, keep_gram=False)[0], model)
        if combine == "concat":
            features.append(X @ K)
        elif h == 0:
            total = K
        else:
            total += K
    F = np.vstack(features) if combine == "concat" else X @ total
    return unit_interval(linalg.exact_errors(F, y, grid), "attention", grid)


def simulate_heads(
    f: Callable[[np.ndarray], np.ndarray] | str | Any,
    n: int,
    c: float,
    gamma: Any,
    gram: Any,
    heads: int,
    combine: str = "sum",
    d: float = 0.0,
    seeds: int = 4,
    seed: int = 0,
    random_frame: bool = False,
    *,
    progress: bool = True,
) -> HeadsResult:
    r"""Monte Carlo of :math:`E_\mathrm{attn}(\gamma)` for ``heads`` heads, summed or concatenated.

    Parameters
    ----------
    f, n, c, gamma, d, seeds, seed, random_frame, progress
        As in :func:`symrmt.simulate` (f must be centered).
    gram : array_like
        The :math:`(1 + 2R) \times (1 + 2R)` Gram matrix of :math:`(\mu, w_K^{(1..R)}, w_Q^{(1..R)})`,
        :math:`R = H r`; head h owns the pairs :math:`(h-1)r + 1..hr`.
    heads : int
        :math:`H \ge 1`, dividing R.
    combine : {"sum", "concat"}
        :math:`K = \sum_h K_h` (one probe on :math:`XK`) or the features :math:`[XK_1; \dots; XK_H]`.

    Returns
    -------
    HeadsResult
        The errors of every seed, their means and standard errors (``per_seed``, ``mean``, ``se``), and the
        parameters of the run.

    Raises
    ------
    ParameterError
        What :func:`symrmt.simulate` refuses, a ``heads`` that does not divide the number of weight pairs, or an
        unknown ``combine``.

    See Also
    --------
    symrmt.summed_heads_error : The theory of the summed heads.

    Examples
    --------
    >>> gram = np.diag([1.0, 1.0, 0.5, 1.0, 0.5])          # mu; head 1: w_K1, w_Q1; head 2: w_K2, w_Q2
    >>> res = simulate_heads(np.tanh, n=64, c=1.0, gamma=[0.1, 1.0], gram=gram, heads=2, seeds=2, progress=False)
    >>> res.per_seed.shape, res.heads, res.combine
    ((2, 2), 2, 'sum')
    """
    if gram is None:
        raise ParameterError("gram = None: give the Gram matrix of (mu, w_K^(1..R), w_Q^(1..R)) of all the heads.")
    model, c = validated_model(n, c, None, gram, d, random_frame)
    heads = validate.heads(heads, pairs=(model.gram.shape[0] - 1) // 2)      # the one reader of H
    combine = validate.choice("combine", combine, COMBINATIONS)
    setup = Setup.of(model, c, gamma, seeds, seed)
    # The exact route's estimate for an H p x n feature matrix bounds this draw's peak from above.
    check_memory(Plan.of("exact", model.n, model.p * (heads if combine == "concat" else 1)), setup.seeds,
                 setup.grid.size)
    warn_large_norms(model.gram, model.p)
    setup = setup.with_f(f)
    per_seed = setup.run_seeds(lambda rng, _: heads_once(setup.model, heads, combine, setup.grid, rng),
                               progress=progress)
    return HeadsResult(**setup.curve(np.array(per_seed)), heads=heads, combine=combine)

r"""The theory's prediction for a real matrix's fitted :math:`sI + \text{rank } r`: mapped onto :math:`I + \text{low rank}`.

The theory (:mod:`symrmt.theory`) takes :math:`W_K^\top W_Q = I + \sum_k \tilde w_K^{(k)} \tilde w_Q^{(k)\top}`
with scores of unit noise variance. A fit :math:`M \approx sI + \sum_k w_K^{(k)} w_Q^{(k)\top}`
(:class:`~symrmt.weights.MatrixFit`, in symrmt's orientation) is mapped onto it by dividing by
:math:`s`:

.. math::

    S = \frac{X^\top (sI + \textstyle\sum_k w_K w_Q^\top) X}{\sqrt p} = s\,\tilde S, \qquad
    \tilde S = \frac{X^\top (I + \sum_k \tilde w_K \tilde w_Q^\top) X}{\sqrt p}, \qquad
    \tilde w_K = \frac{w_K}{\sqrt{|s|}}, \ \tilde w_Q = \operatorname{sign}(s)\frac{w_Q}{\sqrt{|s|}},

so :math:`K = f(S)/\sqrt p = f_s(\tilde S)/\sqrt p` with :math:`f_s(x) = f(sx)`: the theory runs unchanged
with the Hermite data of :math:`f_s` and the Gram matrix of :math:`(\mu, \tilde w_K, \tilde w_Q)`
(:meth:`MatrixFit.gram <symrmt.weights.MatrixFit.gram>`). A negative :math:`s` is absorbed by
:math:`f_s`. (Generalizing the noise variance of the scores to :math:`s^2` instead is the same model:
the theory depends on f and the scale of the scores only through :math:`f_s`.)

**The cost near** :math:`s = 0`. The Gram entries grow like :math:`\|\tilde w\|^2 = \sigma_k/|s|` while
:math:`a_1(f_s) \approx s f'(0)`. The theory is a first-order expansion of f around the noise scores in
the low-rank part, whose entries are :math:`(x_i^\top \tilde w_K)(\tilde w_Q^\top x_j)/\sqrt p \sim
\sigma_k/(|s|\sqrt p)`: it needs :math:`|s| \gg \sigma_1/\sqrt p`, i.e. :func:`regime_ratio`
:math:`|s|\sqrt p/\sigma_1 \gg 1`. Nothing is refused: the ratio is reported next to the prediction
(MiniLM's layers have ratios of 0.03 to 0.3; docs/real_weights.md).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import ParameterError
from ..nonlinearity.scaled import scaled_data
from ..theory.ridge import attention_error
from .analysis import MatrixFit

__all__ = ["regime_ratio", "fitted_attention_error"]

def regime_ratio(fit: MatrixFit, rank: int) -> float:
    r""":math:`|s|\sqrt p/\sigma_1(M)` of the rank-``rank`` fit: the expansion needs it :math:`\gg 1` (module docstring).

    Parameters
    ----------
    fit : MatrixFit
        A layer's or head's fits (:func:`analyze`).
    rank : int
        Which fit, 0..rank_max.

    Returns
    -------
    float
        :math:`|s|\sqrt p/\sigma_1(M)`.

    Raises
    ------
    ParameterError
        A rank the fit does not hold.

    See Also
    --------
    fitted_attention_error : The theory it qualifies.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> from symrmt.weights import regime_ratio
    >>> round(float(regime_ratio(analysis.layers[0].matrix, 1)), 4)   # s sqrt(p)/sigma_1: not >> 1 at p = 8
    0.9428
    """
    sigma = float(fit.singular_values[0]) if len(fit.singular_values) else 0.0
    s = abs(fit.fit(rank).s)
    return float("inf") if sigma == 0 else s * np.sqrt(fit.matrix.p) / sigma


def fitted_attention_error(fit: MatrixFit, rank: int, f: str | Any | Callable, c: Any, gamma: Any, mu: Any,
                           d: Any = 0.0, scale: float = 1.0, center: bool = False) -> np.ndarray:
    r"""The theory's :math:`E_{\rm attn}` for the weights ``scale`` :math:`\cdot (sI + \text{rank } r)`, the fit of ``rank``.

    Parameters
    ----------
    fit : MatrixFit
        A layer's or head's fits (:func:`~symrmt.weights.analyze`).
    rank : int
        Which fit: :math:`r` spikes on top of :math:`sI` (0 for :math:`sI` alone).
    f : str, SymPy expression or callable
        The nonlinearity of the attention, :math:`K_{ij} = f(S_{ij})/\sqrt p`.
    c, gamma, d : array_like
        As in :func:`symrmt.attention_error`; broadcast with ``mu``'s leading dimensions.
    mu : array_like
        The signal, shape ``(..., p)``, in the coordinates of the weights (a stack gives one Gram matrix each).
    scale : float
        The factor applied to the weights (``MatrixFit.weights(rank, scale)``), e.g. :math:`\sqrt p/\|M\|_F`.
    center : bool
        Centre :math:`f_s` (needed unless f is odd).

    Returns
    -------
    numpy.ndarray
        :math:`E_{\rm attn}` at the broadcast points, through :math:`f_s` with :math:`s` the scaled
        shift and the Gram matrix of :meth:`MatrixFit.gram`. Check :func:`regime_ratio` before trusting it.

    Raises
    ------
    ParameterError
        A ``rank`` the fit does not hold, or what :func:`symrmt.attention_error` refuses.

    See Also
    --------
    regime_ratio : Whether the expansion behind it holds for this fit.
    symrmt.attention_error : ``weights=M`` gives the theory of the exact matrix instead.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.weights import AttentionWeights, LayerProjections, analyze
    >>> W_Q = np.eye(8); W_Q[0, 0] = 3.0                      # W_K^T W_Q = I + 2 e_1 e_1^T, one head of width 8
    >>> layer = LayerProjections(0, W_Q, np.zeros(8), np.eye(8), np.zeros(8))
    >>> weights = AttentionWeights("example", "bert", 8, 1, (layer,), 1)
    >>> analysis = analyze(weights, rank_max=2)
    >>> from symrmt.weights import fitted_attention_error
    >>> e = fitted_attention_error(analysis.layers[0].matrix, 1, "tanh(x)", 1.0, [0.1, 1.0], mu=np.zeros(8))
    >>> np.round(e, 4).tolist()
    [0.6568, 0.8526]
    """
    s = float(scale) * fit.fit(rank).s
    if s == 0:
        raise ParameterError(f"the rank-{rank} fit has s = 0: there is no I + low-rank form to predict from.")
    gram = fit.gram(rank, mu)
    data = scaled_data(f, s, center)                  # the Hermite data of f_s(x) = f(s x)
    return attention_error((data["a1"], data["nu"]), c, gamma, gram=gram, d=d)

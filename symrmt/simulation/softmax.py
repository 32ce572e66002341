r"""Softmax attention in the simulator: the convention and its scale.

The scores are those of the entrywise model, :math:`S = X^\top W_{KQ} X/\sqrt p`, with
:math:`S_{ij} = x_i^\top x_j/\sqrt p + (w_K^\top x_i)(w_Q^\top x_j)/\sqrt p` for rank-one weights: token
:math:`i` is the key (along :math:`w_K`) and token :math:`j` the query (along :math:`w_Q`). The features are
:math:`XK'`, whose column :math:`j`, :math:`\sum_i x_i K'_{ij}`, is the output for query :math:`j`. Standard
attention normalizes over the keys, so each *column* of :math:`K^{\rm sm}` sums to one
(``normalize="keys"``, the default), at temperature :math:`\tau` with the self-token masked:

.. math::

    K^{\rm sm}_{ij} = \frac{e^{S_{ij}/\tau}}{\sum_{k \ne j} e^{S_{kj}/\tau}} \ (i \ne j), \qquad
    K^{\rm sm}_{jj} = 0, \qquad \sum_{i} K^{\rm sm}_{ij} = 1 .

``normalize="queries"`` normalizes each row instead, :math:`\sum_{k \ne i} e^{S_{ik}/\tau}` in the
denominator: the transposed model (the keys and queries swapped), kept as an explicit option. Both have the
same deterministic equivalent (docs/theory.md, section 15, with their finite-n difference). The probe runs
on :math:`XK'` with

.. math::

    K' = \sigma_\tau K^{\rm sm}, \qquad \sigma_\tau = \frac{(n - 1)\, e^{1/(2\tau^2)}}{\sqrt p}
    \quad (:func:`softmax_scale`),

because each normalizer concentrates at :math:`(n-1)\,\mathbb E e^{\xi/\tau} = (n-1) e^{1/(2\tau^2)}`:
then :math:`K'_{ij} \approx f(S_{ij})/\sqrt p` with :math:`f(x) = e^{x/\tau}`, the entrywise model, whose
deterministic equivalent is :func:`symrmt.theory.softmax.softmax_error`. The temperature is read by
:func:`symrmt.validate.temperature`.
"""
from __future__ import annotations

import math

__all__ = ["ATTENTIONS", "NORMALIZATIONS", "softmax_scale"]

#: The ``attention`` values of the simulator, the theory's CLI and :func:`symrmt.converge`.
ATTENTIONS = ("entrywise", "softmax")

#: The ``normalize`` values of softmax attention: over the keys of each query (each column; the default,
#: standard attention) or over the queries of each key (each row; the transposed model).
NORMALIZATIONS = ("keys", "queries")


def softmax_scale(n: int, p: int, temperature: float) -> float:
    r""":math:`\sigma_\tau = (n - 1)\, e^{1/(2\tau^2)}/\sqrt p`, the factor from :math:`K^{\rm sm}` to :math:`K'`.

    >>> round(softmax_scale(2048, 2048, 1.0), 4)       # (n - 1) e^(1/2) / sqrt(p)
    74.5762
    """
    return (n - 1) * math.exp(0.5 * (1.0 / temperature) ** 2) / math.sqrt(p)     # 1/tau first: tau**2 overflows

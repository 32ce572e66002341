r"""Softmax attention in the simulator: the convention and its scale.

The scores are those of the entrywise model, :math:`S = X^\top W_{KQ} X/\sqrt p`, with
:math:`S_{ij} = x_i^\top x_j/\sqrt p + (w_K^\top x_i)(w_Q^\top x_j)/\sqrt p` for rank-one weights.
Softmax attention normalizes each row :math:`i` over the other tokens :math:`k \ne i` (the
self-token masked), at temperature :math:`\tau`:

.. math::

    K^{\rm sm}_{ij} = \frac{e^{S_{ij}/\tau}}{\sum_{k \ne i} e^{S_{ik}/\tau}} \ (i \ne j), \qquad
    K^{\rm sm}_{ii} = 0, \qquad \sum_{j} K^{\rm sm}_{ij} = 1 .

The probe runs on :math:`XK'` with

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

__all__ = ["ATTENTIONS", "softmax_scale"]

#: The ``attention`` values of the simulator, the theory's CLI and :func:`symrmt.converge`.
ATTENTIONS = ("entrywise", "softmax")


def softmax_scale(n: int, p: int, temperature: float) -> float:
    r""":math:`\sigma_\tau = (n - 1)\, e^{1/(2\tau^2)}/\sqrt p`, the factor from :math:`K^{\rm sm}` to :math:`K'`.

    >>> round(softmax_scale(2048, 2048, 1.0), 4)       # (n - 1) e^(1/2) / sqrt(p)
    74.5762
    """
    return (n - 1) * math.exp(0.5 / temperature**2) / math.sqrt(p)

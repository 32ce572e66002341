r"""Softmax attention's deterministic equivalent: the entrywise system with the exact Hermite data of the exponential.

The scores are those of the entrywise model, :math:`S = X^\top W_{KQ} X/\sqrt p`, with
:math:`S_{ij} = x_i^\top x_j/\sqrt p + (w_K^\top x_i)(w_Q^\top x_j)/\sqrt p` for rank-one weights (token
:math:`i` the key, token :math:`j` the query). Softmax attention normalizes over the keys of each query
:math:`j` (the self-token masked), at temperature :math:`\tau`, so each column sums to one:

.. math::

    K^{\rm sm}_{ij} = \frac{e^{S_{ij}/\tau}}{\sum_{k \ne j} e^{S_{kj}/\tau}} \ (i \ne j), \qquad
    K^{\rm sm}_{jj} = 0, \qquad \sum_{i} K^{\rm sm}_{ij} = 1

(:mod:`symrmt.simulation.softmax`). The transposed orientation, each row normalized
(``normalize="queries"``), has the same deterministic equivalent (docs/theory.md, section 15, with the
finite-n difference of the two). The probe runs on :math:`XK'` with

.. math::

    K' = \sigma_\tau K^{\rm sm}, \qquad \sigma_\tau = \frac{(n - 1)\, e^{1/(2\tau^2)}}{\sqrt p}
    \quad (:func:`softmax_scale`),

because each normalizer concentrates at :math:`(n-1)\,\mathbb E e^{\xi/\tau} = (n-1) e^{1/(2\tau^2)}`:
then :math:`K'_{ij} \approx f(S_{ij})/\sqrt p` with :math:`f(x) = e^{x/\tau}`, the entrywise model.
Its deterministic equivalent is that of the centered
:math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}` (docs/theory.md, section 15), whose Hermite data are
exact (:func:`softmax_hermite`):

.. math::

    a_1 = \mathbb E[\xi e^{\xi/\tau}] = \frac{e^{1/(2\tau^2)}}{\tau}, \qquad
    \nu = \operatorname{Var} e^{\xi/\tau} = e^{2/\tau^2} - e^{1/\tau^2} .

A ridge :math:`\lambda` on the plain softmax features :math:`XK^{\rm sm}` is the ridge
:math:`\gamma = \sigma_\tau^2 \lambda` here: :math:`E^{\rm sm}(\lambda) = E(\sigma_\tau^2 \lambda)`.

"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConvergenceError
from ..validate import temperature as check_temperature
from .ridge import attention_error

__all__ = ["softmax_hermite", "softmax_formula", "softmax_error"]


def softmax_hermite(temperature: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""``(a_1, nu)`` of :math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}`, exactly (arrays broadcast).

    :math:`a_1 = e^{1/(2\tau^2)}/\tau` (Stein: :math:`\mathbb E f'(\xi)`) and
    :math:`\nu = e^{2/\tau^2} - e^{1/\tau^2}` (:math:`\mathbb E e^{t\xi} = e^{t^2/2}`).

    >>> a1, nu = softmax_hermite(1.0)
    >>> bool(np.isclose(a1, np.exp(0.5))), bool(np.isclose(nu, np.e**2 - np.e))
    (True, True)
    """
    tau = check_temperature(temperature, array=True)
    return np.exp(0.5 / tau**2) / tau, np.exp(2.0 / tau**2) - np.exp(1.0 / tau**2)


def softmax_formula(temperature: float) -> str:
    """The centered f of the softmax at ``temperature``, as a formula in x (for labels and ``symrmt.hermite``).

    >>> softmax_formula(0.5)
    'exp(x/0.5) - exp(1/(2*0.5**2))'
    """
    tau = repr(float(check_temperature(temperature)))
    return f"exp(x/{tau}) - exp(1/(2*{tau}**2))"


def softmax_error(c: Any, gamma: Any, *, temperature: Any = 1.0, geometry: Any = None,
                  gram: Any = None) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_{\rm attn}(\gamma)` for softmax attention at temperature :math:`\tau`.

    The entrywise system (:func:`symrmt.attention_error`, :math:`d = 0`) with the exact Hermite data
    of :math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}`, solved as :math:`f/a_1` at :math:`\gamma/a_1^2` (the same
    error; ``(1, nu/a_1^2)`` stays of order one where :math:`a_1` is large); the convention (:math:`K' = \sigma_\tau K^{\rm sm}`,
    normalized over the keys of each query, or over the queries of each key: the same equivalent) is that of
    :mod:`symrmt.simulation.softmax`. Parameters broadcast.

    Parameters
    ----------
    c, gamma : array_like
        :math:`p/n > 0` and the ridge :math:`\gamma > 0` on :math:`XK'` (a ridge :math:`\lambda` on the
        plain :math:`XK^{\rm sm}` is :math:`\gamma = \sigma_\tau^2\lambda`).
    temperature : array_like
        :math:`\tau \ge` :data:`symrmt.validate.MIN_TEMPERATURE`. The equivalent holds where the normalizers concentrate
        (docs/theory.md, section 15: :math:`\tau \gtrsim 0.5` at n in the thousands).
    geometry, gram
        The signal and the weights, as in :func:`symrmt.attention_error`.

    Examples
    --------
    >>> np.round(softmax_error(1.0, [0.01, 0.1, 1.0]), 4)
    array([0.0805, 0.1791, 0.3889])
    """
    # K -> K/a_1 maps E(gamma) to E(gamma/a_1^2), exactly (finite model and theory): solving with a_1 = 1 keeps
    # the system's numbers of order one where a_1 = e^{1/(2 tau^2)}/tau is large (tau = 0.3: a_1 = 862, nu = 4.5e9).
    a1, nu = softmax_hermite(temperature)
    share, ridge = nu / a1**2, np.asarray(gamma, dtype=float) / a1**2
    try:
        return attention_error((np.ones_like(a1), share), c, ridge, geometry, 0.0, gram)
    except ConvergenceError:
        # At c = 1 with a large nonlinear share the solver's continuation can stall on a grid whose points it
        # solves one by one (e.g. 61 points of gamma/a_1^2 in [0.01, 10] at tau = 0.5): retry point by point,
        # each point still checked by the solver.
        return _pointwise(attention_error, share, c, ridge, geometry, gram)


def _pointwise(attention_error, share, c, ridge, geometry, gram) -> np.ndarray:
    """:func:`symrmt.attention_error` of ``(1, share)`` one broadcast point at a time."""
    share, c, ridge = np.broadcast_arrays(share, np.asarray(c, dtype=float), ridge)
    out = np.array([attention_error((1.0, float(b)), float(x), float(g), geometry, 0.0, gram)
                    for b, x, g in zip(share.flat, c.flat, ridge.flat)], dtype=float)
    return out.reshape(share.shape)

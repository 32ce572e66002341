r"""Several attention heads, summed: the deterministic equivalent through the rank-r engine.

H heads share the tokens, f and the identity part of their weights,
:math:`W^{(h)} = I_p + B_h` with :math:`B_h = \sum_{k \in h} w_K^{(k)} w_Q^{(k)\top}` of rank r. Their
scores share the noise part :math:`S^0 = Z^\top Z/\sqrt p` and differ only by the low-rank
:math:`\Delta_h/\sqrt p` (docs/theory.md, section 3), so to the first order of section 3

.. math::

    \sum_h K_h \asymp H\,\big(K_N + \tfrac{a_1}{p}\,\bar\Delta\big), \qquad
    \bar\Delta = \frac1H \sum_h \Delta_h ,

which is H times the attention matrix of one head with the averaged weights
:math:`I_p + \frac1H \sum_h B_h` (rank :math:`Hr`): the noise parts do not average out, they are
the same matrix, and the heads add only their low-rank parts. Since :math:`K \mapsto HK` maps
:math:`E(\gamma)` to :math:`E(\gamma/H^2)`,

.. math::

    E^{\rm sum}_H(\gamma) = E_{\rm one\ head}\big(\gamma/H^2;\ \mu,\ w^{(k)}/\sqrt H\big),

the averaged weights being the vectors :math:`w_K^{(k)}/\sqrt H`, :math:`w_Q^{(k)}/\sqrt H` of all the
heads (docs/theory.md, section 16). The concatenated heads (a probe on :math:`[XK_1; \dots; XK_H]`)
add :math:`\sum_h (L_h - \bar L)^\top C (L_h - \bar L)` to this Gram matrix, a low-rank term the
engine does not derive; :func:`symrmt.simulation.heads.simulate_heads` simulates both.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .. import validate
from ..errors import ParameterError
from ..geometry import check_gram
from ..models.binding import attention_arguments
from ..models import SUMMED_HEADS
from .forms import DEFAULT_FORM
from .ridge import RidgeSolution, solve_attention, solve_model

__all__ = ["averaged_gram", "summed_heads_error", "solve_summed_heads"]


def averaged_gram(gram: Any, heads: int) -> np.ndarray:
    r"""The Gram matrix of :math:`(\mu, w_K^{(1..R)}/\sqrt H, w_Q^{(1..R)}/\sqrt H)`: one head with the averaged weights.

    >>> averaged_gram(np.diag([1.0, 2.0, 2.0, 2.0, 2.0]), 2).diagonal().tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    return _averaged(gram, heads)[0]


def _averaged(gram: Any, heads: Any) -> tuple[np.ndarray, int]:
    """``(averaged Gram matrix, H)``: the user's gram and head count, each read once (:func:`symrmt.validate.heads`)."""
    check_gram(gram)                            # the user's matrix, checked (and refused) as given
    gram = np.array(gram, dtype=np.float64)
    if gram.ndim != 2:
        raise ParameterError(f"gram has shape {gram.shape}: give one (1 + 2R) x (1 + 2R) Gram matrix of "
                             "(mu, w_K^(1..R), w_Q^(1..R)).")
    heads = validate.heads(heads, pairs=(gram.shape[0] - 1) // 2)      # the one reader of H
    gram[1:, 1:] /= heads                       # w.w' / H
    gram[0, 1:] /= np.sqrt(heads)               # mu.w / sqrt(H)
    gram[1:, 0] /= np.sqrt(heads)
    return gram, heads


def summed_heads_error(f: Any, c: Any, gamma: Any, gram: Any, heads: int, d: float = 0.0) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)` for H heads summed, :math:`K = \sum_h K_h`.

    :func:`symrmt.attention_error` of one head with the averaged weights (:func:`averaged_gram`) at
    :math:`\gamma/H^2` (module docstring); ``f``, ``c``, ``gamma`` and ``d`` as there (d is each head's
    diagonal). The registered model ``summed_heads`` (:func:`solve_summed_heads`).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity of every head (centred), or its Hermite data.
    c : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    gamma : array_like
        The ridge, :math:`0 < \gamma \le 10^{12}`.
    gram : array_like
        The Gram matrix of :math:`(\mu, w_K^{(1..Hr)}, w_Q^{(1..Hr)})`, shape ``(1 + 2Hr, 1 + 2Hr)``: the signal and
        the r pairs of weights of each head, head by head.
    heads : int
        The number of heads H, at least 1.
    d : float
        Each head's diagonal :math:`K_{ii}`, :math:`|d| \le 100`; default 0.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{attn}` in :math:`[0, 1]`, of the broadcast shape of ``c`` and ``gamma``.

    Raises
    ------
    ParameterError
        A parameter of the wrong type or outside its range, or a Gram matrix whose number of weight pairs is not a
        multiple of H.
    ConvergenceError
        When some point cannot be solved.

    See Also
    --------
    symrmt.attention_error : One head, which this evaluates with the averaged weights.

    Examples
    --------
    >>> gram = np.diag([1.0, 1.0, 0.5, 1.0, 0.5])
    >>> e = summed_heads_error("tanh(x)", 1.0, [0.1, 1.0], gram, heads=2)
    >>> bool(np.all((0 < e) & (e < 1)))
    True
    """
    return solve_model(SUMMED_HEADS, f=f, c=c, gamma=gamma, gram=gram, heads=heads, d=d).error


def solve_summed_heads(f: Any, c: Any, gamma: Any, gram: Any, heads: int, d: Any = 0.0, *,
                       form: str = DEFAULT_FORM, partial: bool = False) -> RidgeSolution:
    r"""The solve hook of the ``summed_heads`` model: one head with the averaged weights at :math:`\gamma/H^2`.

    :math:`\Phi` of the summed heads is :math:`\Phi_\text{one head}(\gamma/H^2)/H^2`
    (:math:`(H^2A + \gamma)^{-1} = H^{-2}(A + \gamma/H^2)^{-1}`); :math:`E` is the same at both.

    >>> s = solve_summed_heads("tanh(x)", 1.0, 0.1, np.diag([1.0, 1.0, 0.5, 1.0, 0.5]), heads=2)
    >>> bool(0 < s.error < 1)
    True
    """
    from ..derive.symbols import ERROR, PHI  # heavy: SymPy

    averaged, heads = _averaged(gram, heads)
    # gamma as the user gave it, refused in their terms (the solver sees gamma/H^2, inside the range if gamma is)
    gamma = attention_arguments(gamma=gamma)["gamma"]
    one = solve_attention(f, c, gamma / heads**2, None, d, averaged, partial=partial, form=form)
    return dataclasses.replace(one, observables={ERROR: one.error, PHI: one.phi / heads**2})

r"""The quadrature rule of the Marchenko--Pastur law, and the rules by law name (:data:`RULES`)."""
from __future__ import annotations

import numpy as np

__all__ = ["marchenko_pastur_rule", "RULES"]


def marchenko_pastur_rule(c: np.ndarray, nodes: int = 48) -> tuple[np.ndarray, np.ndarray]:
    r"""Quadrature nodes and weights for :math:`\mathbb E_\lambda` over the law of :math:`A = Z^\top Z/p`.

    The law is Marchenko--Pastur with ratio :math:`q = 1/c`: density
    :math:`\sqrt{(\lambda_+ - \lambda)(\lambda - \lambda_-)}/(2\pi q \lambda)` on
    :math:`[\lambda_-, \lambda_+] = [(1 - \sqrt q)^2, (1 + \sqrt q)^2]` plus an
    atom of mass :math:`1 - c` at 0 when :math:`c < 1`. With
    :math:`\lambda = m - h\cos\varphi` the density times :math:`\mathrm d\lambda` is
    :math:`h^2\sin^2\varphi/(2\pi q\lambda)\,\mathrm d\varphi`; midpoints in
    :math:`\varphi \in (0, \pi)`, which is spectrally accurate because the integrand
    is smooth and periodic in :math:`\varphi` (even at :math:`c = 1`).

    The factor :math:`1/\lambda` has a pole at 0, just outside the support when
    :math:`c \approx 1`, which would slow the rule down. So the rule integrates
    :math:`\mathbb E[g] = g(0) + \int (g(\lambda) - g(0))/\lambda \cdot
    \sqrt{(\lambda_+ - \lambda)(\lambda - \lambda_-)}/(2\pi q)\,\mathrm d\lambda`,
    whose integrand is smooth: the node weights are unchanged and the weight of
    the node at 0 becomes :math:`1 - \sum_j w_j` (the atom :math:`(1 - c)_+`
    plus the rule's error on the constant), so constants are integrated exactly.

    Parameters
    ----------
    c : numpy.ndarray
        The ratios :math:`c = p/n > 0` (any shape; a float is taken as a 0-d array).
    nodes : int
        Midpoint nodes in :math:`\varphi`, :math:`\ge 1`; default 48. A rule with :math:`3k` nodes contains the one
        with :math:`k` (every third node), which the solver's error estimate uses.

    Returns
    -------
    lam, weights : numpy.ndarray
        Nodes :math:`\lambda_j` and weights :math:`w_j`, each of shape ``c.shape + (nodes + 1,)``; the last node is
        :math:`\lambda = 0`, and the weights sum to 1.

    Raises
    ------
    Nothing
        A ``c`` that is not positive gives NaN nodes and weights (the solver checks :math:`c` first, in
        :math:`[10^{-6}, 10^6]`).

    See Also
    --------
    RULES : The rules by law name, as the compiled systems name their law.
    symrmt.solve.solve : Where the averages :math:`\mathbb E_\lambda` are computed with this rule.

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


#: law name -> rule(parameters: dict of arrays, nodes) -> (nodes, weights). The last node of every rule
#: carries the weight that makes constants exact, and rules with 3k nodes embed the rule with k
#: (every third node, weight x3, and the last node): the solver's error estimate relies on both.
RULES = {
    "marchenko_pastur": lambda parameters, nodes: marchenko_pastur_rule(parameters["c"], nodes),
}

r"""Rank-1 against rank-r attention weights of the same total strength
===================================================================

:math:`W_K^\top W_Q = I + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}` with
:math:`w^{(k)} = \rho\, v_k/\sqrt r` for orthonormal :math:`v_k`, so that the total strength
:math:`\sum_k \|w^{(k)}\|^2 = \rho^2` does not depend on :math:`r`. The theory takes the weights through
the Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, size :math:`1 + 2r`; here the signal is
spread over the :math:`r` directions. Splitting the strength over more directions never lowers the error.

The publication figure (with Monte Carlo, and a signal half outside the weights' span) is
``symrmt figure rank``:

.. image:: /figures/rank.png
   :alt: the publication figure rank
"""
import matplotlib.pyplot as plt
import numpy as np

import symrmt

h = symrmt.hermite("tanh(x)")
gamma = np.geomspace(1e-3, 1e2, 60)
fig, ax = plt.subplots(figsize=(6, 4))
for r in [1, 2, 3]:
    w = 2.0 / np.sqrt(r) * np.eye(r)                      # rows w^(1..r): strength rho = 2 in all
    mu = np.ones(r) / np.sqrt(r)                          # |mu| = 1, spread over the r directions
    vectors = np.vstack([mu, w, w])                       # (mu, w_K^(1..r), w_Q^(1..r)), w_K = w_Q
    ax.plot(gamma, symrmt.attention_error(h, c=1.0, gamma=gamma, gram=vectors @ vectors.T), label=f"rank {r}")
ax.plot(gamma, symrmt.linear_error(c=1.0, gamma=gamma, geometry=symrmt.Geometry(mu_norm=1.0)), "k--",
        label="linear regression")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{attn}$", title="tanh, c = 1, |mu| = 1")
ax.legend()
plt.show()

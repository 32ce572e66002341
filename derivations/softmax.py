r"""Softmax attention at three temperatures
=======================================

Softmax attention against the entrywise theory of :math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}`
(:func:`symrmt.softmax_error`) at the temperatures :math:`\tau = 0.5, 1, 2`, and a Monte Carlo of real
softmax attention at n = 256 (``simulate(None, ..., attention="softmax", temperature=tau)``) with its
95% Student-t intervals. The agreement improves with the temperature and with n.

The publication figure (with signal and aligned weights, over :math:`c`, and :math:`\tau = 0.5`
extrapolated to :math:`n = \infty`) is ``symrmt figure softmax``:

.. image:: /figures/softmax.png
   :alt: the publication figure softmax
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

import symrmt

gamma = np.geomspace(1e-3, 1e2, 60)
fig, ax = plt.subplots(figsize=(6, 4))
for k, tau in enumerate([0.5, 1.0, 2.0]):
    ax.plot(gamma, symrmt.softmax_error(1.0, gamma, temperature=tau), f"C{k}", label=f"tau = {tau}")
    mc = symrmt.simulate(None, n=256, c=1.0, gamma=[1e-2, 1e-1, 1.0, 10.0], seeds=4, attention="softmax",
                         temperature=tau, progress=False)
    ax.errorbar(mc.gamma, mc.attention_mean, stats.t.ppf(0.975, mc.seeds - 1) * mc.attention_se, fmt="o",
                color=f"C{k}")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{attn}$", title="softmax attention, c = 1")
ax.legend()
plt.show()

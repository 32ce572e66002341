r"""Ridge regression: the paper's first figure
==========================================

The ridge-regression error :math:`E_\mathrm{RR}` on the model's data against the ridge
:math:`\gamma` at the paper's ratio :math:`c = p/n = 4` (p = 2048, n = 512), for signal strengths
:math:`\|\mu\|^2 = 0, 1, 4`, with a Monte Carlo at a quarter of the size (p = 512, n = 128) and its
95% Student-t intervals. :func:`symrmt.linear_error` is the deterministic equivalent; the
``linear_mean`` of :func:`symrmt.simulate` is the same quantity measured on the finite model.

The publication figure (also against p and against :math:`\|\mu\|^2`) is ``symrmt figure paper_fig1``:

.. image:: /figures/paper_fig1.png
   :alt: the publication figure paper_fig1
"""
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

import symrmt

gamma = np.geomspace(1e-4, 1e2, 60)
fig, ax = plt.subplots(figsize=(6, 4))
for k, theta in enumerate([0.0, 1.0, 4.0]):
    geometry = symrmt.Geometry(mu_norm=np.sqrt(theta))
    ax.plot(gamma, symrmt.linear_error(c=4.0, gamma=gamma, geometry=geometry), f"C{k}",
            label=rf"$\|\mu\|^2 = {theta:g}$")
    mc = symrmt.simulate("tanh(x)", n=128, c=4.0, gamma=[1e-3, 1e-1, 10.0], geometry=geometry, seeds=4,
                         progress=False)
    ax.errorbar(mc.gamma, mc.linear_mean, stats.t.ppf(0.975, mc.seeds - 1) * mc.linear_se, fmt="o", color=f"C{k}")
ax.set(xscale="log", xlabel=r"ridge $\gamma$", ylabel=r"$E_\mathrm{RR}$", title="c = p/n = 4")
ax.legend()
plt.show()
